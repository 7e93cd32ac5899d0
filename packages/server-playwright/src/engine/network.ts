import { limitError } from './errors.js';
import type { Request, Response, Route } from 'playwright-core';
import { BAPError, ErrorCodes, type MethodResult, type NetworkEvent, type ParsedParams } from '@browseragentprotocol/protocol';
import type { ContextEntry } from './contextEntry.js';
import { toBAPError } from './errors.js';
import type { Emit } from './events.js';
import type { PageHandle } from './pageHandle.js';
import { compileUrlPattern } from './urlPattern.js';
import type { DomainPolicy } from '../security/domainPolicy.js';
import { BLOCKED_HEADER } from '../security/policyProxy.js';

type Empty = Record<string, never>;
type InterceptParams = ParsedParams<'network/intercept'>;
type FulfillResponse = ParsedParams<'network/fulfill'>['response'];
type Overrides = NonNullable<ParsedParams<'network/continue'>['overrides']>;

/** A paused request nobody answers continues after this long (ms) unless the rule says otherwise. */
const DEFAULT_PAUSE_MS = 30_000;
/**
 * The response event waits for the body so its timing is complete; a body still arriving after
 * this long (a stream, a big file) is reported without waiting further, with `download: -1`.
 */
const BODY_WAIT_MS = 1_000;
/** Request bodies longer than this are cut in events; the request itself is untouched. */
const MAX_EVENT_POST_DATA = 64 * 1024;
/** How many answered requests are remembered, to tell "already answered" from "never paused". */
const REMEMBERED_VERDICTS = 1_000;
/** One route per context, matching every URL; the rules decide inside it. */
const EVERY_URL = () => true;

interface Rule {
  id: string;
  matches: (request: Request) => boolean;
  handler: NonNullable<InterceptParams['handler']>;
  response: FulfillResponse | undefined;
  pauseMs: number;
}

/** A request the session reported in an events/network request event. */
interface Announced {
  requestId: string;
  pageId: string;
  contextId: string;
  /** The rule that claimed it when it was reported (it decides the request). */
  rule: Rule | undefined;
}

type RouteHandler = (route: Route, request: Request) => Promise<void>;

/** The interception of one context: its rules, oldest first, and the route that applies them. */
interface ContextRules {
  rules: Rule[];
  route: RouteHandler;
}

interface Paused {
  announced: Announced;
  route: Route;
  request: Request;
  timer: NodeJS.Timeout;
}

/**
 * A session's network events and request interception. Requests are reported from each page's
 * events; interception is one route per context whose rules (most recent first) decide each
 * request. A paused request always ends: answered, released by its timeout, or released when
 * its context closes.
 */
export class NetworkController {
  private readonly announced = new WeakMap<Request, Announced>();
  /** What the server did to a request, for the `fulfilled` and `blocked` flags of its events. */
  private readonly verdicts = new WeakMap<Request, 'fulfilled' | 'blocked'>();
  private readonly responses = new Map<Request, { response: Response; timer: NodeJS.Timeout }>();
  private readonly intercepts = new Map<string, ContextRules>();
  private readonly paused = new Map<string, Paused>();
  private readonly answered = new Map<string, string>();
  private nextRequest = 1;
  private nextRule = 1;

  constructor(
    private readonly emit: Emit,
    private readonly maxRules: number,
  ) {}

  watchPage(handle: PageHandle): void {
    const { page, id: pageId, contextId } = handle;
    page.on('request', (request) => this.announce(request, pageId, contextId));
    page.on('response', (response) => {
      const request = response.request();
      this.announce(request, pageId, contextId);
      const timer = setTimeout(() => this.reportResponse(request), BODY_WAIT_MS);
      this.responses.set(request, { response, timer });
    });
    page.on('requestfinished', (request) => this.reportResponse(request));
    page.on('requestfailed', (request) => this.reportFailure(request, pageId, contextId, handle.guards.policy));
    // WebSockets are not requests to Playwright: one the policy refuses is reported here.
    page.on('websocket', (socket) => {
      const refusal = handle.guards.policy.refusal(socket.url(), 'request');
      if (!refusal) return;
      const requestId = `ws-${this.nextRequest++}`;
      const event = { type: 'failed', requestId, pageId, url: socket.url(), resourceType: 'websocket', error: `Blocked by the domain policy: ${refusal}`, blocked: true, timestamp: Date.now() } as const;
      this.emit('events/network', event);
    });
  }

  /** The context is gone: its rules go, and its paused requests are let go rather than left hanging. */
  forgetContext(contextId: string): void {
    this.intercepts.delete(contextId);
    for (const paused of [...this.paused.values()]) {
      if (paused.announced.contextId !== contextId) continue;
      this.take(paused.announced.requestId, 'released when its context closed');
      void paused.route.continue().catch(() => {});
    }
  }

  async intercept(entry: ContextEntry, params: InterceptParams): Promise<MethodResult<'network/intercept'>> {
    const handler = params.handler ?? 'callback';
    if (handler === 'respond' && !params.response) {
      throw new BAPError(ErrorCodes.InvalidParams, 'params.response: handler "respond" needs the response to answer with.', {
        details: { field: 'params.response' },
        recoveryHint: 'Add response: {status, contentType, body}, or use handler "callback" to answer each request with network/fulfill.',
      });
    }
    const matchers = params.patterns.map((pattern, i) => {
      const url = pattern.urlPattern === undefined ? null : compileUrlPattern(pattern.urlPattern, `params.patterns.${i}.urlPattern`);
      return (request: Request) =>
        (!url || url(request.url())) &&
        (!pattern.resourceType || request.resourceType() === pattern.resourceType) &&
        (!pattern.method || request.method() === pattern.method);
    });

    const context = entry.context;
    const existing = this.intercepts.get(entry.id);
    if (!matchers.length) {
      this.intercepts.delete(entry.id);
      if (existing) await context.unroute(EVERY_URL, existing.route).catch(() => {});
      return { interceptId: null, active: 0 };
    }
    const rule: Rule = {
      id: `intercept-${this.nextRule++}`,
      matches: (request) => matchers.some((m) => m(request)),
      handler,
      response: params.response,
      pauseMs: params.timeout ?? DEFAULT_PAUSE_MS,
    };
    if (existing) {
      if (existing.rules.length >= this.maxRules) {
        throw limitError('interceptRules', this.maxRules, existing.rules.length, 'Remove rules with network/intercept {patterns: []} before adding more.');
      }
      existing.rules.push(rule);
      return { interceptId: rule.id, active: existing.rules.length };
    }
    const contextId = entry.id;
    const intercept: ContextRules = { rules: [rule], route: (route, request) => this.decide(contextId, route, request) };
    this.intercepts.set(contextId, intercept);
    try {
      await context.route(EVERY_URL, intercept.route);
    } catch (error) {
      this.intercepts.delete(contextId);
      throw toBAPError(error);
    }
    return { interceptId: rule.id, active: 1 };
  }

  async fulfill(params: ParsedParams<'network/fulfill'>): Promise<Empty> {
    const paused = this.take(params.requestId, 'fulfilled');
    this.verdicts.set(paused.request, 'fulfilled');
    await settle(paused, () => paused.route.fulfill(fulfillOptions(params.response)));
    return {};
  }

  async abort(params: ParsedParams<'network/abort'>): Promise<Empty> {
    const paused = this.take(params.requestId, 'aborted');
    this.verdicts.set(paused.request, 'blocked');
    await settle(paused, () => paused.route.abort(params.reason ?? 'blockedbyclient'));
    return {};
  }

  async continue(params: ParsedParams<'network/continue'>): Promise<Empty> {
    const waiting = this.paused.get(params.requestId);
    if (waiting && params.overrides?.url !== undefined) checkOverrideUrl(waiting.request.url(), params.overrides.url);
    const paused = this.take(params.requestId, 'continued');
    const overrides = params.overrides;
    await settle(paused, () => paused.route.continue(overrides ? continueOptions(paused.request, overrides) : undefined));
    return {};
  }

  /** Applies the context's rules to one of its requests. */
  private async decide(contextId: string, route: Route, request: Request): Promise<void> {
    const announced = this.announced.get(request);
    // A request never reported (a popup's first document, a service worker's fetch) cannot be
    // answered by the client, so a callback rule lets it through; the others still apply.
    const rule = announced ? announced.rule : this.ruleFor(contextId, request);
    try {
      if (!rule || (rule.handler === 'callback' && !announced)) return await route.fallback();
      switch (rule.handler) {
        case 'abort':
          this.verdicts.set(request, 'blocked');
          return await route.abort('blockedbyclient');
        case 'continue':
          return await route.continue();
        case 'respond':
          this.verdicts.set(request, 'fulfilled');
          return await route.fulfill(fulfillOptions(rule.response!));
        case 'callback':
          this.pause(announced!, route, request, rule.pauseMs);
      }
    } catch {
      // The page or context closed while the request was being decided.
    }
  }

  private pause(announced: Announced, route: Route, request: Request, pauseMs: number): void {
    const timer = setTimeout(() => {
      this.take(announced.requestId, `continued after the ${pauseMs} ms intercept timeout`);
      void route.continue().catch(() => {});
    }, pauseMs);
    this.paused.set(announced.requestId, { announced, route, request, timer });
  }

  /** Removes a paused request, recording how it was decided; throws if it is not paused. */
  private take(requestId: string, verdict: string): Paused {
    const paused = this.paused.get(requestId);
    if (!paused) throw this.notPaused(requestId);
    this.paused.delete(requestId);
    clearTimeout(paused.timer);
    this.answered.set(requestId, verdict);
    if (this.answered.size > REMEMBERED_VERDICTS) this.answered.delete(this.answered.keys().next().value!);
    return paused;
  }

  private notPaused(requestId: string): BAPError {
    const verdict = this.answered.get(requestId);
    const recoveryHint =
      'Only requests whose events/network request event has intercepted: true can be answered, once each, ' +
      'before the intercept timeout (network/intercept timeout, default 30,000 ms) lets them continue.';
    return new BAPError(
      ErrorCodes.InterceptedRequest,
      verdict ? `Request ${requestId} is no longer paused: it was ${verdict}.` : `Request ${requestId} is not paused: no intercepted request has that id.`,
      { details: { requestId, ...(verdict ? { verdict } : {}), paused: [...this.paused.keys()].slice(0, 20) }, recoveryHint },
    );
  }

  /** The most recent rule of the context that matches the request. */
  private ruleFor(contextId: string, request: Request): Rule | undefined {
    const rules = this.intercepts.get(contextId)?.rules;
    if (!rules) return undefined;
    for (let i = rules.length - 1; i >= 0; i--) if (rules[i]!.matches(request)) return rules[i];
    return undefined;
  }

  /** Reports a request once, with the rule that will decide it. */
  private announce(request: Request, pageId: string, contextId: string): Announced {
    const known = this.announced.get(request);
    if (known) return known;
    // Playwright follows redirects without routing them again.
    const rule = request.redirectedFrom() ? undefined : this.ruleFor(contextId, request);
    const announced: Announced = { requestId: `req-${this.nextRequest++}`, pageId, contextId, rule };
    this.announced.set(request, announced);
    const event: Extract<NetworkEvent, { type: 'request' }> = {
      type: 'request',
      requestId: announced.requestId,
      pageId,
      url: request.url(),
      method: request.method(),
      resourceType: request.resourceType(),
      headers: request.headers(),
      timestamp: Date.now(),
    };
    const postData = request.postData();
    if (postData !== null) event.postData = postData.slice(0, MAX_EVENT_POST_DATA);
    if (rule?.handler === 'callback') event.intercepted = true;
    this.emit('events/network', event);
    return announced;
  }

  private reportResponse(request: Request): void {
    const pending = this.responses.get(request);
    const announced = this.announced.get(request);
    if (!pending || !announced) return;
    this.responses.delete(request);
    clearTimeout(pending.timer);
    const { response } = pending;
    const blocked = response.headers()[BLOCKED_HEADER];
    if (blocked) return this.emitFailed(request, announced, `Blocked by the domain policy: ${blocked}`, true);
    const event: Extract<NetworkEvent, { type: 'response' }> = {
      type: 'response',
      requestId: announced.requestId,
      pageId: announced.pageId,
      url: response.url(),
      status: response.status(),
      resourceType: request.resourceType(),
      headers: response.headers(),
      timing: phases(request.timing()),
      timestamp: Date.now(),
    };
    if (this.verdicts.get(request) === 'fulfilled') event.fulfilled = true;
    this.emit('events/network', event);
  }

  /**
   * A failed request is `blocked` when a rule or network/abort refused it, or when its host is
   * one the policy refuses: the proxy then answered 403 or refused the tunnel, and Chromium
   * reports that as a tunnel, CORS or ORB failure.
   */
  private reportFailure(request: Request, pageId: string, contextId: string, policy: DomainPolicy): void {
    const announced = this.announce(request, pageId, contextId);
    this.reportResponse(request);
    if (this.paused.get(announced.requestId)?.request === request) this.take(announced.requestId, 'canceled by the page');
    const error = request.failure()?.errorText ?? 'failed';
    const refusal = policy.refusal(request.url(), 'request');
    if (refusal) return this.emitFailed(request, announced, `Blocked by the domain policy: ${refusal} (${error})`, true);
    this.emitFailed(request, announced, error, this.verdicts.get(request) === 'blocked');
  }

  private emitFailed(request: Request, announced: Announced, error: string, blocked: boolean): void {
    const event: Extract<NetworkEvent, { type: 'failed' }> = {
      type: 'failed',
      requestId: announced.requestId,
      pageId: announced.pageId,
      url: request.url(),
      resourceType: request.resourceType(),
      error,
      timestamp: Date.now(),
    };
    if (blocked) event.blocked = true;
    this.emit('events/network', event);
  }
}

/** Runs a decision on a paused request; if it fails, the request is continued rather than left hanging. */
async function settle(paused: Paused, decide: () => Promise<void>): Promise<void> {
  try {
    await decide();
  } catch (error) {
    await paused.route.continue().catch(() => {});
    throw toBAPError(error);
  }
}

function fulfillOptions(response: FulfillResponse): Parameters<Route['fulfill']>[0] {
  const options: Parameters<Route['fulfill']>[0] = { status: response.status ?? 200 };
  if (response.headers) options.headers = response.headers;
  if (response.contentType) options.contentType = response.contentType;
  if (response.body !== undefined) {
    options.body = response.bodyEncoding === 'base64' ? Buffer.from(response.body, 'base64') : response.body;
  }
  return options;
}

/** Chromium can only redirect a paused request to a URL of the same scheme. */
function checkOverrideUrl(original: string, url: string): void {
  const field = 'params.overrides.url';
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    throw new BAPError(ErrorCodes.InvalidParams, `${field}: "${url}" is not an absolute URL.`, { details: { field } });
  }
  const protocol = new URL(original).protocol;
  if (target.protocol !== protocol) {
    throw new BAPError(ErrorCodes.InvalidParams, `${field}: the new URL must keep the request's scheme (${protocol}).`, {
      details: { field, url, original },
      recoveryHint: 'Answer the request with network/fulfill instead to serve content from elsewhere.',
    });
  }
}

/** Overridden headers are merged over the request's own (names are case-insensitive). */
function continueOptions(request: Request, overrides: Overrides): Parameters<Route['continue']>[0] {
  const options: Parameters<Route['continue']>[0] = {};
  if (overrides.url !== undefined) options.url = overrides.url;
  if (overrides.method) options.method = overrides.method;
  if (overrides.postData !== undefined) options.postData = overrides.postData;
  if (overrides.headers) {
    const extra = Object.fromEntries(Object.entries(overrides.headers).map(([name, value]) => [name.toLowerCase(), value]));
    options.headers = { ...request.headers(), ...extra };
  }
  return options;
}

/** Playwright's timing (ms since the request started, -1 when unknown) as phase durations. */
function phases(t: ReturnType<Request['timing']>): NonNullable<Extract<NetworkEvent, { type: 'response' }>['timing']> {
  const span = (from: number, to: number) => (from >= 0 && to >= from ? Math.round((to - from) * 1000) / 1000 : -1);
  return {
    dnsLookup: span(t.domainLookupStart, t.domainLookupEnd),
    connect: span(t.connectStart, t.connectEnd),
    ssl: span(t.secureConnectionStart, t.connectEnd),
    ttfb: span(t.requestStart, t.responseStart),
    download: span(t.responseStart, t.responseEnd),
  };
}
