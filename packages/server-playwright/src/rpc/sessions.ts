import { JSONRPC_VERSION, type EventNotificationName, type NotificationParams } from '@browseragentprotocol/protocol';
import type { BrowserHost } from '../engine/browserHost.js';
import { BrowserSession } from '../engine/session.js';
import type { ResolvedServerOptions } from '../options.js';
import { Subscriptions } from './subscriptions.js';

/** Notifications kept for a parked session, oldest dropped first. */
const PARKED_BUFFER = 1000;

export interface SessionOwner {
  send(text: string): void;
  /** The session was taken over by a newer connection: close with 4001. */
  replaced(): void;
}

/**
 * A browser session with what must outlive one connection to it: its subscriptions, and the
 * notifications that arrive while no connection holds it.
 */
export class SessionState {
  readonly session: BrowserSession;
  readonly subscriptions = new Subscriptions();
  owner: SessionOwner | null = null;
  private buffer: string[] = [];

  constructor(
    readonly id: string | null,
    host: BrowserHost,
    options: ResolvedServerOptions,
  ) {
    this.session = new BrowserSession(host, {
      timeouts: { action: options.actionTimeout, navigation: options.navigationTimeout },
      maxMessageBytes: options.maxMessageBytes,
      limits: { maxPages: options.maxPages, maxContexts: options.maxContexts, maxPagesPerContext: options.maxPagesPerContext },
      emit: (method, params) => this.emit(method, params),
    });
  }

  /** Delivers what arrived while parked. */
  flush(): void {
    const pending = this.buffer;
    this.buffer = [];
    for (const text of pending) this.owner?.send(text);
  }

  private emit<N extends EventNotificationName>(method: N, params: NotificationParams<N>): void {
    if (!this.subscriptions.accepts(method, params as never)) return;
    const text = JSON.stringify({ jsonrpc: JSONRPC_VERSION, method, params });
    if (this.owner) return this.owner.send(text);
    if (this.id === null) return;
    this.buffer.push(text);
    if (this.buffer.length > PARKED_BUFFER) this.buffer.shift();
  }
}

/**
 * The server's sessions by id. A session opened with a sessionId survives its connection for
 * the grace period; initialize with the same id picks it up (taking it from a connection still
 * holding it, which is closed with 4001). Sessions without an id end with their connection.
 */
export class SessionRegistry {
  private readonly byId = new Map<string, { state: SessionState; timer?: NodeJS.Timeout }>();

  constructor(
    private readonly host: BrowserHost,
    private readonly options: ResolvedServerOptions,
  ) {}

  open(sessionId: string | undefined, owner: SessionOwner): { state: SessionState; resumed: boolean } {
    const found = sessionId ? this.byId.get(sessionId) : undefined;
    if (found) {
      clearTimeout(found.timer);
      delete found.timer;
      const previous = found.state.owner;
      found.state.owner = owner;
      previous?.replaced();
      return { state: found.state, resumed: true };
    }
    const state = new SessionState(sessionId ?? null, this.host, this.options);
    state.owner = owner;
    if (sessionId) this.byId.set(sessionId, { state });
    return { state, resumed: false };
  }

  /** The connection holding `state` went away without shutdown: park or end the session. */
  async release(state: SessionState, owner: SessionOwner): Promise<void> {
    if (state.owner !== owner) return;
    state.owner = null;
    const entry = state.id ? this.byId.get(state.id) : undefined;
    if (!entry || entry.state !== state || this.options.sessionGraceMs <= 0) return this.end(state);
    entry.timer = setTimeout(() => void this.end(state), this.options.sessionGraceMs).unref();
  }

  /** Ends a session now (shutdown, grace expired, or server closing). */
  async end(state: SessionState): Promise<void> {
    const entry = state.id ? this.byId.get(state.id) : undefined;
    if (entry?.state === state) {
      clearTimeout(entry.timer);
      this.byId.delete(state.id!);
    }
    state.owner = null;
    await state.session.dispose();
  }

  async closeAll(): Promise<void> {
    await Promise.all([...this.byId.values()].map((e) => this.end(e.state).catch(() => {})));
  }

  /** Sessions kept, live or parked. */
  get size(): number {
    return this.byId.size;
  }
}
