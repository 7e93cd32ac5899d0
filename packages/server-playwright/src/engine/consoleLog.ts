import type { ConsoleEvent, ConsoleMessage, MethodResult } from '@browseragentprotocol/protocol';

/** Messages kept per page; older ones are dropped (and counted). */
const KEPT = 1_000;

const SEVERITY: Record<ConsoleMessage['level'], number> = { debug: 0, log: 1, info: 1, warn: 2, error: 3 };

/** A page's recent console messages, for observe/console: events/console only reaches subscribers, and only from then on. */
export class ConsoleLog {
  private readonly messages: ConsoleMessage[] = [];
  private dropped = 0;

  constructor(private readonly pageId: string) {}

  add({ pageId: _pageId, ...message }: ConsoleEvent): void {
    this.messages.push(message);
    if (this.messages.length > KEPT) {
      this.messages.shift();
      this.dropped++;
    }
  }

  /** The kept messages at least as severe as `level`, oldest first. */
  list(level?: ConsoleMessage['level']): MethodResult<'observe/console'> {
    const floor = level ? SEVERITY[level] : 0;
    return { pageId: this.pageId, messages: this.messages.filter((m) => SEVERITY[m.level] >= floor), dropped: this.dropped };
  }
}
