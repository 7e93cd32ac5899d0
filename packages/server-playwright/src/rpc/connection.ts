import {
  BAPError,
  ErrorCodes,
  JSONRPC_VERSION,
  clientNotifications,
  formatZodError,
  isMethodName,
  methods,
  type ConsoleEvent,
  type EventType,
  type JSONRPCResponse,
  type MethodName,
  type PageEvent,
  type RequestId,
} from '@browseragentprotocol/protocol';
import type { BrowserHost } from '../engine/browserHost.js';
import { toBAPError } from '../engine/errors.js';
import { BrowserSession } from '../engine/session.js';
import type { ResolvedServerOptions } from '../options.js';
import { handlers, type HandlerContext } from './handlers.js';
import { RequestLanes } from './lanes.js';

type Outgoing = (message: string) => void;

/**
 * One client connection, whatever carries it: parses JSON-RPC text, enforces the handshake,
 * validates params, orders requests and turns every failure into a precise error reply.
 */
export class RpcConnection {
  private initialized = false;
  private readonly subscriptions = new Set<EventType>();
  private readonly lanes = new RequestLanes();
  private readonly session: BrowserSession;
  private readonly context: HandlerContext;
  private closed = false;

  constructor(
    host: BrowserHost,
    private readonly options: ResolvedServerOptions,
    private readonly send: Outgoing,
  ) {
    this.session = new BrowserSession(host, {
      timeouts: { action: options.actionTimeout, navigation: options.navigationTimeout },
      maxPages: options.maxPages,
      events: {
        page: (event: PageEvent) => this.emit('page', 'events/page', event),
        console: (event: ConsoleEvent) => this.emit('console', 'events/console', event),
      },
    });
    this.context = {
      session: this.session,
      options,
      subscribe: (events) => {
        this.subscriptions.clear();
        for (const e of events) this.subscriptions.add(e);
      },
      endSession: () => {
        this.initialized = false;
        this.subscriptions.clear();
      },
    };
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
    if (!Array.isArray(message)) {
      const response = await this.dispatch(message);
      if (response) this.reply(response);
      return;
    }
    if (message.length === 0) return this.reply(failure(null, invalid('Invalid Request: empty batch')));
    if (message.length > this.options.maxBatchSize) {
      return this.reply(failure(null, invalid(`Invalid Request: batch of ${message.length} exceeds the limit of ${this.options.maxBatchSize}`)));
    }
    const responses = (await Promise.all(message.map((m) => this.dispatch(m)))).filter((r) => r !== null);
    if (responses.length) this.reply(responses);
  }

  /** Sends a protocol error not tied to any request (e.g. a binary frame). */
  reject(error: BAPError): void {
    this.reply(failure(null, error));
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.session.dispose();
  }

  private async dispatch(message: unknown): Promise<JSONRPCResponse | null> {
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
      const result = await this.call(message.method, (message.params ?? {}) as Record<string, unknown>);
      return isNotification ? null : { jsonrpc: JSONRPC_VERSION, id: replyId!, result };
    } catch (error) {
      return isNotification ? null : failure(replyId, toBAPError(error));
    }
  }

  private async call(method: string, rawParams: Record<string, unknown>): Promise<unknown> {
    if (Object.hasOwn(clientNotifications, method)) return {};
    if (!isMethodName(method)) {
      throw new BAPError(ErrorCodes.MethodNotFound, `Method not found: ${method}`, {
        recoveryHint: 'The initialize result lists every method under capabilities.methods.',
      });
    }
    if (method === 'initialize' && this.initialized) {
      throw new BAPError(ErrorCodes.AlreadyInitialized, 'Already initialized: initialize may be called once per connection.');
    }
    if (method !== 'initialize' && !this.initialized) {
      throw new BAPError(ErrorCodes.NotInitialized, `Not initialized: call initialize before ${method}.`, {
        recoveryHint: 'Send initialize {protocolVersion, clientInfo} first.',
      });
    }
    const spec = methods[method];
    const parsed = spec.params.safeParse(rawParams);
    if (!parsed.success) {
      const { message, issues } = formatZodError(parsed.error, 'params');
      throw new BAPError(ErrorCodes.InvalidParams, `Invalid params: ${message}`, { details: { issues } });
    }
    if (method === 'initialize') this.initialized = true;
    const params = parsed.data as Record<string, unknown>;
    const pageKey = () => (typeof params.pageId === 'string' ? params.pageId : (this.session.activePageId ?? '(new)'));
    const run = handlers[method] as (ctx: HandlerContext, p: unknown) => Promise<unknown>;
    const result = await this.lanes.run(spec.lane, pageKey, () => run(this.context, params));
    if (this.options.validateResults) this.checkResult(method, result);
    return result;
  }

  private checkResult(method: MethodName, result: unknown): void {
    const checked = methods[method].result.safeParse(result);
    if (!checked.success) {
      const { message } = formatZodError(checked.error, 'result');
      throw new BAPError(ErrorCodes.InternalError, `Result of ${method} does not match the protocol: ${message}`);
    }
  }

  private emit(type: EventType, method: string, params: object): void {
    if (this.closed || !this.initialized || !this.subscriptions.has(type)) return;
    this.send(JSON.stringify({ jsonrpc: JSONRPC_VERSION, method, params }));
  }

  private reply(response: JSONRPCResponse | JSONRPCResponse[]): void {
    if (!this.closed) this.send(JSON.stringify(response));
  }
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
