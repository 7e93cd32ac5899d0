import {
  BAPError,
  ErrorCodes,
  ErrorObjectSchema,
  JSONRPC_VERSION,
  JSONRPCErrorResponseSchema,
  JSONRPCNotificationSchema,
  JSONRPCSuccessSchema,
  type RequestId,
} from '@browseragentprotocol/protocol';
import { BAPClientError } from './errors.js';
import type { CloseInfo, Transport } from './transport.js';

/** Servers of the published 0.x line send error `data` without `retryable`; BAPError.fromWire fills it in. */
const ErrorReplySchema = JSONRPCErrorResponseSchema.extend({ error: ErrorObjectSchema.partial({ data: true }) });
/** Servers of the published 0.x line omit `result` for void methods. */
const SuccessReplySchema = JSONRPCSuccessSchema.partial({ result: true });

type Reply = { result: unknown } | { error: ReturnType<typeof ErrorReplySchema.parse>['error'] };

export interface ConnectionHandlers {
  notification(method: string, params: unknown): void;
  /** Problems tied to no request: malformed messages, errors the server could not attribute. */
  error(error: Error): void;
  close(info: CloseInfo): void;
}

export interface BatchCall {
  method: string;
  params?: unknown;
}

interface Pending {
  timer: ReturnType<typeof setTimeout>;
  reject(error: Error): void;
}

/** Requests sent together (one, or one batch) and settled together. */
interface Exchange extends Pending {
  replies: Reply[];
  remaining: number;
  resolve(replies: Reply[]): void;
}

/** A message sent verbatim; settled with the server's reply message exactly as it arrived. */
interface RawExchange extends Pending {
  ids: Set<RequestId>;
  resolve(reply: unknown): void;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const isId = (value: unknown): value is RequestId => typeof value === 'string' || typeof value === 'number';

const isNotification = (value: unknown): boolean =>
  isObject(value) && value.jsonrpc === JSONRPC_VERSION && typeof value.method === 'string' && !('id' in value);

function remove<T>(list: T[], item: T): void {
  const index = list.indexOf(item);
  if (index >= 0) list.splice(index, 1);
}

/**
 * The JSON-RPC engine over one transport: request ids, per-request timeouts, batches, routing of
 * responses and notifications. It lives and dies with its transport; reconnecting makes a new one.
 */
export class RpcConnection {
  private readonly waiting = new Map<RequestId, { exchange: Exchange; index: number }>();
  private readonly raw: RawExchange[] = [];
  private open = true;

  constructor(
    private readonly transport: Transport,
    private readonly nextId: () => number,
    private readonly timeoutMs: number,
    private readonly handlers: ConnectionHandlers,
  ) {
    transport.onmessage = (data) => this.receive(data);
    transport.onerror = (error) => handlers.error(error);
    transport.onclose = (info) => {
      this.open = false;
      const why = `code ${info.code}${info.reason ? `, ${info.reason}` : ''}`;
      this.failAll(new BAPClientError('ECLOSED', `Connection closed (${why}) before the response came`));
      handlers.close(info);
    };
  }

  get isOpen(): boolean {
    return this.open;
  }

  async request(method: string, params: unknown, timeoutMs = this.timeoutMs): Promise<unknown> {
    const id = this.allocateId();
    const [reply] = await this.exchange({ jsonrpc: JSONRPC_VERSION, id, method, params }, [id], timeoutMs, method);
    if (reply && 'error' in reply) throw BAPError.fromWire(reply.error);
    return reply?.result;
  }

  /** One JSON-RPC batch array; each entry settles to its result or its BAPError, in call order. */
  async batch(calls: readonly BatchCall[]): Promise<unknown[]> {
    if (calls.length === 0) return [];
    const messages = calls.map(({ method, params }) => ({ jsonrpc: JSONRPC_VERSION, id: this.allocateId(), method, params }));
    const ids = messages.map((message) => message.id);
    const replies = await this.exchange(messages, ids, this.timeoutMs, `Batch of ${calls.length}`);
    return replies.map((reply) => ('error' in reply ? BAPError.fromWire(reply.error) : reply.result));
  }

  notify(method: string, params?: unknown): Promise<void> {
    return this.trySend(params === undefined ? { jsonrpc: JSONRPC_VERSION, method } : { jsonrpc: JSONRPC_VERSION, method, params });
  }

  /**
   * Sends `message` exactly as given and resolves with the server's reply message (an object, or
   * an array for a batch) as it arrived; at once with undefined if it holds only notifications,
   * which get no reply. Anything else, even a malformed request, is owed a reply by JSON-RPC.
   */
  sendRaw(message: unknown): Promise<unknown> {
    const items = Array.isArray(message) ? message : [message];
    const ids = items.flatMap((item) => (isObject(item) && typeof item.method === 'string' && isId(item.id) ? [item.id] : []));
    const taken = ids.find((id, i) => this.inUse(id) || ids.indexOf(id) !== i);
    if (taken !== undefined) {
      return Promise.reject(new BAPClientError('EPROTOCOL', `Request id ${JSON.stringify(taken)} is already in use`));
    }
    // An empty batch is itself invalid and answered with an error.
    if (items.length > 0 && items.every(isNotification)) return this.trySend(message).then(() => undefined);
    return new Promise((resolve, reject) => {
      const entry: RawExchange = {
        ids: new Set(ids),
        resolve,
        reject,
        timer: setTimeout(() => {
          remove(this.raw, entry);
          reject(new BAPClientError('ETIMEOUT', `No reply to the message within ${this.timeoutMs} ms`));
        }, this.timeoutMs),
      };
      this.raw.push(entry);
      this.trySend(message).catch((error: Error) => {
        clearTimeout(entry.timer);
        remove(this.raw, entry);
        reject(error);
      });
    });
  }

  close(code?: number, reason?: string): void {
    if (this.open) this.transport.close(code, reason);
  }

  private exchange(payload: unknown, ids: RequestId[], timeoutMs: number, label: string): Promise<Reply[]> {
    return new Promise((resolve, reject) => {
      const forget = () => ids.forEach((id) => this.waiting.delete(id));
      const exchange: Exchange = {
        replies: [],
        remaining: ids.length,
        resolve,
        reject,
        timer: setTimeout(() => {
          // A late response will find no waiter and be dropped; the server may still carry the request out.
          forget();
          reject(new BAPClientError('ETIMEOUT', `${label} timed out after ${timeoutMs} ms`));
        }, timeoutMs),
      };
      ids.forEach((id, index) => this.waiting.set(id, { exchange, index }));
      this.trySend(payload).catch((error: Error) => {
        clearTimeout(exchange.timer);
        forget();
        reject(error);
      });
    });
  }

  /** The server's message limit, from its initialize result: larger requests are refused here, not sent. */
  maxMessageBytes = Infinity;

  private async trySend(payload: unknown): Promise<void> {
    if (!this.open) throw new BAPClientError('ECLOSED', 'Not connected');
    const text = JSON.stringify(payload);
    // UTF-8 takes at most 3 bytes per UTF-16 unit: only long texts need counting.
    const bytes = text.length * 3 > this.maxMessageBytes ? new TextEncoder().encode(text).length : 0;
    if (bytes > this.maxMessageBytes) {
      throw new BAPClientError('ETOOLARGE', `The request is ${bytes} bytes, over the server's limit of ${this.maxMessageBytes} bytes; it was not sent.`);
    }
    this.transport.send(text);
  }

  /** Ids come from the client's counter but skip any a raw message chose, so replies cannot be confused. */
  private allocateId(): number {
    let id = this.nextId();
    while (this.inUse(id)) id = this.nextId();
    return id;
  }

  private inUse(id: RequestId): boolean {
    return this.waiting.has(id) || this.raw.some((entry) => entry.ids.has(id));
  }

  private receive(text: string): void {
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      this.handlers.error(new BAPClientError('EPROTOCOL', `Received a message that is not JSON: ${text.slice(0, 200)}`));
      return;
    }
    const items = Array.isArray(message) ? message : [message];
    const raw = this.rawExchangeFor(items);
    if (raw) {
      clearTimeout(raw.timer);
      remove(this.raw, raw);
      raw.resolve(message);
      return;
    }
    for (const item of items) this.receiveOne(item);
  }

  /**
   * The raw message a reply answers: the one whose request ids it carries or, for an error the
   * server could not attribute (id null), the oldest one. This client's own requests are always
   * well-formed, so only a raw message can have caused such an error.
   */
  private rawExchangeFor(items: unknown[]): RawExchange | undefined {
    if (this.raw.length === 0) return undefined;
    const ids = items.flatMap((item) => (isObject(item) && !('method' in item) ? [item.id] : []));
    const answered = this.raw.find((entry) => ids.some((id) => isId(id) && entry.ids.has(id)));
    return answered ?? (ids.includes(null) ? this.raw[0] : undefined);
  }

  private receiveOne(item: unknown): void {
    if (isObject(item) && typeof item.method === 'string') {
      this.receiveFromServer(item, item.method);
      return;
    }
    if (isObject(item) && 'error' in item) {
      const failure = ErrorReplySchema.safeParse(item);
      if (!failure.success) this.protocolError('a malformed error response', item);
      else if (failure.data.id === null) this.handlers.error(BAPError.fromWire(failure.data.error));
      else this.deliver(failure.data.id, { error: failure.data.error });
      return;
    }
    const success = SuccessReplySchema.safeParse(item);
    if (success.success) this.deliver(success.data.id, { result: success.data.result ?? {} });
    else this.protocolError('a message that is not JSON-RPC', item);
  }

  private receiveFromServer(item: Record<string, unknown>, method: string): void {
    if ('id' in item) {
      // BAP servers send no requests, but JSON-RPC wants every request answered.
      const error = new BAPError(ErrorCodes.MethodNotFound, `The client does not handle ${method}`);
      this.trySend({ jsonrpc: JSONRPC_VERSION, id: item.id, error: error.toWire() }).catch(() => undefined);
      return;
    }
    const notification = JSONRPCNotificationSchema.safeParse(item);
    if (notification.success) this.handlers.notification(method, notification.data.params);
    else this.protocolError(`a malformed ${method} notification`, item);
  }

  private protocolError(what: string, item: unknown): void {
    this.handlers.error(new BAPClientError('EPROTOCOL', `Received ${what}: ${JSON.stringify(item).slice(0, 200)}`));
  }

  private deliver(id: RequestId, reply: Reply): void {
    const waiter = this.waiting.get(id);
    // No waiter: the request timed out already (and said so), so its late response is dropped.
    if (!waiter) return;
    this.waiting.delete(id);
    const { exchange, index } = waiter;
    exchange.replies[index] = reply;
    if (--exchange.remaining === 0) {
      clearTimeout(exchange.timer);
      exchange.resolve(exchange.replies);
    }
  }

  private failAll(error: BAPClientError): void {
    const pending: Pending[] = [...new Set([...this.waiting.values()].map((w) => w.exchange)), ...this.raw.splice(0)];
    this.waiting.clear();
    for (const entry of pending) {
      clearTimeout(entry.timer);
      entry.reject(error);
    }
  }
}
