import {
  BAPError,
  ErrorCodes,
  JSONRPC_VERSION,
  clientNotifications,
  formatZodError,
  isMethodName,
  methods,
  type InitializeParams,
  type JSONRPCResponse,
  type MethodName,
  type RequestId,
} from '@browseragentprotocol/protocol';
import { toBAPError } from '../engine/errors.js';
import type { ResolvedServerOptions } from '../options.js';
import { handlers, type HandlerContext } from './handlers.js';
import { RequestLanes } from './lanes.js';
import { StreamManager } from './streams.js';
import type { SessionOwner, SessionRegistry, SessionState } from './sessions.js';
import type { ServerSecurity } from '../security/serverSecurity.js';
import { CallGate, type Caller, type CallRecord } from './gate.js';

export interface ConnectionIO {
  send(text: string): void;
  /** Bytes queued on the transport, not yet sent (streams pause above a high-water mark). */
  buffered(): number;
  /** Close the underlying transport (e.g. 4001 when another connection resumed the session). */
  close(code: number, reason: string): void;
}

/**
 * One client connection, whatever carries it: parses JSON-RPC text, enforces the handshake,
 * validates params, orders requests and turns every failure into a precise error reply.
 */
export class RpcConnection {
  private readonly lanes = new RequestLanes();
  /** The session, from initialize until shutdown, takeover or close. */
  private state: SessionState | null = null;
  private context: HandlerContext | null = null;
  private closed = false;
  private readonly owner: SessionOwner;
  private readonly streams: StreamManager;
  private readonly gate: CallGate;

  constructor(
    private readonly registry: SessionRegistry,
    private readonly options: ResolvedServerOptions,
    private readonly io: ConnectionIO,
    private readonly security: ServerSecurity,
    private readonly caller: Caller,
  ) {
    this.gate = new CallGate(security, caller);
    this.owner = {
      send: (text) => {
        if (!this.closed) io.send(security.redactor.scrub(text));
      },
      replaced: () => {
        this.state = null;
        this.context = null;
        io.close(4001, 'session replaced');
      },
    };
    const sink = { send: (text: string) => this.reply(text), buffered: () => io.buffered() };
    this.streams = new StreamManager(sink, { maxStreams: options.maxStreams, timeoutMs: options.streamTimeoutMs });
  }

  /** Handles one incoming text frame; replies (if any) go out through `send`. */
  async receive(text: string): Promise<void> {
    const bytes = Buffer.byteLength(text);
    if (bytes > this.options.maxMessageBytes) {
      return this.reply(failure(null, new BAPError(ErrorCodes.InvalidRequest, `Message of ${bytes} bytes exceeds the limit of ${this.options.maxMessageBytes} bytes.`)));
    }
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch (error) {
      return this.reply(failure(null, new BAPError(ErrorCodes.ParseError, `Parse error: ${(error as Error).message}`)));
    }
    const after: (() => void)[] = [];
    if (!Array.isArray(message)) {
      const response = await this.dispatch(message, after);
      if (response) this.reply(response);
      for (const run of after) run();
      return;
    }
    if (message.length === 0) return this.reply(failure(null, invalid('Invalid Request: empty batch')));
    if (message.length > this.options.maxBatchSize) {
      return this.reply(failure(null, invalid(`Invalid Request: batch of ${message.length} exceeds the limit of ${this.options.maxBatchSize}`)));
    }
    const responses = (await Promise.all(message.map((m) => this.dispatch(m, after)))).filter((r) => r !== null);
    if (responses.length) this.reply(responses);
    for (const run of after) run();
  }

  /** Sends a protocol error not tied to any request (e.g. a binary frame). */
  reject(error: BAPError): void {
    this.reply(failure(null, error));
  }

  async close(): Promise<void> {
    this.closed = true;
    this.streams.closeAll();
    const state = this.state;
    this.state = null;
    if (state) await this.registry.release(state, this.owner);
  }


  /** Opens (or resumes) the session named by initialize and builds the handlers' view of it. */
  private open(params: InitializeParams): HandlerContext {
    const { state, resumed } = this.registry.open(params.sessionId, this.owner, this.caller.principal.name, this.security.guards(this.caller.principal));
    this.state = state;
    const end = async (park: boolean) => {
      this.streams.closeAll();
      if (!park) this.security.approvals.forget(state.session);
      this.state = null;
      this.context = null;
      if (park) await this.registry.release(state, this.owner);
      else await this.registry.end(state);
    };
    const context: HandlerContext = {
      session: state.session,
      options: this.options,
      sessionId: state.id,
      resumed,
      subscribe: (events, filters) => state.subscriptions.set(events, filters),
      endSession: end,
      flushParked: () => setImmediate(() => state.flush()),
      streams: this.streams,
      redactor: this.security.redactor,
      run: (method, params, step) => this.audited(method, params, step, context, (record) => this.execute(method, params as Record<string, unknown>, context, record)),
      respondToApproval: (p) => this.security.approvals.respond(p, this.caller.principal.name),
    };
    return context;
  }

  /** `after` collects work to do once the reply is sent (a stream's chunks follow its announcement). */
  private async dispatch(message: unknown, after: (() => void)[]): Promise<JSONRPCResponse | null> {
    if (!isObject(message)) return failure(null, invalid('Invalid Request: expected a JSON-RPC object'));
    const hasId = Object.hasOwn(message, 'id');
    const id = message.id;
    const validId = typeof id === 'string' || (typeof id === 'number' && Number.isInteger(id));
    if (hasId && !validId && id !== null) return failure(null, invalid('Invalid Request: id must be a string or an integer'));
    const replyId = validId ? (id as RequestId) : null;
    if (message.jsonrpc !== JSONRPC_VERSION) return failure(replyId, invalid('Invalid Request: jsonrpc must be "2.0"'));
    if (typeof message.method !== 'string' || !message.method) {
      return failure(replyId, invalid('Invalid Request: method must be a non-empty string'));
    }
    const extra = Object.keys(message).filter((k) => !['jsonrpc', 'id', 'method', 'params'].includes(k));
    if (extra.length) return failure(replyId, invalid(`Invalid Request: unexpected member "${extra[0]}"`));
    if (message.params !== undefined && (typeof message.params !== 'object' || message.params === null)) {
      return failure(replyId, invalid('Invalid Request: params must be a structured value'));
    }
    if (Array.isArray(message.params)) {
      return failure(replyId, new BAPError(ErrorCodes.InvalidParams, 'Invalid params: BAP takes params by name (an object), not by position'));
    }
    const isNotification = !hasId;
    try {
      const result = await this.call(message.method, (message.params ?? {}) as Record<string, unknown>, after);
      return isNotification ? null : { jsonrpc: JSONRPC_VERSION, id: replyId!, result };
    } catch (error) {
      return isNotification ? null : failure(replyId, toBAPError(error));
    }
  }

  private async call(method: string, rawParams: Record<string, unknown>, after: (() => void)[]): Promise<unknown> {
    if (Object.hasOwn(clientNotifications, method)) return {};
    this.gate.meter();
    if (!isMethodName(method)) {
      throw new BAPError(ErrorCodes.MethodNotFound, `Method not found: ${method}`, {
        recoveryHint: 'The initialize result lists every method under capabilities.methods.',
      });
    }
    return this.audited(method, rawParams, undefined, this.context, (record) => this.admitAndRun(method, rawParams, after, record));
  }

  private async admitAndRun(method: MethodName, rawParams: Record<string, unknown>, after: (() => void)[], record: CallRecord): Promise<unknown> {
    if (method === 'initialize' && this.context) {
      throw new BAPError(ErrorCodes.AlreadyInitialized, 'Already initialized: initialize may be called once per connection.');
    }
    if (method !== 'initialize' && !this.context) {
      throw new BAPError(ErrorCodes.NotInitialized, `Not initialized: call initialize before ${method}.`, {
        recoveryHint: 'Send initialize {protocolVersion, clientInfo} first.',
      });
    }
    this.gate.authorize(method);
    const spec = methods[method];
    const parsed = spec.params.safeParse(rawParams);
    if (!parsed.success) {
      const { message, issues } = formatZodError(parsed.error, 'params');
      throw new BAPError(ErrorCodes.InvalidParams, `Invalid params: ${message}`, { details: { issues } });
    }
    const params = parsed.data as Record<string, unknown>;
    // A sequence the token cannot finish is refused before its first step runs.
    if (method === 'agent/act') for (const step of params.steps as { action: MethodName }[]) this.gate.authorize(step.action);
    const context = method === 'initialize' ? (this.context = this.open(params as InitializeParams)) : this.context!;
    const pageKey = () => (typeof params.pageId === 'string' ? params.pageId : (context.session.activePageId ?? '(new)'));
    const streamed = 'stream' in spec && params.stream === true ? spec.stream : undefined;
    const place = streamed ? this.streams.reserve(streamed, params.chunkSize as number | undefined) : undefined;
    let result: unknown;
    try {
      result = await this.lanes.run(spec.lane, pageKey, () => this.execute(method, params, context, record));
    } catch (error) {
      place?.release();
      throw error;
    }
    if (!place) return result;
    const { start, send } = place.open(this.security.redactor.scrubValue(result) as Record<string, unknown>);
    after.push(send);
    return start;
  }

  /** Runs one validated call: the gate (approval, secrets), the handler, then the result check. agent/act steps come through here too. */
  private async execute(method: MethodName, params: Record<string, unknown>, context: HandlerContext, record: CallRecord): Promise<unknown> {
    const admitted = await this.gate.admit(method, params, context.session, (name, p) => this.state?.notify(name, p), record);
    const run = handlers[method] as (ctx: HandlerContext, p: unknown) => Promise<unknown>;
    const result = await run(context, admitted);
    if (this.options.validateResults) this.checkResult(method, result);
    return result;
  }

  /** Runs `fn` and writes its audit line (a request, or one agent/act step), whatever the outcome. */
  private async audited<T>(method: string, params: unknown, step: number | undefined, context: HandlerContext | null, fn: (record: CallRecord) => Promise<T>): Promise<T> {
    const record: CallRecord = { decision: 'allowed' };
    const started = Date.now();
    let failure: BAPError | undefined;
    try {
      return await fn(record);
    } catch (error) {
      failure = toBAPError(error);
      if (record.decision === 'allowed') record.decision = refusalKind(failure) ?? 'allowed';
      throw error;
    } finally {
      const { redactor, audit, log } = this.security;
      // Built only when someone reads it: the audit log, or a debug-level log.
      if (audit || log.isLevelEnabled('debug')) {
        const entry = {
          time: new Date(started).toISOString(),
          client: this.caller.remote,
          token: this.caller.principal.name,
          session: context?.sessionId ?? null,
          method,
          ...(step !== undefined ? { step } : {}),
          params: redactor.scrubValue(abbreviated(params)),
          ...record,
          outcome: failure ? ('error' as const) : ('ok' as const),
          ...(failure ? { error: { code: failure.code, message: redactor.scrub(failure.message) } } : {}),
          durationMs: Date.now() - started,
        };
        audit?.record(entry);
        log.debug({ audit: entry }, `${method} ${entry.outcome}`);
      }
    }
  }

  private checkResult(method: MethodName, result: unknown): void {
    const checked = methods[method].result.safeParse(result);
    if (!checked.success) {
      const { message } = formatZodError(checked.error, 'result');
      throw new BAPError(ErrorCodes.InternalError, `Result of ${method} does not match the protocol: ${message}`);
    }
  }

  /** Objects are scrubbed of secrets on their way out; strings are stream chunks, scrubbed at their source. */
  private reply(response: JSONRPCResponse | JSONRPCResponse[] | string): void {
    if (!this.closed) this.io.send(typeof response === 'string' ? response : JSON.stringify(this.security.redactor.scrubValue(response)));
  }
}

/** Params for the audit log: long strings (upload contents) cut to their length, nesting cut at 16 levels. */
function abbreviated(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return value.length > 1_024 ? `[${value.length} characters]` : value;
  if ((Array.isArray(value) || isObject(value)) && depth >= 16) return '[nested too deep]';
  if (Array.isArray(value)) return value.map((v) => abbreviated(v, depth + 1));
  if (isObject(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, abbreviated(v, depth + 1)]));
  return value;
}

/** How the audit log names a refusal that came before the handler ran. */
function refusalKind(error: BAPError): CallRecord['decision'] | undefined {
  if (error.code === ErrorCodes.Unauthorized || error.code === ErrorCodes.DomainNotAllowed) return 'refused';
  const resource = (error.data?.details as { resource?: string } | undefined)?.resource;
  if (resource === 'requestsPerSecond' || resource === 'screenshotsPerMinute') return 'limited';
  return undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function invalid(message: string): BAPError {
  return new BAPError(ErrorCodes.InvalidRequest, message);
}

function failure(id: RequestId | null, error: BAPError): JSONRPCResponse {
  return { jsonrpc: JSONRPC_VERSION, id, error: error.toWire() };
}
