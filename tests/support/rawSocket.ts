import { PROTOCOL_VERSION, type RequestId } from '@browseragentprotocol/protocol';
import WebSocket from 'ws';

/** Whatever the server sent in one text frame, parsed (or the raw text when it is not JSON). */
export type Incoming = unknown;

interface Waiter {
  match: (message: Incoming) => boolean;
  resolve: (message: Incoming) => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
}

export interface CloseInfo {
  code: number;
  reason: string;
}

/**
 * A WebSocket that speaks no protocol: it sends exactly the frames a test gives it and keeps
 * every reply in arrival order, so protocol tests see the wire as it is (ids, batches, silence).
 */
export class RawSocket {
  /** Messages received and not yet taken by `next` / `waitFor`. */
  readonly inbox: Incoming[] = [];
  readonly closed: Promise<CloseInfo>;
  private readonly waiters: Waiter[] = [];
  private closeInfo: CloseInfo | undefined;
  private nextId = 1;

  private constructor(private readonly ws: WebSocket) {
    ws.on('message', (data, isBinary) => {
      const text = isBinary ? Buffer.from(data as Buffer).toString('utf8') : data.toString();
      let message: Incoming;
      try {
        message = JSON.parse(text);
      } catch {
        message = text;
      }
      const index = this.waiters.findIndex((w) => w.match(message));
      if (index >= 0) {
        const [waiter] = this.waiters.splice(index, 1);
        clearTimeout(waiter!.timer);
        waiter!.resolve(message);
      } else {
        this.inbox.push(message);
      }
    });
    this.closed = new Promise((resolve) => {
      ws.on('close', (code, reason) => {
        this.closeInfo = { code, reason: reason.toString() };
        for (const waiter of this.waiters.splice(0)) {
          clearTimeout(waiter.timer);
          waiter.reject(new Error(`socket closed (${code} ${reason.toString()}) while waiting for a message`));
        }
        resolve(this.closeInfo);
      });
    });
  }

  static async open(url: string, options: WebSocket.ClientOptions = {}): Promise<RawSocket> {
    const ws = new WebSocket(url, { maxPayload: 256 * 1024 * 1024, ...options });
    const socket = new RawSocket(ws);
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    ws.on('error', () => {
      // Reported through `closed`; an unhandled 'error' event would crash the test worker.
    });
    return socket;
  }

  get isOpen(): boolean {
    return this.ws.readyState === WebSocket.OPEN;
  }

  get closeCode(): number | undefined {
    return this.closeInfo?.code;
  }

  /** Sends one frame as is: a text frame unless `binary`. */
  send(data: string | Buffer, options: { binary?: boolean } = {}): Promise<void> {
    return new Promise((resolve, reject) => {
      this.ws.send(data, { binary: options.binary ?? false }, (error) => (error ? reject(error) : resolve()));
    });
  }

  sendJson(value: unknown): Promise<void> {
    return this.send(JSON.stringify(value));
  }

  /** A fresh numeric id, unique on this socket. */
  id(): number {
    return this.nextId++;
  }

  /** The oldest message not yet taken, waiting up to `timeoutMs` for one. */
  next(timeoutMs = 5_000): Promise<Incoming> {
    return this.waitFor(() => true, timeoutMs, 'any message');
  }

  /** The oldest message matching `match`, waiting up to `timeoutMs` for one. Others stay in the inbox. */
  waitFor(match: (message: Incoming) => boolean, timeoutMs = 5_000, what = 'a matching message'): Promise<Incoming> {
    const index = this.inbox.findIndex(match);
    if (index >= 0) return Promise.resolve(this.inbox.splice(index, 1)[0]);
    if (this.closeInfo) {
      return Promise.reject(new Error(`socket closed (${this.closeInfo.code}) before ${what} arrived`));
    }
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        match,
        resolve,
        reject,
        timer: setTimeout(() => {
          this.waiters.splice(this.waiters.indexOf(waiter), 1);
          reject(new Error(`no ${what} within ${timeoutMs} ms (inbox: ${preview(this.inbox)})`));
        }, timeoutMs),
      };
      this.waiters.push(waiter);
    });
  }

  /** The reply whose `id` is `id`. */
  reply(id: RequestId | null, timeoutMs = 5_000): Promise<Incoming> {
    return this.waitFor(
      (m) => isObject(m) && 'id' in m && m.id === id && !('method' in m),
      timeoutMs,
      `reply with id ${JSON.stringify(id)}`,
    );
  }

  /** Sends a well-formed request and waits for its reply. */
  async request(method: string, params?: unknown, timeoutMs = 10_000): Promise<Record<string, unknown>> {
    const id = this.id();
    await this.sendJson(params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params });
    return (await this.reply(id, timeoutMs)) as Record<string, unknown>;
  }

  notify(method: string, params?: unknown): Promise<void> {
    return this.sendJson(params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params });
  }

  /** `initialize` + `notifications/initialized`; returns the initialize reply. */
  async handshake(clientName = 'raw-socket-test'): Promise<Record<string, unknown>> {
    const reply = await this.request('initialize', {
      protocolVersion: PROTOCOL_VERSION,
      clientInfo: { name: clientName, version: '0.0.0' },
    });
    if (!('result' in reply)) throw new Error(`initialize failed: ${JSON.stringify(reply)}`);
    await this.notify('notifications/initialized');
    return reply;
  }

  /** Resolves if nothing arrives for `ms`; rejects with the message otherwise. */
  async expectSilence(ms: number): Promise<void> {
    if (this.inbox.length > 0) throw new Error(`expected silence, inbox holds ${preview(this.inbox)}`);
    const message = await this.next(ms).then(
      (m) => m,
      () => undefined,
    );
    if (message !== undefined) throw new Error(`expected silence, got ${preview([message])}`);
  }

  async close(): Promise<void> {
    if (this.ws.readyState === WebSocket.CLOSED) return;
    this.ws.close();
    await this.closed;
  }
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function preview(messages: Incoming[]): string {
  const text = JSON.stringify(messages);
  return text.length > 500 ? `${text.slice(0, 500)}…` : text;
}
