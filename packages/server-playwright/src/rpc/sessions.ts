import { JSONRPC_VERSION, type EventNotificationName, type NotificationParams } from '@browseragentprotocol/protocol';
import type { BrowserHost } from '../engine/browserHost.js';
import { BAPError, ErrorCodes } from '@browseragentprotocol/protocol';
import { BrowserSession, type SessionGuards } from '../engine/session.js';
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
  /** Per page: events sent in the current second, and those dropped over the budget. */
  private readonly eventBudget = new Map<string, { second: number; sent: number; dropped: number }>();

  constructor(
    readonly id: string | null,
    /** The token name that opened the session; only the same token may resume it. */
    readonly principal: string,
    host: BrowserHost,
    private readonly options: ResolvedServerOptions,
    guards: SessionGuards,
  ) {
    this.session = new BrowserSession(host, {
      timeouts: { action: options.actionTimeout, navigation: options.navigationTimeout },
      actionPath: { fast: options.fastActions, debug: (fields) => options.logger.debug(fields, 'action path') },
      guards,
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
    if (!this.withinBudget((params as { pageId?: string }).pageId)) return;
    this.deliver(JSON.stringify({ jsonrpc: JSONRPC_VERSION, method, params }));
  }

  /**
   * Counts a page's event against its per-second budget. Events over it are dropped; when the
   * second ends, limit/eventsDropped says how many.
   */
  private withinBudget(pageId: string | undefined): boolean {
    if (!pageId) return true;
    const second = Math.floor(Date.now() / 1000);
    let budget = this.eventBudget.get(pageId);
    if (!budget || budget.second !== second) {
      budget = { second, sent: 0, dropped: 0 };
      this.eventBudget.set(pageId, budget);
      if (this.eventBudget.size > 1000) this.eventBudget.delete(this.eventBudget.keys().next().value!);
    }
    if (budget.sent < this.options.maxEventsPerSecond) {
      budget.sent++;
      return true;
    }
    if (budget.dropped++ === 0) {
      const report = budget;
      setTimeout(() => {
        const params = { pageId, dropped: report.dropped, limit: this.options.maxEventsPerSecond, timestamp: Date.now() };
        this.deliver(JSON.stringify({ jsonrpc: JSONRPC_VERSION, method: 'limit/eventsDropped', params }));
      }, 1005 - (Date.now() % 1000)).unref();
    }
    return false;
  }

  /** Sends a notification that no subscription filters (approval/required). */
  notify(method: string, params: unknown): void {
    this.deliver(JSON.stringify({ jsonrpc: JSONRPC_VERSION, method, params }));
  }

  private deliver(text: string): void {
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

  /** Opens a new session or resumes the one named `sessionId`, which must belong to the same token. */
  open(sessionId: string | undefined, owner: SessionOwner, principal: string, guards: SessionGuards): { state: SessionState; resumed: boolean } {
    const found = sessionId ? this.byId.get(sessionId) : undefined;
    if (found && found.state.principal !== principal) {
      throw new BAPError(ErrorCodes.Unauthorized, 'Unauthorized: this sessionId belongs to another token.', {
        details: { field: 'params.sessionId' },
        recoveryHint: 'Resume a session with the token that opened it, or use a new sessionId.',
      });
    }
    if (found) {
      clearTimeout(found.timer);
      delete found.timer;
      const previous = found.state.owner;
      found.state.owner = owner;
      previous?.replaced();
      return { state: found.state, resumed: true };
    }
    const state = new SessionState(sessionId ?? null, principal, this.host, this.options, guards);
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
