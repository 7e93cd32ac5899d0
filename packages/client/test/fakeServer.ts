import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import {
  BAPError,
  ErrorCodes,
  PROTOCOL_VERSION,
  methodNames,
  type InitializeResult,
  type MethodName,
} from '@browseragentprotocol/protocol';

/** Returned by a handler that should never answer (to exercise client timeouts). */
export const NO_REPLY = Symbol('no reply');

type Params = Record<string, unknown> | undefined;
export interface HandlerContext {
  socket: WebSocket;
  id: unknown;
}
export type Handler = (params: Params, context: HandlerContext) => unknown;

export interface Received {
  /** Which connection (0, 1, …) the message came on. */
  connection: number;
  message: Record<string, unknown>;
  /** Whether it arrived inside a batch array. */
  batch: boolean;
}

export interface FakeServerOptions {
  protocolVersion?: string;
  /** Answer batch arrays in reverse order, as a server is free to. */
  reverseBatches?: boolean;
}

const invalidRequest = () => ({
  jsonrpc: '2.0',
  id: null,
  error: new BAPError(ErrorCodes.InvalidRequest, 'Invalid Request').toWire(),
});

/**
 * A JSON-RPC WebSocket server on 127.0.0.1, port 0, speaking just enough BAP for client tests:
 * the handshake methods plus whatever handlers a test installs.
 */
export class FakeServer {
  readonly received: Received[] = [];
  readonly sockets: WebSocket[] = [];
  /** Request URLs of accepted connections (to check `?token=`). */
  readonly urls: string[] = [];
  private readonly handlers = new Map<string, Handler>();
  private refusals = 0;
  private sessions = 0;

  private constructor(
    private readonly wss: WebSocketServer,
    private readonly options: FakeServerOptions,
  ) {
    this.handle('initialize', (params) => this.initializeResult(params));
    this.handle('events/subscribe', (params) => ({ subscribed: params?.events ?? [], unavailable: [] }));
    this.handle('shutdown', () => ({}));
    wss.on('connection', (socket, request) => this.accept(socket, request.url ?? ''));
  }

  static async start(options: FakeServerOptions = {}): Promise<FakeServer> {
    const server = new FakeServer(
      new WebSocketServer({
        host: '127.0.0.1',
        port: 0,
        verifyClient: (_info, done) => {
          if (server.refusals > 0) {
            server.refusals--;
            done(false, 503, 'Not now');
          } else done(true);
        },
      }),
      options,
    );
    await once(server.wss, 'listening');
    return server;
  }

  get port(): number {
    return (this.wss.address() as AddressInfo).port;
  }

  get url(): string {
    return `ws://127.0.0.1:${this.port}`;
  }

  handle(method: MethodName | (string & {}), handler: Handler): void {
    this.handlers.set(method, handler);
  }

  /** Messages received with this method, in order. */
  requests(method: string): Received[] {
    return this.received.filter((r) => r.message.method === method);
  }

  notify(method: string, params: unknown, socket = this.sockets.at(-1)): void {
    socket?.send(JSON.stringify({ jsonrpc: '2.0', method, params }));
  }

  /** Answer the next `count` upgrade requests with HTTP 503. */
  refuseNext(count: number): void {
    this.refusals = count;
  }

  /** Cut every connection without a close handshake, as a crash or network loss would. */
  dropAll(): void {
    for (const socket of this.sockets) socket.terminate();
  }

  async waitFor(predicate: () => boolean, timeoutMs = 5_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!predicate()) {
      if (Date.now() > deadline) throw new Error('waitFor: condition not met in time');
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.terminate();
    await new Promise<void>((resolve) => this.wss.close(() => resolve()));
  }

  private initializeResult(params: Params): InitializeResult {
    const sessionId = typeof params?.sessionId === 'string' ? params.sessionId : `session-${++this.sessions}`;
    return {
      protocolVersion: this.options.protocolVersion ?? PROTOCOL_VERSION,
      serverInfo: { name: 'fake-bap-server', version: '9.9.9' },
      capabilities: {
        browsers: ['chromium'],
        events: ['page', 'console'],
        methods: [...methodNames],
        features: { refs: true, batch: true, semanticSelectors: false, multiPage: true, streaming: false },
        limits: {
          maxMessageBytes: 16_777_216,
          maxBatchSize: 100,
          maxPages: 50,
          maxContexts: 10,
          maxPagesPerContext: 20,
          maxUploadBytes: 10_485_760,
          maxStreams: 3,
          sessionGraceMs: 60_000,
          maxTimeout: 300_000,
          defaultTimeout: 30_000,
        },
      },
      sessionId,
      resumed: typeof params?.sessionId === 'string',
    };
  }

  private accept(socket: WebSocket, url: string): void {
    const connection = this.sockets.push(socket) - 1;
    this.urls.push(url);
    socket.on('message', async (data) => {
      const message: unknown = JSON.parse(String(data));
      if (Array.isArray(message) && message.length === 0) {
        socket.send(JSON.stringify(invalidRequest()));
      } else if (Array.isArray(message)) {
        const replies = await Promise.all(message.map((m: Record<string, unknown>) => this.answer(m, connection, true, socket)));
        const answered = replies.filter((r) => r !== undefined);
        if (this.options.reverseBatches) answered.reverse();
        if (answered.length > 0) socket.send(JSON.stringify(answered));
      } else {
        const reply = await this.answer(message as Record<string, unknown>, connection, false, socket);
        if (reply !== undefined) socket.send(JSON.stringify(reply));
      }
    });
  }

  private async answer(message: Record<string, unknown>, connection: number, batch: boolean, socket: WebSocket) {
    this.received.push({ connection, message, batch });
    if (message?.jsonrpc !== '2.0' || typeof message.method !== 'string') return invalidRequest();
    if (!('id' in message)) return undefined;
    const { id } = message;
    const handler = this.handlers.get(String(message.method));
    try {
      if (!handler) throw new BAPError(ErrorCodes.MethodNotFound, `Unknown method ${String(message.method)}`);
      const result = await handler(message.params as Params, { socket, id });
      return result === NO_REPLY ? undefined : { jsonrpc: '2.0', id, result };
    } catch (error) {
      const wire = error instanceof BAPError ? error.toWire() : { code: -32603, message: String(error), data: { retryable: false } };
      return { jsonrpc: '2.0', id, error: wire };
    }
  }
}
