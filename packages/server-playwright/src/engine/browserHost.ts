import { chromium, selectors, type Browser } from 'playwright-core';
import { BAPError, ErrorCodes, type BrowserLaunchParams } from '@browseragentprotocol/protocol';
import { chromiumArgs, findChromium } from './chromium.js';
import { firstLine } from './errors.js';
import { fastLabelsEngine, installFastLabels, REF_ENGINE, refEngine } from './pageScripts.js';

export interface BrowserDefaults {
  headless: boolean;
  chromiumPath: string | undefined;
}

interface HostedBrowser {
  id: string;
  key: string;
  headless: boolean;
  browser: Promise<Browser>;
  users: number;
  idleTimer?: NodeJS.Timeout;
}

export interface BrowserLease {
  id: string;
  browser: Browser;
  headless: boolean;
  /** Give the browser back; it closes when unused, at once or after an idle grace period. */
  release(immediate: boolean): Promise<void>;
}

let snapshotHelpers: Promise<void> | undefined;

/**
 * Once per process, before the first browser starts (Playwright applies selector engines to the
 * contexts made after): the engine whose source speeds up snapshots of fresh documents, and the
 * one that resolves the refs of the interactive walk (`bap_ref`, in the page's world, where the
 * walk keeps its table). The registration is process-wide, so contexts a host process makes
 * with its own playwright-core get them too: the labels engine acts in their utility worlds,
 * and in their page worlds, which lack BAP's marker, when Playwright injects its script there.
 * Should registering fail (a name taken), snapshots only stay as slow as Playwright's own, and
 * observations take Playwright's snapshot instead of the walk.
 */
function registerSnapshotHelpers(): Promise<void> {
  snapshotHelpers ??= Promise.all([
    selectors.register('bap_labels', { content: `(${fastLabelsEngine.toString()})(${installFastLabels.toString()})` }, { contentScript: true }),
    selectors.register(REF_ENGINE, { content: `(${refEngine.toString()})()` }).then(() => void (refEngineReady = true)),
  ]).then(
    () => {},
    () => {},
  );
  return snapshotHelpers;
}

let refEngineReady = false;

/** Whether the `bap_ref` engine is registered: refs of the interactive walk can be resolved. */
export const walkRefsResolvable = (): boolean => refEngineReady;

/** How long an unused browser stays up, so the next connection does not pay for a launch. */
const IDLE_CLOSE_MS = 30_000;

/**
 * Owns the browser processes. Sessions asking for the same launch options share one browser
 * (each with its own context); a browser that crashed or disconnected is forgotten so the next
 * request launches a fresh one.
 */
export class BrowserHost {
  private readonly browsers = new Map<string, HostedBrowser>();
  private nextId = 1;

  constructor(private readonly defaults: BrowserDefaults) {}

  async acquire(params: BrowserLaunchParams = {}): Promise<BrowserLease> {
    if (params.browser && params.browser !== 'chromium') {
      throw new BAPError(ErrorCodes.BrowserNotLaunched, `Browser "${params.browser}" is not available on this server.`, {
        recoveryHint: 'Use browser: "chromium" (or omit it).',
      });
    }
    const headless = params.headless ?? this.defaults.headless;
    const key = JSON.stringify([
      params.cdpUrl ?? null,
      params.wsEndpoint ?? null,
      headless,
      params.channel ?? null,
      params.args ?? [],
      params.proxy ?? null,
    ]);
    let hosted = this.browsers.get(key);
    if (!hosted) {
      const id = `browser-${this.nextId++}`;
      hosted = { id, key, headless, browser: this.start(params), users: 0 };
      this.browsers.set(key, hosted);
      const entry = hosted;
      entry.browser.then(
        (browser) => browser.on('disconnected', () => this.forget(entry)),
        () => this.forget(entry),
      );
    }
    hosted.users++;
    clearTimeout(hosted.idleTimer);
    const entry = hosted;
    let browser: Browser;
    try {
      browser = await entry.browser;
    } catch (error) {
      entry.users--;
      throw error;
    }
    let released = false;
    return {
      id: entry.id,
      browser,
      headless,
      release: async (immediate) => {
        if (released) return;
        released = true;
        if (--entry.users > 0 || this.browsers.get(key) !== entry) return;
        const shut = async () => {
          if (entry.users > 0) return;
          this.forget(entry);
          await browser.close().catch(() => {});
        };
        if (immediate) return shut();
        entry.idleTimer = setTimeout(() => void shut(), IDLE_CLOSE_MS).unref();
      },
    };
  }

  /** What the browsers hold right now, as the browsers themselves report it. */
  async stats(): Promise<{ browsers: number; contexts: number; pages: number }> {
    const browsers = (await Promise.all([...this.browsers.values()].map((b) => b.browser.catch(() => null)))).filter((b) => b !== null);
    const contexts = browsers.flatMap((b) => b.contexts());
    return { browsers: browsers.length, contexts: contexts.length, pages: contexts.reduce((n, c) => n + c.pages().length, 0) };
  }

  async close(): Promise<void> {
    const all = [...this.browsers.values()];
    this.browsers.clear();
    for (const b of all) clearTimeout(b.idleTimer);
    await Promise.all(all.map(async (b) => (await b.browser.catch(() => null))?.close().catch(() => {})));
  }

  private forget(entry: HostedBrowser): void {
    if (this.browsers.get(entry.key) === entry) this.browsers.delete(entry.key);
  }

  private async start(params: BrowserLaunchParams): Promise<Browser> {
    await registerSnapshotHelpers();
    try {
      if (params.cdpUrl) return await chromium.connectOverCDP(params.cdpUrl, { timeout: 30_000 });
      if (params.wsEndpoint) return await chromium.connect(params.wsEndpoint, { timeout: 30_000 });
      const launch: Parameters<typeof chromium.launch>[0] = {
        headless: params.headless ?? this.defaults.headless,
        args: chromiumArgs(params.args),
        timeout: 60_000,
      };
      if (params.channel) launch.channel = params.channel;
      else launch.executablePath = findChromium(this.defaults.chromiumPath);
      if (params.proxy) launch.proxy = params.proxy;
      return await chromium.launch(launch);
    } catch (error) {
      if (error instanceof BAPError) throw error;
      throw new BAPError(ErrorCodes.BrowserNotLaunched, `Browser failed to start: ${firstLine(error)}`, {
        retryable: true,
        recoveryHint: 'Check the browser path and arguments, or the remote endpoint, then call browser/launch again.',
      });
    }
  }
}
