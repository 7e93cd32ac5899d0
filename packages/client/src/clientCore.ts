import {
  BAPError,
  ErrorCodes,
  InitializeResultSchema,
  PROTOCOL_VERSION,
  formatZodError,
  notifications,
  type EventType,
  type InitializeResult,
  type MethodName,
  type MethodParams,
  type MethodResult,
  type NotificationName,
  type NotificationParams,
  type ApprovalDecision,
  type ApprovalRequired,
  type StreamStartResult,
  type StreamableMethod,
} from '@browseragentprotocol/protocol';
import { backoffDelay, reconnectPolicy, sleep, type ReconnectOptions, type ReconnectPolicy } from './backoff.js';
import { RpcConnection } from './connection.js';
import { Emitter } from './emitter.js';
import { BAPClientError } from './errors.js';
import { buildRpcNamespaces, type RpcNamespaces } from './rpcNamespaces.js';
import { BAPStream, StreamRouter } from './streams.js';
import { openWebSocket, type CloseInfo, type Transport } from './transport.js';

/** Kept in step with package.json by a test. */
export const CLIENT_INFO = { name: '@browseragentprotocol/client', version: '0.1.0' } as const;

/** What an approval handler answers: a decision, optionally with a reason for the audit log. */
export type ApprovalAnswer = ApprovalDecision | { decision: ApprovalDecision; reason?: string };

export interface BAPClientOptions {
  /** Sent as `?token=` on the URL. */
  token?: string;
  /**
   * Asked whenever the server holds a request for human approval (approval/required); its answer
   * is sent with approval/respond. Throwing or rejecting denies. Without it, listen for
   * `approval/required` yourself and call `respondToApproval`.
   */
  onApprovalRequired?: (request: ApprovalRequired) => ApprovalAnswer | Promise<ApprovalAnswer>;
  /** For wss:// with a private CA or a self-signed certificate (Node only). */
  tls?: { ca?: string | Buffer; rejectUnauthorized?: boolean };
  clientInfo?: { name: string; version: string };
  /**
   * Opens the connection instead of a WebSocket to the URL: an in-process link to an embedded
   * server, for instance (`@browseragentprotocol/server-playwright`'s `embedServer`).
   */
  transport?: () => Promise<Transport>;
  /** Milliseconds to wait for each response (default 30,000). Also bounds opening the socket. */
  requestTimeout?: number;
  /** Notifications to subscribe to (default `['page', 'console']`). */
  events?: EventType[];
  /** Reconnect after an unexpected close (default off); `true` uses the default backoff. */
  reconnect?: boolean | ReconnectOptions;
  /**
   * Make the session resumable: after a dropped connection, reconnecting (or a new client with
   * the same id) within the server's grace period finds its contexts and pages. `true` picks a
   * random id; a string must be 16-128 letters, digits, `_` or `-`, and kept secret.
   */
  sessionId?: string | true;
}

export type ClientEventMap = { [N in NotificationName]: NotificationParams<N> } & {
  /** Every notification, known to the protocol table or not, before validation. */
  notification: { method: string; params: unknown };
  /** The client is closed for good: `close()`, a drop without reconnecting, or reconnecting gave up. */
  close: CloseInfo;
  reconnecting: { attempt: number; delayMs: number };
  /** `resumed`: the server kept the previous session (its pages survive). */
  reconnected: { attempt: number; sessionId: string | undefined; resumed: boolean };
  /** Problems tied to no call: malformed messages, unattributable server errors, reconnecting gave up. */
  error: Error;
};

export type BatchEntry = { [M in MethodName]: { method: M; params?: MethodParams<M> } }[MethodName];
export type BatchResults<T extends readonly BatchEntry[]> = {
  -readonly [K in keyof T]: T[K] extends { method: infer M extends MethodName } ? MethodResult<M> | BAPError : never;
};

type State = 'idle' | 'connecting' | 'open' | 'reconnecting' | 'closed';

/** Close codes after which coming back is pointless: 1008 auth/policy failure, 4001 session taken over. */
const FINAL_CLOSE_CODES = new Set([1008, 4001]);
/** `close()` must not hang on an unresponsive server; the server cleans up on socket close anyway. */
const SHUTDOWN_TIMEOUT_MS = 5_000;

function randomSessionId(): string {
  return `s-${globalThis.crypto.randomUUID()}`;
}

function majorVersion(version: string): number | undefined {
  const match = /^(\d+)\.\d+\.\d+/.exec(version);
  return match ? Number(match[1]) : undefined;
}

/** Failures a later attempt may get past; a refused token or an incompatible server will not change. */
function worthRetrying(error: unknown): boolean {
  if (error instanceof BAPError) return error.retryable;
  return BAPClientError.is(error) && ['ECONNECT', 'ECLOSED', 'ETIMEOUT'].includes(error.code);
}

/** Connection lifecycle and raw calls: handshake, calls, batches, notifications, reconnecting. */
export class BAPClientCore {
  /** Every method of the protocol table: `rpc.page.navigate({ url })`, `rpc.observe.ariaSnapshot()`. */
  readonly rpc: RpcNamespaces;
  private readonly url: string;
  private readonly clientInfo: { name: string; version: string };
  private readonly requestTimeout: number;
  private readonly events: EventType[];
  private readonly reconnectPolicy: ReconnectPolicy | undefined;
  private readonly requestedSession: string | undefined;
  private readonly approvalHandler: BAPClientOptions['onApprovalRequired'];
  private readonly tls: BAPClientOptions['tls'];
  private readonly openTransport: () => Promise<Transport>;
  private readonly emitter = new Emitter<ClientEventMap>();
  private readonly streams = new StreamRouter();
  private state: State = 'idle';
  private connection: RpcConnection | undefined;
  private init: InitializeResult | undefined;
  private opening: Promise<InitializeResult> | undefined;
  private stopReconnecting: AbortController | undefined;
  /** One counter for the client's lifetime, so ids never repeat across reconnects. */
  private lastId = 0;

  constructor(url: string, options: BAPClientOptions = {}) {
    const target = new URL(url);
    if (options.token !== undefined) target.searchParams.set('token', options.token);
    this.url = target.toString();
    this.clientInfo = options.clientInfo ?? CLIENT_INFO;
    this.requestTimeout = options.requestTimeout ?? 30_000;
    this.events = options.events ?? ['page', 'console'];
    this.reconnectPolicy = reconnectPolicy(options.reconnect);
    this.requestedSession = options.sessionId === true ? randomSessionId() : options.sessionId;
    this.approvalHandler = options.onApprovalRequired;
    this.tls = options.tls;
    this.openTransport = options.transport ?? (() => openWebSocket(this.url, this.requestTimeout, this.tls));
    if (this.approvalHandler) this.on('approval/required', (request) => void this.answerApproval(request));
    this.rpc = buildRpcNamespaces((method, params) => this.call(method, params));
  }

  get connected(): boolean {
    return this.state === 'open';
  }
  get serverInfo(): InitializeResult['serverInfo'] | undefined {
    return this.init?.serverInfo;
  }
  get capabilities(): InitializeResult['capabilities'] | undefined {
    return this.init?.capabilities;
  }
  /** The version the server speaks. */
  get protocolVersion(): string | undefined {
    return this.init?.protocolVersion;
  }
  get sessionId(): string | undefined {
    return this.init?.sessionId;
  }

  on<E extends keyof ClientEventMap>(event: E, listener: (payload: ClientEventMap[E]) => void): () => void {
    return this.emitter.on(event, listener);
  }
  off<E extends keyof ClientEventMap>(event: E, listener: (payload: ClientEventMap[E]) => void): void {
    this.emitter.off(event, listener);
  }

  /** Opens the socket and runs the handshake; calling it again while connected returns the same result. */
  connect(): Promise<InitializeResult> {
    if (this.state === 'open' && this.init) return Promise.resolve(this.init);
    if (this.opening) return this.opening;
    if (this.state === 'reconnecting') return Promise.reject(new BAPClientError('ECLOSED', 'Reconnecting already'));
    this.state = 'connecting';
    this.opening = this.open(this.requestedSession)
      .then(({ connection, init }) => {
        if (this.state !== 'connecting') {
          connection.close(1000, 'client closed');
          throw new BAPClientError('ECLOSED', 'close() was called while connecting');
        }
        this.adopt(connection, init);
        return init;
      })
      .catch((error: unknown) => {
        if (this.state === 'connecting') this.state = 'closed';
        throw error;
      })
      .finally(() => (this.opening = undefined));
    return this.opening;
  }

  async call<M extends MethodName>(method: M, params?: MethodParams<M>): Promise<MethodResult<M>> {
    return (await this.live().request(method, params ?? {})) as MethodResult<M>;
  }

  /**
   * Calls a method with `stream: true`: the payload (image, PDF, HTML, snapshot, download) comes
   * as stream/chunk notifications; read it with `for await` or `bytes()`, which checks the SHA-256.
   */
  async stream<M extends StreamableMethod>(method: M, params?: MethodParams<M>): Promise<BAPStream> {
    const start = (await this.call(method, { ...params, stream: true } as MethodParams<M>)) as unknown as StreamStartResult;
    const cancel = (streamId: string) =>
      this.call('stream/cancel', { streamId }).catch((error: unknown) => {
        // Cancelling a stream that has just ended is not a failure.
        if (!(error instanceof BAPError && error.code === ErrorCodes.StreamNotFound)) throw error;
      });
    return this.streams.claim(new BAPStream(start, cancel));
  }

  async notify(method: string, params?: Record<string, unknown>): Promise<void> {
    await this.live().notify(method, params);
  }

  /** Sends one JSON-RPC batch array; each entry becomes its result or its BAPError, in order. */
  async batch<const T extends readonly BatchEntry[]>(entries: T): Promise<BatchResults<T>> {
    const calls = entries.map(({ method, params }) => ({ method, params: params ?? {} }));
    return (await this.live().batch(calls)) as BatchResults<T>;
  }

  /**
   * Sends a JSON-RPC message or batch exactly as given (for tools such as `bap connect`) and
   * resolves with the server's reply message, or undefined if it held only notifications.
   */
  async sendRaw(message: unknown): Promise<unknown> {
    return this.live().sendRaw(message);
  }

  /** Sends `shutdown` (its failure is ignored), closes the socket, and never reconnects. */
  async close(): Promise<void> {
    if (this.state === 'idle' || this.state === 'closed') return;
    this.state = 'closed';
    this.stopReconnecting?.abort();
    const connection = this.connection;
    this.connection = undefined;
    this.streams.failAll(new BAPClientError('ECLOSED', 'The client closed before the stream ended'));
    if (connection?.isOpen) {
      const timeout = Math.min(this.requestTimeout, SHUTDOWN_TIMEOUT_MS);
      await connection.request('shutdown', {}, timeout).catch(() => undefined);
      connection.close(1000, 'client closed');
    }
    this.emitter.emit('close', { code: 1000, reason: 'client closed' });
  }

  private live(): RpcConnection {
    if (this.state === 'open' && this.connection) return this.connection;
    const why = this.state === 'reconnecting' ? 'the connection was lost and is being re-established' : 'call connect() first';
    throw new BAPClientError('ECLOSED', `Not connected: ${why}`);
  }

  private async open(sessionId: string | undefined): Promise<{ connection: RpcConnection; init: InitializeResult }> {
    const transport = await this.openTransport();
    const connection: RpcConnection = new RpcConnection(transport, () => ++this.lastId, this.requestTimeout, {
      notification: (method, params) => this.receiveNotification(method, params),
      error: (error) => this.emitter.emit('error', error),
      close: (info) => this.dropped(connection, info),
    });
    try {
      return { connection, init: await this.handshake(connection, sessionId) };
    } catch (error) {
      connection.close(1000, 'handshake failed');
      if (BAPClientError.is(error, 'ECLOSED')) {
        throw new BAPClientError('ECONNECT', `Cannot connect to ${this.url}: ${error.message}`, { cause: error });
      }
      throw error;
    }
  }

  private async handshake(connection: RpcConnection, sessionId: string | undefined): Promise<InitializeResult> {
    const params: MethodParams<'initialize'> = {
      protocolVersion: PROTOCOL_VERSION,
      clientInfo: this.clientInfo,
      capabilities: { events: this.events },
      ...(sessionId === undefined ? {} : { sessionId }),
    };
    const parsed = InitializeResultSchema.safeParse(await connection.request('initialize', params));
    if (!parsed.success) {
      throw new BAPClientError('EPROTOCOL', `Invalid initialize result: ${formatZodError(parsed.error).message}`);
    }
    const { protocolVersion } = parsed.data;
    const major = majorVersion(protocolVersion);
    if (major === undefined || major !== majorVersion(PROTOCOL_VERSION)) {
      throw new BAPClientError('EVERSION', `The server speaks protocol ${protocolVersion}; this client speaks ${PROTOCOL_VERSION}`);
    }
    await connection.notify('notifications/initialized');
    const subscribe: MethodParams<'events/subscribe'> = { events: this.events };
    await connection.request('events/subscribe', subscribe);
    return parsed.data;
  }

  private adopt(connection: RpcConnection, init: InitializeResult): void {
    connection.maxMessageBytes = init.capabilities.limits.maxMessageBytes;
    this.connection = connection;
    this.init = init;
    this.state = 'open';
  }

  private receiveNotification(method: string, params: unknown): void {
    this.emitter.emit('notification', { method, params });
    this.streams.route(method, params);
    if (!Object.hasOwn(notifications, method)) return;
    const name = method as NotificationName;
    const parsed = notifications[name].safeParse(params);
    if (parsed.success) this.emitter.emit(name, parsed.data);
    else this.emitter.emit('error', new BAPClientError('EPROTOCOL', `Invalid ${name}: ${formatZodError(parsed.error).message}`));
  }

  /** Answers approval/required (`approve`, `approve-once`, `approve-session` or `deny`). */
  respondToApproval(requestId: string, decision: ApprovalDecision, reason?: string): Promise<MethodResult<'approval/respond'>> {
    return this.call('approval/respond', { requestId, decision, ...(reason === undefined ? {} : { reason }) });
  }

  private async answerApproval(request: ApprovalRequired): Promise<void> {
    let answer: { decision: ApprovalDecision; reason?: string };
    try {
      const given = await this.approvalHandler!(request);
      answer = typeof given === 'string' ? { decision: given } : given;
    } catch (error) {
      answer = { decision: 'deny', reason: `the approval handler failed: ${error instanceof Error ? error.message : String(error)}` };
    }
    await this.respondToApproval(request.requestId, answer.decision, answer.reason).catch((error: unknown) => {
      this.emitter.emit('error', error instanceof Error ? error : new Error(String(error)));
    });
  }

  /** Pending calls have already been rejected with ECLOSED by the connection: they are never replayed. */
  private dropped(connection: RpcConnection, info: CloseInfo): void {
    // Connections still in their handshake, or replaced ones, are not the client's to mourn.
    if (connection !== this.connection) return;
    this.connection = undefined;
    this.streams.failAll(new BAPClientError('ECLOSED', 'The connection closed before the stream ended'));
    if (this.state !== 'open') return;
    if (!this.reconnectPolicy || FINAL_CLOSE_CODES.has(info.code)) {
      this.state = 'closed';
      this.emitter.emit('close', info);
      return;
    }
    void this.reconnect(this.reconnectPolicy, info);
  }

  private async reconnect(policy: ReconnectPolicy, dropped: CloseInfo): Promise<void> {
    this.state = 'reconnecting';
    const stop = (this.stopReconnecting = new AbortController());
    const previousSession = this.init?.sessionId;
    let lastError: unknown;
    for (let attempt = 1; attempt <= policy.maxAttempts; attempt++) {
      const delayMs = backoffDelay(policy, attempt);
      this.emitter.emit('reconnecting', { attempt, delayMs });
      await sleep(delayMs, stop.signal);
      if (stop.signal.aborted) return;
      try {
        const { connection, init } = await this.open(previousSession);
        if (stop.signal.aborted) {
          connection.close(1000, 'client closed');
          return;
        }
        this.adopt(connection, init);
        const resumed = init.resumed === true;
        this.emitter.emit('reconnected', { attempt, sessionId: init.sessionId, resumed });
        return;
      } catch (error) {
        lastError = error;
        if (!worthRetrying(error)) break;
      }
    }
    if (stop.signal.aborted) return;
    this.state = 'closed';
    const reason = lastError instanceof Error ? lastError.message : String(lastError);
    this.emitter.emit('error', new BAPClientError('ECONNECT', `Gave up reconnecting: ${reason}`, { cause: lastError }));
    this.emitter.emit('close', dropped);
  }
}
