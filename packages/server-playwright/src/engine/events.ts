import type { EventNotificationName, NotificationParams } from '@browseragentprotocol/protocol';

/** Where a session's notifications go: the connection it is attached to, or a buffer while parked. */
export type Emit = <N extends EventNotificationName>(method: N, params: NotificationParams<N>) => void;
