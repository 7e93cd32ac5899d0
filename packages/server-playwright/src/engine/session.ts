import type { BrowserContext, Page } from 'playwright-core';
import {
  BAPError,
  ErrorCodes,
  type BrowserLaunchParams,
  type PageInfo,
  type Viewport,
  type WaitUntil,
} from '@browseragentprotocol/protocol';
import type { BrowserHost } from './browserHost.js';
import { installWebMCPRecorder } from './pageScripts.js';
import { PageHandle, type PageEvents, type Timeouts } from './pageHandle.js';

export interface SessionOptions {
  timeouts: Timeouts;
  maxPages: number;
  events: PageEvents;
}

interface Attached {
  browserId: string;
  version: string;
  headless: boolean;
  context: BrowserContext;
  release: (immediate: boolean) => Promise<void>;
  /** False once the browser crashed or disconnected. */
  alive: boolean;
}

/**
 * What one client connection owns: a browser context with its pages, and which page is active.
 * The context is created on first need; if its browser dies, the next call starts a new one.
 */
export class BrowserSession {
  private attached: Attached | null = null;
  private attaching: Promise<Attached> | null = null;
  private readonly pages = new Map<string, PageHandle>();
  private readonly handles = new WeakMap<Page, PageHandle>();
  /** Most recently activated last: closing the active page falls back to the one before. */
  private order: string[] = [];
  private nextPage = 1;

  constructor(
    private readonly host: BrowserHost,
    private readonly options: SessionOptions,
  ) {}

  async launch(params: BrowserLaunchParams) {
    if (this.attached?.alive) await this.detach(false);
    const attached = await this.attach(params);
    return { browserId: attached.browserId, version: attached.version, defaultContext: 'default', headless: attached.headless };
  }

  async closeBrowser(): Promise<void> {
    await this.detach(true);
  }

  async createPage(params: { url?: string; viewport?: Viewport; waitUntil?: WaitUntil; timeout?: number; activate?: boolean }) {
    const { context } = await this.context();
    if (this.pages.size >= this.options.maxPages) {
      throw new BAPError(ErrorCodes.ResourceLimitExceeded, `This session already has ${this.pages.size} pages open (limit ${this.options.maxPages}).`, {
        retryable: false,
        details: { resource: 'pages', limit: this.options.maxPages, current: this.pages.size },
        recoveryHint: 'Close pages you no longer need with page/close.',
      });
    }
    const page = await context.newPage();
    const handle = this.adopt(page);
    if (params.activate !== false) this.touch(handle.id);
    if (params.viewport) await page.setViewportSize(params.viewport);
    if (params.url) {
      const nav: { waitUntil?: WaitUntil; timeout?: number } = {};
      if (params.waitUntil) nav.waitUntil = params.waitUntil;
      if (params.timeout !== undefined) nav.timeout = params.timeout;
      await handle.navigate(params.url, nav);
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
    if (this.attached && !this.attached.alive) await this.context();
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
    this.forget(handle.id);
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

  async dispose(): Promise<void> {
    await this.detach(false);
  }

  /** The page calls without pageId go to. */
  get activePageId(): string | null {
    return this.order.at(-1) ?? null;
  }

  private touch(pageId: string): void {
    this.order = [...this.order.filter((id) => id !== pageId), pageId];
  }

  private forget(pageId: string): void {
    this.pages.delete(pageId);
    this.order = this.order.filter((id) => id !== pageId);
  }

  private pageNotFound(pageId: string): BAPError {
    const known = [...this.pages.keys()];
    return new BAPError(ErrorCodes.PageNotFound, `Page not found: ${pageId}`, {
      details: { pageId, pages: known },
      recoveryHint: known.length ? `Open pages: ${known.join(', ')}.` : 'There are no pages; page/create or page/navigate opens one.',
    });
  }

  /** Registers a page of our context (ours or a popup it opened) once. */
  private adopt(page: Page): PageHandle {
    const existing = this.handles.get(page);
    if (existing) return existing;
    const handle = new PageHandle(`page-${this.nextPage++}`, page, this.options.timeouts, this.options.events);
    page.setDefaultTimeout(this.options.timeouts.action);
    page.setDefaultNavigationTimeout(this.options.timeouts.navigation);
    this.handles.set(page, handle);
    this.pages.set(handle.id, handle);
    if (!this.order.includes(handle.id)) this.order.unshift(handle.id);
    page.on('close', () => this.forget(handle.id));
    this.options.events.page({ type: 'created', pageId: handle.id, url: page.url(), timestamp: Date.now() });
    return handle;
  }

  private async context(): Promise<Attached> {
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
    let context: BrowserContext;
    try {
      context = await lease.browser.newContext({ viewport: { width: 1280, height: 720 } });
    } catch (error) {
      await lease.release(false);
      throw error;
    }
    await context.addInitScript(installWebMCPRecorder);
    const attached: Attached = {
      browserId: lease.id,
      version: lease.browser.version(),
      headless: params.headless ?? lease.headless,
      context,
      release: lease.release,
      alive: true,
    };
    lease.browser.once('disconnected', () => {
      attached.alive = false;
    });
    context.on('page', (page) => this.adopt(page));
    this.attached = attached;
    return attached;
  }

  private async detach(immediate: boolean): Promise<void> {
    const attached = this.attached;
    if (!attached) return;
    this.attached = null;
    for (const id of [...this.pages.keys()]) this.forget(id);
    if (attached.alive) await attached.context.close().catch(() => {});
    await attached.release(immediate);
  }
}
