import type { ResolvedServerOptions } from '../options.js';
import { RpcConnection } from '../rpc/connection.js';
import { LOCAL_PRINCIPAL, type Principal } from '../security/tokens.js';
import { ServerCore } from './serverCore.js';

/**
 * One end of an in-process connection, shaped like the client's Transport: JSON-RPC text in
 * both directions, delivered asynchronously as a socket would.
 */
export interface InProcessLink {
  send(text: string): void;
  close(code?: number, reason?: string): void;
  onmessage: ((text: string) => void) | undefined;
  onclose: ((info: { code: number; reason: string }) => void) | undefined;
  /** Never called: nothing can arrive that the link cannot deliver. */
  onerror: ((error: Error) => void) | undefined;
}

/** A BAP server without a port: clients join through in-process links (`BAPClient({ transport })`). */
export interface EmbeddedServer {
  /**
   * A new connection, as a WebSocket client would get, acting for `principal` (default: the
   * local user, every scope).
   */
  connect(principal?: Principal): InProcessLink;
  stats(): Promise<{ connections: number; resumableSessions: number; browsers: number; contexts: number; pages: number }>;
  close(): Promise<void>;
}

export function embed(options: ResolvedServerOptions): EmbeddedServer {
  const core = new ServerCore(options);
  const connections = new Set<RpcConnection>();
  const log = core.security.log;

  function connect(principal: Principal = LOCAL_PRINCIPAL): InProcessLink {
    let open = true;
    const end = (code: number, reason: string) => {
      if (!open) return;
      open = false;
      connections.delete(connection);
      setImmediate(() => link.onclose?.({ code, reason }));
      connection.close().catch((error: unknown) => log.warn({ err: error }, 'closing session failed'));
    };
    const link: InProcessLink = {
      send: (text) => {
        if (!open) return;
        setImmediate(() => connection.receive(text).catch((error: unknown) => log.error({ err: error }, 'unhandled dispatch failure')));
      },
      close: (code = 1000, reason = '') => end(code, reason),
      onmessage: undefined,
      onclose: undefined,
      onerror: undefined,
    };
    const connection = new RpcConnection(
      core.sessions,
      options,
      {
        send: (text) => {
          if (open) setImmediate(() => link.onmessage?.(text));
        },
        buffered: () => 0,
        close: (code, reason) => end(code, reason),
      },
      core.security,
      { principal, remote: 'in-process' },
    );
    connections.add(connection);
    return link;
  }

  return {
    connect,
    stats: async () => ({ connections: connections.size, ...(await core.stats()) }),
    close: async () => {
      await Promise.all([...connections].map((c) => c.close().catch(() => {})));
      connections.clear();
      await core.close();
    },
  };
}
