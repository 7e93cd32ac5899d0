import {
  PROTOCOL_VERSION,
  methodNames,
  type EventFilters,
  type EventType,
  type MethodName,
  type MethodResult,
  type ParsedParams,
} from '@browseragentprotocol/protocol';
import * as actions from '../engine/actions.js';
import * as browserState from '../engine/browserState.js';
import * as observe from '../engine/observe.js';
import type { BrowserSession } from '../engine/session.js';
import { agentObserve } from '../engine/agentObserve.js';
import { inputUnlessDialog as input } from '../engine/dialogRace.js';
import { extract } from '../engine/extract.js';
import { evaluate } from '../engine/evaluate.js';
import { armFileChooser, upload } from '../engine/upload.js';
import { waitFor } from '../engine/waiting.js';
import type { ResolvedServerOptions } from '../options.js';
import { act } from './act.js';
import type { StreamManager } from './streams.js';
import type { Redactor } from '../security/redactor.js';
import { SERVER_NAME, SERVER_VERSION } from '../version.js';

/** What a handler may touch: its session, its subscriptions, and the server's options. */
export interface HandlerContext {
  session: BrowserSession;
  options: ResolvedServerOptions;
  /** Set when the session is resumable. */
  sessionId: string | null;
  /** True when initialize picked up a parked session. */
  resumed: boolean;
  /** Replaces the session's subscriptions. */
  subscribe(events: EventType[], filters?: EventFilters): void;
  /** Ends the session (or parks it, when resumable, with `park`). */
  endSession(park: boolean): Promise<void>;
  /** Sends the notifications a parked session collected, after the current reply. */
  flushParked(): void;
  streams: StreamManager;
  /** What must never leave the server (traces are scrubbed with it). */
  redactor: Redactor;
  /** Decides a waiting approval (approval/respond). */
  respondToApproval(params: ParsedParams<'approval/respond'>): { acknowledged: boolean };
  /** Runs another method with validated params, as its own call would (agent/act steps). */
  run(method: MethodName, params: unknown, step?: number): Promise<unknown>;
}

type Handler<M extends MethodName> = (ctx: HandlerContext, params: ParsedParams<M>) => Promise<MethodResult<M>>;
export type Handlers = { [M in MethodName]: Handler<M> };

const EVENTS: EventType[] = ['page', 'console', 'network', 'dialog', 'download'];

/** The method table's handlers: each one line into the engine. */
export const handlers: Handlers = {
  initialize: async (ctx) => {
    const { options } = ctx;
    ctx.flushParked();
    return {
      protocolVersion: PROTOCOL_VERSION,
      serverInfo: { name: SERVER_NAME, version: SERVER_VERSION },
      capabilities: {
        browsers: ['chromium'],
        events: EVENTS,
        methods: methodNames,
        features: { refs: true, batch: true, semanticSelectors: true, multiPage: true, streaming: true },
        limits: {
          maxMessageBytes: options.maxMessageBytes,
          maxBatchSize: options.maxBatchSize,
          maxPages: options.maxPages,
          maxContexts: options.maxContexts,
          maxPagesPerContext: options.maxPagesPerContext,
          maxUploadBytes: options.maxUploadBytes,
          sessionGraceMs: options.sessionGraceMs,
          maxStreams: options.maxStreams,
          maxTimeout: 300_000,
          defaultTimeout: options.actionTimeout,
        },
      },
      ...(ctx.sessionId ? { sessionId: ctx.sessionId, resumed: ctx.resumed } : {}),
    };
  },
  shutdown: async (ctx, p) => {
    await ctx.endSession(p.closePages === false && ctx.sessionId !== null);
    return {};
  },
  'events/subscribe': async (ctx, p) => {
    ctx.subscribe(p.events, p.filters);
    return { subscribed: p.events, unavailable: [] };
  },
  'browser/launch': ({ session }, p) => session.launch(p),
  'browser/close': async ({ session }) => {
    await session.closeBrowser();
    return {};
  },
  'context/create': async ({ session }, p) => ({ contextId: (await session.createContext(p.contextId, p.options)).id }),
  'context/list': async ({ session }) => session.listContexts(),
  'context/destroy': ({ session }, p) => session.destroyContext(p.contextId),
  'page/create': ({ session }, p) => session.createPage(p),
  'page/navigate': async ({ session }, p) => (await session.page(p.pageId)).navigate(p.url, p),
  'page/reload': async ({ session }, p) => (await session.page(p.pageId)).history('reload', p),
  'page/goBack': async ({ session }, p) => (await session.page(p.pageId)).history('back', p),
  'page/goForward': async ({ session }, p) => (await session.page(p.pageId)).history('forward', p),
  'page/close': ({ session }, p) => session.closePage(p.pageId, p.runBeforeUnload),
  'page/list': ({ session }) => session.list(),
  'page/activate': async ({ session }, p) => {
    await session.activate(p.pageId);
    return {};
  },
  'page/waitFor': async ({ session }, p) => waitFor(await session.page(p.pageId), p),
  'page/evaluate': async ({ session, options }, p) => evaluate(() => session.page(p.pageId), p, options.allowEvaluate),
  'frame/list': async ({ session }, p) => (await session.page(p.pageId)).frames.list(),
  'frame/switch': async ({ session }, p) => {
    const h = await session.page(p.pageId);
    return h.frames.switch(p, (selector) => h.element(selector, 'frame/switch'));
  },
  'frame/main': async ({ session }, p) => (await session.page(p.pageId)).frames.main(),
  'action/click': async ({ session }, p) => input(await session.page(p.pageId), (h) => actions.click(h, p)),
  'action/dblclick': async ({ session }, p) => input(await session.page(p.pageId), (h) => actions.click(h, p, 2)),
  'action/type': async ({ session }, p) => input(await session.page(p.pageId), (h) => actions.type(h, p)),
  'action/fill': async ({ session }, p) => input(await session.page(p.pageId), (h) => actions.fill(h, p)),
  'action/clear': async ({ session }, p) => actions.clear(await session.page(p.pageId), p),
  'action/press': async ({ session }, p) => input(await session.page(p.pageId), (h) => actions.press(h, p)),
  'action/hover': async ({ session }, p) => input(await session.page(p.pageId), (h) => actions.hover(h, p)),
  'action/scroll': async ({ session }, p) => actions.scroll(await session.page(p.pageId), p),
  'action/select': async ({ session }, p) => actions.select(await session.page(p.pageId), p),
  'action/check': async ({ session }, p) => input(await session.page(p.pageId), (h) => actions.check(h, p, true)),
  'action/uncheck': async ({ session }, p) => input(await session.page(p.pageId), (h) => actions.check(h, p, false)),
  'action/drag': async ({ session }, p) => actions.drag(await session.page(p.pageId), p),
  'action/upload': async ({ session, options }, p) => upload(await session.page(p.pageId), p, options),
  'action/armFileChooser': async ({ session, options }, p) => armFileChooser(await session.page(p.pageId), p, options),
  'observe/screenshot': async ({ session }, p) => observe.screenshot(await session.page(p.pageId), p),
  'observe/ariaSnapshot': async ({ session }, p) =>
    observe.snapshot(await session.page(p.pageId), {
      selector: p.selector,
      depth: p.options?.depth,
      boxes: p.options?.boxes,
      timeout: p.options?.timeout,
      includeTree: p.options?.includeTree ?? false,
      refs: p.options?.refs,
    }),
  'observe/accessibility': async ({ session }, p) =>
    observe.snapshot(await session.page(p.pageId), {
      selector: p.options?.root,
      depth: p.options?.depth ?? p.options?.maxDepth,
      boxes: p.options?.boxes,
      timeout: p.options?.timeout,
      includeTree: true,
    }),
  'observe/dom': async ({ session }, p) => observe.dom(await session.page(p.pageId), p),
  'observe/element': async ({ session }, p) => observe.element(await session.page(p.pageId), p),
  'observe/content': async ({ session }, p) => observe.content(await session.page(p.pageId), p),
  'observe/console': async ({ session }, p) => (await session.page(p.pageId)).console.list(p.level),
  'observe/pdf': async ({ session }, p) => observe.pdf(await session.page(p.pageId), p),
  'storage/getState': async ({ session }, p) => browserState.getState(await session.contextFor(p)),
  'storage/setState': async ({ session }, p) => browserState.setState(await session.contextFor(p), p.state),
  'storage/getCookies': async ({ session }, p) => browserState.getCookies(await session.contextFor(p), p.urls),
  'storage/setCookies': async ({ session }, p) => browserState.setCookies(await session.contextFor(p), p.cookies),
  'storage/clearCookies': async ({ session }, p) => browserState.clearCookies(await session.contextFor(p), p),
  'emulate/setViewport': async ({ session }, p) => browserState.setViewport(await session.page(p.pageId), p),
  'emulate/setUserAgent': async ({ session }, p) => browserState.setUserAgent(await session.page(p.pageId), p),
  'emulate/setGeolocation': async ({ session }, p) => browserState.setGeolocation(await session.contextFor(p), p),
  'emulate/setOffline': async ({ session }, p) => browserState.setOffline(await session.contextFor(p), p.offline),
  'dialog/handle': async ({ session }, p) => (await session.page(p.pageId)).dialogs.handle(p),
  'dialog/setPolicy': async ({ session }, p) => (await session.page(p.pageId)).dialogs.setPolicy(p),
  'download/list': async ({ session }, p) => session.downloads.list(p.pageId),
  'download/get': async ({ session }, p) => session.downloads.get(p),
  'network/intercept': async ({ session }, p) => session.network.intercept(await session.contextFor(p), p),
  'network/fulfill': async ({ session }, p) => session.network.fulfill(p),
  'network/abort': async ({ session }, p) => session.network.abort(p),
  'network/continue': async ({ session }, p) => session.network.continue(p),
  'trace/start': async ({ session }, p) => browserState.startTrace(await session.contextFor(p), p),
  'trace/stop': async (ctx, p) => browserState.stopTrace(await ctx.session.contextFor(p), ctx.redactor),
  'discovery/discover': async ({ session }, p) => observe.discover(await session.page(p.pageId), p),
  'agent/observe': async ({ session }, p) => agentObserve(await session.page(p.pageId), p),
  'agent/extract': async ({ session }, p) => extract(await session.page(p.pageId), p),
  'agent/act': (ctx, p) => act(ctx, p),
  'stream/cancel': async ({ streams }, p) => streams.cancel(p.streamId),
  'approval/respond': async (ctx, p) => ctx.respondToApproval(p),
};
