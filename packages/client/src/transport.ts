import { BAPClientError } from './errors.js';

export interface CloseInfo {
  /** WebSocket close code: 1000 normal, 1006 dropped, 1008 auth/policy failure, 4001 session replaced. */
  code: number;
  reason: string;
}

/** One open connection carrying JSON-RPC text frames. */
export interface Transport {
  send(data: string): void;
  close(code?: number, reason?: string): void;
  onmessage: ((data: string) => void) | undefined;
  /** Called once, whoever closed the connection. */
  onclose: ((info: CloseInfo) => void) | undefined;
  /** Something arrived that the connection survives but cannot deliver. */
  onerror: ((error: BAPClientError) => void) | undefined;
}

/**
 * The part of the WHATWG WebSocket that this transport uses; both the browser's and the `ws`
 * package's classes provide it, with slightly different TypeScript declarations.
 */
interface SocketLike {
  send(data: string): void;
  close(code?: number, reason?: string): void;
  addEventListener(type: 'open', listener: () => void): void;
  addEventListener(type: 'message', listener: (event: { data: unknown }) => void): void;
  addEventListener(type: 'close', listener: (event: { code: number; reason: string }) => void): void;
  addEventListener(type: 'error', listener: (event: { message?: unknown }) => void): void;
}
type SocketConstructor = new (url: string, options?: object) => SocketLike;

async function socketConstructor(): Promise<SocketConstructor> {
  if (typeof globalThis.WebSocket === 'function') return globalThis.WebSocket as unknown as SocketConstructor;
  // Node 20 has no global WebSocket; browsers never get here (package.json maps `ws` to false for bundlers).
  const { WebSocket } = await import('ws');
  return WebSocket as unknown as SocketConstructor;
}

/** Opens a WebSocket; rejects with ECONNECT if it fails or is not open within `timeoutMs`. */
export async function openWebSocket(url: string, timeoutMs: number, tls?: { ca?: string | Buffer; rejectUnauthorized?: boolean }): Promise<Transport> {
  const Socket = await socketConstructor();
  return new Promise((resolve, reject) => {
    let socket: SocketLike;
    try {
      // Browsers take no options: their WebSocket trusts what the browser trusts.
      socket = tls && typeof globalThis.WebSocket !== 'function' ? new Socket(url, tls) : new Socket(url);
    } catch (error) {
      reject(new BAPClientError('ECONNECT', `Cannot connect to ${url}: ${String(error)}`, { cause: error }));
      return;
    }
    let opened = false;
    let closed = false;
    // The error event has no details in browsers; `ws` puts the cause (ECONNREFUSED, HTTP 401…) in `message`.
    let lastError = '';
    const transport: Transport = {
      send: (data) => socket.send(data),
      close: (code, reason) => socket.close(code, reason),
      onmessage: undefined,
      onclose: undefined,
      onerror: undefined,
    };
    const timer = setTimeout(() => {
      if (opened) return;
      socket.close();
      reject(new BAPClientError('ECONNECT', `Cannot connect to ${url}: not open after ${timeoutMs} ms`));
    }, timeoutMs);

    socket.addEventListener('open', () => {
      opened = true;
      clearTimeout(timer);
      resolve(transport);
    });
    socket.addEventListener('error', (event) => {
      if (typeof event.message === 'string') lastError = event.message;
    });
    socket.addEventListener('message', (event) => {
      if (typeof event.data === 'string') transport.onmessage?.(event.data);
      else transport.onerror?.(new BAPClientError('EPROTOCOL', 'Received a binary frame; BAP uses text frames only'));
    });
    socket.addEventListener('close', (event) => {
      if (closed) return;
      closed = true;
      clearTimeout(timer);
      if (!opened) {
        const why = lastError || `closed with code ${event.code}${event.reason ? ` (${event.reason})` : ''}`;
        reject(new BAPClientError('ECONNECT', `Cannot connect to ${url}: ${why}`));
        return;
      }
      transport.onclose?.({ code: event.code, reason: event.reason });
    });
  });
}
