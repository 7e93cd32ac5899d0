import { randomUUID } from 'node:crypto';
import type { Browser, BrowserContextOptions, Page } from 'playwright-core';
import {
  BAPError,
  ErrorCodes,
  type BrowserLaunchParams,
  type ContextOptions,
  type PageInfo,
  type Viewport,
  type WaitUntil,
} from '@browseragentprotocol/protocol';
import type { BrowserHost } from './browserHost.js';
import { ContextEntry } from './contextEntry.js';
import { clampedTimeouts } from './deadline.js';
import { DownloadRegistry } from './downloads.js';
import { firstLine, invalidField, limitError, toBAPError } from './errors.js';
import type { Emit } from './events.js';
import { NetworkController } from './network.js';
import { installWebMCPRecorder, markPageWorld } from './pageScripts.js';
import { PageHandle, type ActionPath, type Timeouts } from './pageHandle.js';
import type { DomainPolicy } from '../security/domainPolicy.js';
import { PolicyProxy } from '../security/policyProxy.js';
import { disableWebRtc } from '../security/policyWebRtc.js';
import type { Redactor } from '../security/redactor.js';

export interface SessionLimits {
  maxPages: number;
  maxContexts: number;
  maxPagesPerContext: number;
}

/** What keeps a session's pages in bounds: the domain policy, the redactor, and size limits. */
export interface SessionGuards {
  policy: DomainPolicy;
  redactor: Redactor;
  /** Most element refs one snapshot may hold. */
  maxRefs: number;
  /** network/intercept rules one context may hold. */
  maxInterceptRules: number;
}

export interface SessionOptions {
  timeouts: Timeouts;
  actionPath: ActionPath;
  guards: SessionGuards;
  /** Bounds what one reply can carry (download/get). */
  maxMessageBytes: number;
  limits: SessionLimits;
  emit: Emit;
}

interface Attached {
  browserId: string;
  version: string;
  headless: boolean;
  release: (immediate: boolean) => Promise<void>;
  browser: Browser;
  /** False once the browser crashed or disconnected. */
  alive: boolean;
}

const DEFAULT_CONTEXT = 'default';
const DEFAULT_VIEWPORT = { width: 1280, height: 720 };

/**
 * Everything one agent session owns: its browser contexts (a default one made on first need,
 * others by context/create), their pages, which page is active, downloads and network rules.
 * If the browser dies, the next call starts a new one.
 */
export class BrowserSession {
  readonly network: NetworkController;
  readonly downloads: DownloadRegistry;
  private attached: Attached | null = null;
  private attaching: Promise<Attached> | null = null;
  private readonly contexts = new Map<string, ContextEntry>();
  private creatingDefault: Promise<ContextEntry> | null = null;
  private readonly pages = new Map<string, PageHandle>();
  private readonly handles = new WeakMap<Page, PageHandle>();
  /** Most recently activated last: closing the active page falls back to the one before. */
  private order: string[] = [];
  private nextPage = 1;
  /** Carries all traffic of this session's contexts; started with the first context, closed on dispose. */
  private proxy: Promise<PolicyProxy> | null = null;

  constructor(
    private readonly host: BrowserHost,
    private readonly options: SessionOptions,
  ) {
    this.network = new NetworkController(options.emit, options.guards.maxInterceptRules);
    this.downloads = new DownloadRegistry(options.emit, options.maxMessageBytes);
  }

  async launch(params: BrowserLaunchParams) {
    if (this.attached?.alive) await this.detach(false);
    const attached = await this.attach(params);
    return { browserId: attached.browserId, version: attached.version, defaultContext: DEFAULT_CONTEXT, headless: attached.headless };
  }

  async closeBrowser(): Promise<void> {
    await this.detach(true);
  }

  async createContext(contextId: string | undefined, options: ContextOptions = {}): Promise<ContextEntry> {
    const id = contextId ?? `ctx-${randomUUID().slice(0, 8)}`;
    this.checkNewContext(id);
    const attached = await this.browser();
    const { policy } = this.options.guards;
    const proxy = await this.policyProxy();
    const context = await attached.browser
      .newContext({
        ...playwrightOptions(options),
        // Chromium skips proxies for loopback unless told not to; the policy covers loopback too.
        proxy: { server: proxy.url, bypass: '<-loopback>' },
        serviceWorkers: policy.restricts ? 'block' : 'allow',
      })
      .catch((error: unknown) => {
        throw contextOptionsError(error);
      });
    try {
      // Checked again: another context may have been made while this one started.
      this.checkNewContext(id);
    } catch (error) {
      await context.close().catch(() => {});
      throw error;
    }
    const entry = new ContextEntry(id, context, options, id === DEFAULT_CONTEXT);
    this.contexts.set(id, entry);
    await context.addInitScript(markPageWorld);
    await context.addInitScript(installWebMCPRecorder);
    if (policy.restricts) await context.addInitScript(disableWebRtc);
    context.on('page', (page) => this.adopt(page, entry));
    context.on('close', () => this.forgetContext(entry));
    return entry;
  }

  private checkNewContext(id: string): void {
    if (this.contexts.has(id)) {
      throw new BAPError(ErrorCodes.InvalidParams, `contextId: a context named "${id}" already exists.`, {
        details: { contextId: id },
        recoveryHint: 'Choose another id, or destroy the existing context first.',
      });
    }
    const { maxContexts } = this.options.limits;
    if (this.contexts.size >= maxContexts) {
      throw limitError('contexts', maxContexts, this.contexts.size, 'Destroy contexts you no longer need with context/destroy.');
    }
  }

  listContexts() {
    return {
      contexts: [...this.contexts.values()].map((c) => c.info()),
      limits: { maxContexts: this.options.limits.maxContexts, maxPagesPerContext: this.options.limits.maxPagesPerContext, currentCount: this.contexts.size },
    };
  }

  async destroyContext(contextId: string): Promise<{ pagesDestroyed: number }> {
    const entry = this.contextEntry(contextId);
    const pagesDestroyed = entry.pageIds.size;
    this.forgetContext(entry);
    await entry.context.close().catch(() => {});
    return { pagesDestroyed };
  }

  /** The context a call targets: `contextId`, else `pageId`'s, else the active page's, else the default. */
  async contextFor(target: { contextId?: string | undefined; pageId?: string | null | undefined }): Promise<ContextEntry> {
    if (target.contextId !== undefined) {
      await this.browser();
      return this.contextEntry(target.contextId);
    }
    if (target.pageId || this.activePageId) return this.contextEntry((await this.page(target.pageId)).contextId);
    return this.defaultContext();
  }

  async createPage(params: {
    url?: string;
    contextId?: string;
    viewport?: Viewport;
    waitUntil?: WaitUntil;
    timeout?: number;
    activate?: boolean;
  }): Promise<PageInfo> {
    const entry = params.contextId === undefined ? await this.defaultContext() : await this.contextFor({ contextId: params.contextId });
    const { maxPages, maxPagesPerContext } = this.options.limits;
    if (this.pages.size >= maxPages) {
      throw limitError('pages', maxPages, this.pages.size, 'Close pages you no longer need with page/close.');
    }
    if (entry.pageIds.size >= maxPagesPerContext) {
      throw limitError('pagesPerContext', maxPagesPerContext, entry.pageIds.size, `Close pages of context "${entry.id}" with page/close.`);
    }
    const page = await entry.context.newPage();
    const handle = this.adopt(page, entry);
    const previous = this.activePageId;
    if (params.activate !== false) this.touch(handle.id);
    if (params.viewport) await page.setViewportSize(params.viewport);
    if (params.url) {
      const nav: { waitUntil?: WaitUntil; timeout?: number } = {};
      if (params.waitUntil) nav.waitUntil = params.waitUntil;
      if (params.timeout !== undefined) nav.timeout = params.timeout;
      // A page that cannot load its URL (refused host, timeout) is not left behind, blank and active.
      await handle.navigate(params.url, nav).catch(async (error: unknown) => {
        await this.closePage(handle.id).catch(() => {});
        if (previous && this.pages.has(previous)) this.touch(previous);
        throw error;
      });
    } else {
      handle.status = 'ready';
    }
    return handle.info(this.activePageId === handle.id);
  }

  /**
   * The page a call targets: `pageId`, or the active page. With neither, a page is created, so
   * an agent can navigate right after initialize.
   */
  async page(pageId?: string | null): Promise<PageHandle> {
    if (this.attached && !this.attached.alive) await this.browser();
    if (pageId) {
      const handle = this.pages.get(pageId);
      if (!handle) throw this.pageNotFound(pageId);
      return handle;
    }
    const active = this.activePageId;
    if (active) return this.pages.get(active)!;
    await this.createPage({});
    return this.pages.get(this.activePageId!)!;
  }

  async closePage(pageId: string | null | undefined, runBeforeUnload = false): Promise<{ activePage: string | null }> {
    const handle = pageId ? this.pages.get(pageId) : this.pages.get(this.activePageId ?? '');
    if (!handle) throw this.pageNotFound(pageId ?? '(active)');
    await handle.page.close({ runBeforeUnload });
    if (!runBeforeUnload) this.forget(handle);
    return { activePage: this.activePageId };
  }

  async list(): Promise<{ pages: PageInfo[]; activePage: string | null }> {
    const active = this.activePageId;
    const pages = await Promise.all([...this.pages.values()].map((h) => h.info(h.id === active)));
    return { pages, activePage: active };
  }

  async activate(pageId: string): Promise<void> {
    const handle = this.pages.get(pageId);
    if (!handle) throw this.pageNotFound(pageId);
    this.touch(pageId);
    await handle.page.bringToFront();
  }

  /** Closes every context; the browser is released (and closes when no other session uses it). */
  async dispose(): Promise<void> {
    await this.detach(false);
    const proxy = this.proxy;
    this.proxy = null;
    await (await proxy?.catch(() => null))?.close();
  }

  private policyProxy(): Promise<PolicyProxy> {
    this.proxy ??= PolicyProxy.start(this.options.guards.policy).catch((error: unknown) => {
      this.proxy = null;
      throw toBAPError(error);
    });
    return this.proxy;
  }

  /** The page calls without pageId go to. */
  get activePageId(): string | null {
    return this.order.at(-1) ?? null;
  }

  private contextEntry(contextId: string): ContextEntry {
    const entry = this.contexts.get(contextId);
    if (entry) return entry;
    const known = [...this.contexts.keys()];
    throw new BAPError(ErrorCodes.ContextNotFound, `Context not found: ${contextId}`, {
      details: { contextId, contexts: known },
      recoveryHint: known.length ? `Open contexts: ${known.join(', ')}.` : 'Create one with context/create.',
    });
  }

  /** The default context, made once even when several calls need it at the same time. */
  private async defaultContext(): Promise<ContextEntry> {
    await this.browser();
    const existing = this.contexts.get(DEFAULT_CONTEXT);
    if (existing) return existing;
    this.creatingDefault ??= this.createContext(DEFAULT_CONTEXT, { viewport: DEFAULT_VIEWPORT }).finally(() => {
      this.creatingDefault = null;
    });
    return this.creatingDefault;
  }

  private touch(pageId: string): void {
    this.order = [...this.order.filter((id) => id !== pageId), pageId];
  }

  private forget(handle: PageHandle): void {
    if (this.pages.get(handle.id) !== handle) return;
    this.pages.delete(handle.id);
    this.contexts.get(handle.contextId)?.pageIds.delete(handle.id);
    this.order = this.order.filter((id) => id !== handle.id);
  }

  private forgetContext(entry: ContextEntry): void {
    if (this.contexts.get(entry.id) !== entry) return;
    this.contexts.delete(entry.id);
    for (const id of entry.pageIds) {
      const handle = this.pages.get(id);
      if (handle) this.forget(handle);
    }
    this.network.forgetContext(entry.id);
  }

  private pageNotFound(pageId: string): BAPError {
    const known = [...this.pages.keys()];
    return new BAPError(ErrorCodes.PageNotFound, `Page not found: ${pageId}`, {
      details: { pageId, pages: known },
      recoveryHint: known.length ? `Open pages: ${known.join(', ')}.` : 'There are no pages; page/create or page/navigate opens one.',
    });
  }

  /** The configured timeouts, cut short inside an agent/act sequence that is running out of time. */
  private readonly timeouts: Timeouts = clampedTimeouts(() => this.options.timeouts);

  /** Registers a page of one of our contexts (ours or a popup it opened) once. */
  private adopt(page: Page, entry: ContextEntry): PageHandle {
    const existing = this.handles.get(page);
    if (existing) return existing;
    const actionPath = { ...this.options.actionPath, tracing: () => entry.tracing };
    const handle = new PageHandle(`page-${this.nextPage++}`, entry.id, page, this.timeouts, this.options.emit, this.options.guards, actionPath);
    page.setDefaultTimeout(this.options.timeouts.action);
    page.setDefaultNavigationTimeout(this.options.timeouts.navigation);
    this.handles.set(page, handle);
    this.pages.set(handle.id, handle);
    entry.pageIds.add(handle.id);
    if (!this.order.includes(handle.id)) this.order.unshift(handle.id);
    page.on('close', () => this.forget(handle));
    this.network.watchPage(handle);
    this.downloads.watchPage(handle);
    this.options.emit('events/page', { type: 'created', pageId: handle.id, url: page.url(), timestamp: Date.now() });
    return handle;
  }

  private async browser(): Promise<Attached> {
    if (this.attached?.alive) return this.attached;
    if (this.attached) await this.detach(false);
    return this.attach({});
  }

  private attach(params: BrowserLaunchParams): Promise<Attached> {
    this.attaching ??= this.connect(params).finally(() => {
      this.attaching = null;
    });
    return this.attaching;
  }

  private async connect(params: BrowserLaunchParams): Promise<Attached> {
    const lease = await this.host.acquire(params);
    const attached: Attached = {
      browserId: lease.id,
      version: lease.browser.version(),
      headless: params.headless ?? lease.headless,
      browser: lease.browser,
      release: lease.release,
      alive: true,
    };
    lease.browser.once('disconnected', () => {
      attached.alive = false;
    });
    this.attached = attached;
    return attached;
  }

  private async detach(immediate: boolean): Promise<void> {
    const attached = this.attached;
    if (!attached) return;
    this.attached = null;
    const entries = [...this.contexts.values()];
    for (const entry of entries) this.forgetContext(entry);
    if (attached.alive) await Promise.all(entries.map((e) => e.context.close().catch(() => {})));
    await attached.release(immediate);
  }
}

function playwrightOptions(options: ContextOptions): BrowserContextOptions {
  const { viewport, geolocation, permissions, storageState, ...rest } = options;
  const result: BrowserContextOptions = {
    ...rest,
    storageState: storageState as BrowserContextOptions['storageState'],
    viewport: viewport ?? DEFAULT_VIEWPORT,
    acceptDownloads: true,
  };
  if (geolocation) {
    result.geolocation = geolocation;
    result.permissions = [...new Set([...(permissions ?? []), 'geolocation'])];
  } else if (permissions) {
    result.permissions = permissions;
  }
  return result;
}

/** Playwright rejects bad timezone ids and permission names only when the context is made. */
function contextOptionsError(error: unknown): BAPError {
  const message = firstLine(error);
  const field = /timezone/i.test(message)
    ? 'options.timezoneId'
    : /permission/i.test(message)
      ? 'options.permissions'
      : /locale/i.test(message)
        ? 'options.locale'
        : /storageState|cookie/i.test(message)
          ? 'options.storageState'
          : null;
  return field ? invalidField(field, error) : toBAPError(error);
}

