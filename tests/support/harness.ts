import { BAPClient } from '@browseragentprotocol/client';
import { startServer } from '@browseragentprotocol/server-playwright';
import { FixtureServer } from './fixtureServer.js';
import { RawSocket } from './rawSocket.js';

export type ServerStartOptions = NonNullable<Parameters<typeof startServer>[0]>;
export type RunningServer = Awaited<ReturnType<typeof startServer>>;

export interface HarnessOptions {
  /** Merged over the defaults every e2e test runs with (loopback, port 0, result validation, silent). */
  server?: Partial<ServerStartOptions>;
  /** Connect `client` (default true). */
  connect?: boolean;
}

export interface Harness {
  /** Serves `tests/fixtures/`. */
  fixtures: FixtureServer;
  /** The same files from another port: another origin, for cross-origin frames. */
  crossOrigin: FixtureServer;
  server: RunningServer;
  /** Connected and subscribed to page and console events, unless `connect: false`. */
  client: BAPClient;
  url(path: string): string;
  /**
   * `iframe.html` with a same-origin frame and a cross-origin frame from `crossOrigin`. With
   * `crossSite`, the second frame is addressed as `localhost` instead of 127.0.0.1: another site,
   * so Chromium runs it out of process.
   */
  iframePageUrl(options?: { crossSite?: boolean }): string;
  /** Another connected client (its own session and pages); closed by `stop()`. */
  newClient(): Promise<BAPClient>;
  /** A raw WebSocket to the server, without handshake; closed by `stop()`. */
  rawSocket(): Promise<RawSocket>;
  stop(): Promise<void>;
}

export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  const [fixtures, crossOrigin] = await Promise.all([FixtureServer.start(), FixtureServer.start()]);
  const server = await startServer({
    host: '127.0.0.1',
    port: 0,
    validateResults: true,
    logger: false,
    headless: true,
    ...options.server,
  });
  const clients: BAPClient[] = [];
  const sockets: RawSocket[] = [];

  const newClient = async (): Promise<BAPClient> => {
    const client = new BAPClient(server.url);
    clients.push(client);
    await client.connect();
    return client;
  };

  const client = options.connect === false ? new BAPClient(server.url) : await newClient();
  if (options.connect === false) clients.push(client);

  return {
    fixtures,
    crossOrigin,
    server,
    client,
    url: (path) => fixtures.url(path),
    iframePageUrl: ({ crossSite = false } = {}) => {
      const frame = new URL(crossOrigin.url('frame.html?name=cross'));
      if (crossSite) frame.hostname = 'localhost';
      return fixtures.url(`iframe.html?cross=${encodeURIComponent(frame.toString())}`);
    },
    newClient,
    rawSocket: async () => {
      const socket = await RawSocket.open(server.url);
      sockets.push(socket);
      return socket;
    },
    stop: async () => {
      await Promise.allSettled([...clients.map((c) => c.close()), ...sockets.map((s) => s.close())]);
      await server.close();
      await Promise.all([fixtures.close(), crossOrigin.close()]);
    },
  };
}
