import {
  PROTOCOL_VERSION,
  methodNames,
  type EventType,
  type MethodName,
  type MethodResult,
  type ParsedParams,
} from '@browseragentprotocol/protocol';
import * as actions from '../engine/actions.js';
import * as observe from '../engine/observe.js';
import type { BrowserSession } from '../engine/session.js';
import type { ResolvedServerOptions } from '../options.js';
import { SERVER_NAME, SERVER_VERSION } from '../version.js';

/** What a handler may touch: its connection's session and subscriptions, and the server's limits. */
export interface HandlerContext {
  session: BrowserSession;
  options: ResolvedServerOptions;
  /** Replaces the connection's subscriptions. */
  subscribe(events: EventType[]): void;
  endSession(): void;
}

type Handler<M extends MethodName> = (ctx: HandlerContext, params: ParsedParams<M>) => Promise<MethodResult<M>>;
export type Handlers = { [M in MethodName]: Handler<M> };

/** Events this server emits today; the others are accepted in subscriptions and reported unavailable. */
const EMITTED: EventType[] = ['page', 'console'];

/** The method table's handlers: each one line into the engine. */
export const handlers: Handlers = {
  initialize: async ({ options }) => ({
    protocolVersion: PROTOCOL_VERSION,
    serverInfo: { name: SERVER_NAME, version: SERVER_VERSION },
    capabilities: {
      browsers: ['chromium'],
      events: EMITTED,
      methods: methodNames,
      features: { refs: true, batch: true, semanticSelectors: true, multiPage: true, streaming: false },
      limits: {
        maxMessageBytes: options.maxMessageBytes,
        maxBatchSize: options.maxBatchSize,
        maxPages: options.maxPages,
        maxTimeout: 300_000,
        defaultTimeout: options.actionTimeout,
      },
    },
  }),
  shutdown: async (ctx, p) => {
    if (p.closePages !== false) await ctx.session.dispose();
    ctx.endSession();
    return {};
  },
  'events/subscribe': async (ctx, p) => {
    ctx.subscribe(p.events);
    return { subscribed: p.events.filter((e) => EMITTED.includes(e)), unavailable: p.events.filter((e) => !EMITTED.includes(e)) };
  },
  'browser/launch': ({ session }, p) => session.launch(p),
  'browser/close': async ({ session }) => {
    await session.closeBrowser();
    return {};
  },
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
  'action/click': async ({ session }, p) => actions.click(await session.page(p.pageId), p),
  'action/dblclick': async ({ session }, p) => actions.click(await session.page(p.pageId), p, 2),
  'action/type': async ({ session }, p) => actions.type(await session.page(p.pageId), p),
  'action/fill': async ({ session }, p) => actions.fill(await session.page(p.pageId), p),
  'action/clear': async ({ session }, p) => actions.clear(await session.page(p.pageId), p),
  'action/press': async ({ session }, p) => actions.press(await session.page(p.pageId), p),
  'action/hover': async ({ session }, p) => actions.hover(await session.page(p.pageId), p),
  'action/scroll': async ({ session }, p) => actions.scroll(await session.page(p.pageId), p),
  'action/select': async ({ session }, p) => actions.select(await session.page(p.pageId), p),
  'action/check': async ({ session }, p) => actions.check(await session.page(p.pageId), p, true),
  'action/uncheck': async ({ session }, p) => actions.check(await session.page(p.pageId), p, false),
  'action/drag': async ({ session }, p) => actions.drag(await session.page(p.pageId), p),
  'observe/screenshot': async ({ session }, p) => observe.screenshot(await session.page(p.pageId), p),
  'observe/ariaSnapshot': async ({ session }, p) =>
    observe.snapshot(await session.page(p.pageId), {
      selector: p.selector,
      depth: p.options?.depth,
      boxes: p.options?.boxes,
      timeout: p.options?.timeout,
      includeTree: p.options?.includeTree ?? false,
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
  'discovery/discover': async ({ session }, p) => observe.discover(await session.page(p.pageId), p),
};
