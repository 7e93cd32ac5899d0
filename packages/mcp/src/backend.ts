import { BAPClient, type BAPClientOptions } from '@browseragentprotocol/client';
import { embedServer, type EmbeddedServer, type Principal, type ServerOptions } from '@browseragentprotocol/server-playwright';

/** Where the MCP server's browser work happens: an engine in this process, or a BAP server. */
export interface Backend {
  /** A new BAP client for one MCP session (its own BAP session: own pages, own approvals). */
  client(options: BAPClientOptions): BAPClient;
  close(): Promise<void>;
}

/** The engine in this process, without a port; `principal` carries the scopes tools act with. */
export function inProcessBackend(options: Omit<ServerOptions, 'host' | 'port' | 'tls'>, principal?: Principal): Backend {
  let embedded: EmbeddedServer | undefined;
  return {
    client: (clientOptions) =>
      new BAPClient('bap://in-process', {
        ...clientOptions,
        transport: async () => (embedded ??= embedServer(options)).connect(principal),
      }),
    close: async () => embedded?.close(),
  };
}

/** A running BAP server (`bap serve`), reached over WebSocket with an optional token. */
export function remoteBackend(url: string, token?: string): Backend {
  return {
    client: (clientOptions) => new BAPClient(url, token === undefined ? clientOptions : { ...clientOptions, token }),
    close: async () => {},
  };
}
