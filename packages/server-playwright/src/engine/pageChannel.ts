import type { CDPSession, Page } from 'playwright-core';
import { probeActionability, type GuardReport, type ProbeArgs, type ProbeResult } from './actionability.js';
import type { PageHandle } from './pageHandle.js';

/**
 * Runs in the page: the elements Playwright's css engine would find, when the page's own query
 * can say (null otherwise). Playwright's engine pierces open shadow roots, so a document with any
 * is left to it, as is CSS only Playwright understands (`:has-text()`, `>>`).
 */
function nativeQuery(css: string): Element[] | null {
  const walker = document.createTreeWalker(document, NodeFilter.SHOW_ELEMENT);
  while (walker.nextNode()) if ((walker.currentNode as Element).shadowRoot) return null;
  try {
    return [...document.querySelectorAll(css)];
  } catch {
    return null;
  }
}

const WORLD = 'bap-fast-actions';

/** Defines the probe and the guard collector in the isolated world, once per document. */
const INSTALL = `(() => {
  const query = (${nativeQuery.toString()});
  const probe = (${probeActionability.toString()});
  globalThis.probeCss = (css, args) => { const elements = query(css); return elements && probe(elements, args); };
  globalThis.collectGuard = (key) => { const collect = globalThis[Symbol.for(key)]; return typeof collect === 'function' ? collect() : null; };
  return globalThis;
})()`;

/**
 * The fast path's own line to a page: a CDP session with Page events on (for the navigations an
 * input starts), the main frame's id, and an isolated world of the main frame's document holding
 * the probe. There the page's scripts can neither see the probe nor change the DOM methods it
 * relies on, and each call sends only its arguments.
 */
export class PageChannel {
  /** The isolated world's global object, for the current document of the main frame. */
  private world: Promise<string | null> | null = null;

  private constructor(
    readonly cdp: CDPSession,
    public mainFrameId: string,
  ) {
    cdp.on('Page.frameNavigated', ({ frame }) => {
      if (frame.parentId) return;
      this.mainFrameId = frame.id;
      // Made now, so the first action on the new document does not wait for it.
      this.world = this.install();
    });
  }

  static async open(h: PageHandle): Promise<PageChannel> {
    const cdp = await h.cdp();
    const [, tree] = await Promise.all([cdp.send('Page.enable'), cdp.send('Page.getFrameTree')]);
    return new PageChannel(cdp, tree.frameTree.frame.id);
  }

  /**
   * The probe for a css selector in the main frame, found by the page's own query, in one CDP
   * call. Null when that query cannot stand for Playwright's, or the document just changed.
   */
  async probeCss(css: string, args: ProbeArgs): Promise<ProbeResult | null> {
    const value = await this.call<ProbeResult>('function (css, args) { return this.probeCss(css, args); }', css, args);
    return value ?? null;
  }

  /** Collects a hit-target guard the probe left in this world; null when the document is gone. */
  async collectGuard(key: string): Promise<GuardReport | null> {
    return (await this.call<GuardReport>('function (key) { return this.collectGuard(key); }', key)) ?? null;
  }

  /**
   * Collects a guard left in the page's own world (the probe ran through Playwright: in a frame,
   * for a ref, or for a selector only Playwright resolves); null when the document is gone.
   */
  async collectMainWorldGuard(key: string): Promise<GuardReport | null> {
    const expression = `(() => { const f = globalThis[Symbol.for(${JSON.stringify(key)})]; return typeof f === 'function' ? f() : null; })()`;
    const reply = await this.cdp.send('Runtime.evaluate', { expression, returnByValue: true }).catch(() => null);
    return (reply?.result.value as GuardReport | null | undefined) ?? null;
  }

  /** Playwright's keyboard.insertText, one CDP call without its round trip. */
  async insertText(text: string): Promise<void> {
    await this.cdp.send('Input.insertText', { text });
  }

  /** Calls `declaration` on the isolated world's global; undefined when it cannot be reached. */
  private async call<T>(declaration: string, ...args: unknown[]): Promise<T | undefined> {
    const world = (this.world ??= this.install());
    const objectId = await world;
    const params = objectId && { objectId, functionDeclaration: declaration, arguments: args.map((value) => ({ value })), returnByValue: true };
    const reply = params ? await this.cdp.send('Runtime.callFunctionOn', params).catch(() => null) : null;
    // No world, or one of a document that is gone: the next call makes one in the current document.
    if (!reply && this.world === world) this.world = null;
    return !reply || reply.exceptionDetails ? undefined : (reply.result.value as T | undefined);
  }

  private async install(): Promise<string | null> {
    try {
      const { executionContextId } = await this.cdp.send('Page.createIsolatedWorld', { frameId: this.mainFrameId, worldName: WORLD });
      const reply = await this.cdp.send('Runtime.evaluate', { contextId: executionContextId, expression: INSTALL, objectGroup: WORLD });
      return reply.result.objectId ?? null;
    } catch {
      return null;
    }
  }
}

const channels = new WeakMap<Page, Promise<PageChannel | null>>();

/** The page's channel, opened on first use; null where CDP is not available. */
export function pageChannel(h: PageHandle): Promise<PageChannel | null> {
  let found = channels.get(h.page);
  if (!found) {
    found = PageChannel.open(h).catch(() => null);
    channels.set(h.page, found);
  }
  return found;
}
