import type { CDPSession, Frame, Page, Request, Response } from 'playwright-core';
import {
  BAPError,
  ErrorCodes,
  describeSelector,
  type ConsoleEvent,
  type NavigationResult,
  type PageInfo,
  type Selector,
  type WaitUntil,
} from '@browseragentprotocol/protocol';
import { ConsoleLog } from './consoleLog.js';
import { DialogController } from './dialogs.js';
import { toBAPError } from './errors.js';
import type { Emit } from './events.js';
import { FileChooserHook } from './fileChooserHook.js';
import { FrameTracker } from './frames.js';
import { locate, requireElement, type Target } from './locate.js';
import { RefRegistry } from './refRegistry.js';
import type { SessionGuards } from './session.js';
import { domainNotAllowed } from '../security/domainPolicy.js';
import { BLOCKED_HEADER } from '../security/policyProxy.js';

export interface Timeouts {
  action: number;
  navigation: number;
}

/** How actions reach the page: the fast path first (fastActions.ts) or Playwright's alone. */
export interface ActionPath {
  fast: boolean;
  /** Whether the page's context is recording a trace: the trace should show Playwright's own actions. */
  tracing?: () => boolean;
  /** Debug log of the path each action took, and why the fast one was refused. */
  debug?: (fields: Record<string, unknown>) => void;
}

const CONSOLE_LEVELS: Record<string, ConsoleEvent['level']> = {
  log: 'log', debug: 'debug', info: 'info', error: 'error', warning: 'warn', trace: 'debug', dir: 'log', assert: 'error',
};

/** One page of a session: its ids, refs, frames, dialogs, file chooser hook, console log, status, and its events. */
export class PageHandle {
  readonly refs: RefRegistry;
  readonly frames: FrameTracker;
  readonly dialogs: DialogController;
  readonly fileChooser: FileChooserHook;
  readonly console: ConsoleLog;
  status: PageInfo['status'] = 'loading';
  private cdpSession: Promise<CDPSession> | null = null;

  constructor(
    readonly id: string,
    readonly contextId: string,
    readonly page: Page,
    readonly timeouts: Timeouts,
    emit: Emit,
    readonly guards: SessionGuards,
    readonly actionPath: ActionPath,
  ) {
    this.refs = new RefRegistry(page, guards.maxRefs);
    this.frames = new FrameTracker(page, timeouts.action);
    this.dialogs = new DialogController(page, id, emit);
    this.fileChooser = new FileChooserHook(page);
    this.console = new ConsoleLog(id);
    const now = Date.now;
    const pageEvent = (type: 'domcontentloaded' | 'load' | 'navigated', url = page.url()) =>
      emit('events/page', { type, pageId: id, url, timestamp: now() });
    page.on('domcontentloaded', () => pageEvent('domcontentloaded'));
    page.on('load', () => {
      this.status = 'ready';
      pageEvent('load');
    });
    page.on('framenavigated', (frame) => {
      if (frame === page.mainFrame()) pageEvent('navigated', frame.url());
    });
    page.on('pageerror', (error) =>
      emit('events/page', { type: 'error', pageId: id, url: page.url(), error: error.message, timestamp: now() }),
    );
    page.on('crash', () => {
      this.status = 'error';
      emit('events/page', { type: 'error', pageId: id, url: page.url(), error: 'Page crashed', timestamp: now() });
    });
    page.on('close', () => emit('events/page', { type: 'close', pageId: id, timestamp: now() }));
    page.on('console', (message) => {
      const location = message.location();
      const event: ConsoleEvent = {
        pageId: id,
        level: CONSOLE_LEVELS[message.type()] ?? 'log',
        text: message.text(),
        timestamp: now(),
      };
      if (location.url) Object.assign(event, { url: location.url, line: location.lineNumber, column: location.columnNumber });
      this.console.add(event);
      emit('events/console', event);
    });
  }

  async info(active: boolean): Promise<PageInfo> {
    return {
      id: this.id,
      contextId: this.contextId,
      url: this.page.url(),
      title: await titleOf(this.page),
      viewport: this.page.viewportSize(),
      status: this.status,
      active,
    };
  }

  /** One CDP session per page, kept open: emulation overrides last only as long as it does. */
  cdp(): Promise<CDPSession> {
    this.cdpSession ??= this.page.context().newCDPSession(this.page);
    return this.cdpSession;
  }

  async target(selector: Selector): Promise<Target> {
    try {
      return await locate(this.frames.current(), this.refs, selector);
    } catch (error) {
      throw toBAPError(error, { selector: describeSelector(selector) });
    }
  }

  async element(selector: Selector, action: string) {
    return requireElement(await this.target(selector), selector, action);
  }

  async navigate(url: string, options: { waitUntil?: WaitUntil; timeout?: number; referer?: string }): Promise<NavigationResult> {
    const target = normalizeUrl(url);
    const refusal = this.guards.policy.refusal(target, 'navigation');
    if (refusal) throw domainNotAllowed(target, refusal);
    const gotoOptions: Parameters<Page['goto']>[1] = {
      waitUntil: options.waitUntil ?? 'load',
      timeout: options.timeout ?? this.timeouts.navigation,
    };
    if (options.referer) gotoOptions.referer = options.referer;
    try {
      const response = await this.policed(() => this.page.goto(target, gotoOptions));
      this.status = 'ready';
      const result: NavigationResult = { pageId: this.id, url: this.page.url(), status: response?.status() ?? null };
      if (response) result.headers = response.headers();
      return result;
    } catch (error) {
      this.status = 'error';
      throw toBAPError(error, { url: target, timeout: gotoOptions.timeout });
    }
  }

  async history(
    direction: 'reload' | 'back' | 'forward',
    options: { waitUntil?: WaitUntil; timeout?: number },
  ): Promise<NavigationResult & { navigated: boolean }> {
    const opts = { waitUntil: options.waitUntil ?? 'load', timeout: options.timeout ?? this.timeouts.navigation } as const;
    const before = this.page.url();
    if (direction === 'back' && (await this.atFirstRealEntry())) {
      return { pageId: this.id, url: before, status: null, navigated: false };
    }
    try {
      const response = await this.policed(() =>
        direction === 'reload' ? this.page.reload(opts) : direction === 'back' ? this.page.goBack(opts) : this.page.goForward(opts),
      );
      // goBack/goForward resolve null both for "no entry" and for same-document moves.
      const navigated = direction === 'reload' || response !== null || this.page.url() !== before;
      return { pageId: this.id, url: this.page.url(), status: response?.status() ?? null, navigated };
    } catch (error) {
      throw toBAPError(error, { url: this.page.url(), timeout: opts.timeout });
    }
  }

  /**
   * Runs a main-frame navigation and fails it with -32041 when the policy proxy refused where it
   * led, redirect hops included: a plain-HTTP refusal arrives as its 403, a CONNECT refusal as a
   * failed request whose host the policy names.
   */
  private async policed(navigation: () => Promise<Response | null>): Promise<Response | null> {
    let failed: string | null = null;
    const onFailed = (request: Request) => {
      // An aborted navigation (a download, a newer navigation) leaves no error page behind.
      const aborted = request.failure()?.errorText.includes('ERR_ABORTED');
      if (request.isNavigationRequest() && request.frame() === this.page.mainFrame() && !aborted) failed = request.url();
    };
    this.page.on('requestfailed', onFailed);
    try {
      const response = await navigation();
      const blocked = response?.headers()[BLOCKED_HEADER];
      if (response && blocked) throw domainNotAllowed(response.url(), blocked);
      return response;
    } catch (error) {
      const url: string | null = failed;
      if (!url) {
        // A navigation that timed out is stopped, so it cannot commit later under the agent's next one.
        if (toBAPError(error).code === ErrorCodes.Timeout) await (await this.cdp()).send('Page.stopLoading').catch(() => {});
        throw error;
      }
      // Chromium commits its error page just after reporting the failure; waiting for it keeps
      // that commit from interrupting the agent's next navigation.
      const main = this.page.mainFrame();
      await this.page.waitForEvent('framenavigated', { predicate: (f) => f === main && f.url().startsWith('chrome-error:'), timeout: 1_000 }).catch(() => {});
      const refusal = this.guards.policy.refusal(url, 'request');
      throw refusal ? domainNotAllowed(url, refusal) : error;
    } finally {
      this.page.off('requestfailed', onFailed);
    }
  }

  /**
   * Every page starts as about:blank, so a page created at a URL has that blank entry behind it;
   * going back to it is never what an agent means, so it counts as having no history.
   */
  private async atFirstRealEntry(): Promise<boolean> {
    const { currentIndex, entries } = await (await this.cdp()).send('Page.getNavigationHistory');
    return currentIndex === 0 || (currentIndex === 1 && entries[0]?.url === 'about:blank');
  }
}

/** A page's or frame's title; '' while it cannot be read (mid-navigation, closed). */
export function titleOf(target: Page | Frame): Promise<string> {
  return target.title().catch(() => '');
}

/** Schemes that are never a host name followed by a port, whatever comes after the colon. */
const NOT_A_HOST = /^(javascript|data|file|about|blob|filesystem|view-source|chrome|chrome-extension|devtools|vbscript):/i;

/** Accepts what people type in an address bar: `example.com` → https, `localhost:3000` → http. */
export function normalizeUrl(input: string): string {
  const url = input.trim();
  if (NOT_A_HOST.test(url) || (/^[a-z][a-z0-9+.-]*:/i.test(url) && !/^(localhost|[\w.-]+):\d+/i.test(url))) {
    try {
      return new URL(url).href;
    } catch {
      throw new BAPError(ErrorCodes.InvalidParams, `url: "${url}" is not a valid URL.`);
    }
  }
  const local = /^(localhost|127\.|\[::1\]|0\.0\.0\.0)/i.test(url);
  try {
    return new URL(`${local ? 'http' : 'https'}://${url}`).href;
  } catch {
    throw new BAPError(ErrorCodes.InvalidParams, `url: "${url}" is not a valid URL.`);
  }
}
