import { randomUUID } from 'node:crypto';
import { BAPError, JSONRPC_VERSION, PROTOCOL_VERSION, type JSONRPCResponse } from '@browseragentprotocol/protocol';
import type { Caller } from '../rpc/gate.js';
import { RpcConnection } from '../rpc/connection.js';
import type { SessionRegistry } from '../rpc/sessions.js';
import type { ResolvedServerOptions } from '../options.js';
import type { ServerSecurity } from '../security/serverSecurity.js';

/** Notifications kept for SSE replay (`Last-Event-ID`), oldest dropped first. */
const REPLAY_BUFFER = 1_000;

export interface SseEvent {
  id: number;
  data: string;
}

/**
 * A BAP session reached over plain HTTP instead of a WebSocket: the same RpcConnection (so the
 * same handshake, gate, audit and redaction), with replies matched to their HTTP requests by id
 * and notifications kept, numbered, for the SSE stream and its replay.
 */
export class HttpSession {
  readonly id = randomUUID();
  readonly connection: RpcConnection;
  private readonly collectors = new Set<(message: JSONRPCResponse[]) => void>();
  private readonly closeListeners = new Set<() => void>();
  private ended = false;
  private readonly events: SseEvent[] = [];
  private readonly listeners = new Set<(event: SseEvent) => void>();
  private nextEvent = 1;
  private nextId = 1;
  lastUsed = Date.now();

  /** An SSE stream is attached: the session is in use even without requests. */
  get streaming(): boolean {
    return this.listeners.size > 0;
  }

  constructor(
    registry: SessionRegistry,
    options: ResolvedServerOptions,
    security: ServerSecurity,
    readonly caller: Caller,
  ) {
    this.connection = new RpcConnection(
      registry,
      options,
      { send: (text) => this.receive(text), buffered: () => 0, close: () => void this.close() },
      security,
      caller,
    );
  }

  /** Opens the BAP session: initialize and notifications/initialized, as a WebSocket client would. */
  async open(): Promise<void> {
    await this.call('initialize', { protocolVersion: PROTOCOL_VERSION, clientInfo: { name: 'http', version: '1' } });
    await this.connection.receive(JSON.stringify({ jsonrpc: JSONRPC_VERSION, method: 'notifications/initialized' }));
  }

  /** Runs one method through the connection and returns its result, or throws its BAPError. */
  async call(method: string, params: Record<string, unknown> = {}): Promise<unknown> {
    const id = `http-${this.nextId++}`;
    const replies = await this.exchange(JSON.stringify({ jsonrpc: JSONRPC_VERSION, id, method, params }));
    const reply = replies.find((r) => r.id === id);
    if (!reply) throw new Error(`no reply to ${method}`);
    if ('error' in reply) throw BAPError.fromWire(reply.error);
    return reply.result;
  }

  /**
   * Sends raw JSON-RPC text (a request, a notification or a batch) and returns the replies to
   * it. The connection answers one text with one message (a reply or an array of them): the one
   * carrying any of this text's ids, or, for text that names none (not JSON, no valid id), a
   * reply with id null.
   */
  async exchange(text: string): Promise<JSONRPCResponse[]> {
    this.lastUsed = Date.now();
    const ids = requestIds(text);
    let replies: JSONRPCResponse[] = [];
    const collect = (message: JSONRPCResponse[]) => {
      const ours = ids.size ? message.some((r) => r.id !== null && ids.has(r.id)) : message.length === 1 && message[0]!.id === null;
      if (ours && !replies.length) replies = message;
    };
    this.collectors.add(collect);
    try {
      await this.connection.receive(text);
    } finally {
      this.collectors.delete(collect);
    }
    return replies;
  }

  /** Notifications from `afterId` on (SSE replay), then every new one until `stop` is called. */
  subscribe(afterId: number, listener: (event: SseEvent) => void): () => void {
    for (const event of this.events) if (event.id > afterId) listener(event);
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  get closed(): boolean {
    return this.ended;
  }

  /** Called once when the session ends (closed here, or replaced by another connection). */
  onClose(listener: () => void): () => void {
    this.closeListeners.add(listener);
    return () => this.closeListeners.delete(listener);
  }

  async close(): Promise<void> {
    if (this.ended) return;
    this.ended = true;
    this.listeners.clear();
    for (const listener of this.closeListeners) listener();
    this.closeListeners.clear();
    await this.connection.close();
  }

  /** Everything the connection sends: replies go to their requests, notifications to the SSE stream. */
  private receive(text: string): void {
    const message = JSON.parse(text) as unknown;
    const items = Array.isArray(message) ? message : [message];
    if (items.every((m) => typeof m === 'object' && m !== null && 'id' in m)) {
      for (const collect of this.collectors) collect(items as JSONRPCResponse[]);
      return;
    }
    const event = { id: this.nextEvent++, data: text };
    this.events.push(event);
    if (this.events.length > REPLAY_BUFFER) this.events.shift();
    for (const listener of this.listeners) listener(event);
  }
}

/** The ids a JSON-RPC text carries (none when it does not parse). */
function requestIds(text: string): Set<string | number> {
  try {
    const message = JSON.parse(text) as unknown;
    const items = Array.isArray(message) ? message : [message];
    return new Set(items.flatMap((m) => (typeof m === 'object' && m !== null && (typeof m.id === 'string' || typeof m.id === 'number') ? [m.id as string | number] : [])));
  } catch {
    return new Set();
  }
}
