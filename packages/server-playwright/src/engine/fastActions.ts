import { randomUUID } from 'node:crypto';
import type { Locator } from 'playwright-core';
import { errors } from 'playwright-core';
import type { Selector } from '@browseragentprotocol/protocol';
import { probeActionability, type GuardReport, type ProbeArgs, type ProbeResult } from './actionability.js';
import { NavigationWatch } from './navigationWatch.js';
import { pageChannel, type PageChannel } from './pageChannel.js';
import type { PageHandle } from './pageHandle.js';
import { SENSITIVE_FIELDS } from './secrets.js';

/*
 * The fast action path. Playwright's auto-waiting spends most of an action proving the target
 * stable over animation frames; when the target is already actionable, one in-page probe
 * (actionability.ts) says so and the input is dispatched at once. Every refusal, and anything
 * the probe cannot tell, leaves the action to Playwright's path, which then runs as before.
 */

/** Longest a probe may take before the action goes Playwright's way (a busy or paused page). */
const PROBE_MS = 1_000;

type Point = { x: number; y: number };

/** Says which path an action took, and why the fast one was refused. */
function report(h: PageHandle, action: string, outcome: { fast: true } | { fast: false; reason: string; detail?: string }): void {
  h.actionPath.debug?.({ pageId: h.id, action, ...outcome });
}

function refused(h: PageHandle, action: string, refusal: { reason: string; detail?: string }): void {
  report(h, action, { fast: false, reason: refusal.reason, ...(refusal.detail ? { detail: refusal.detail } : {}) });
}

/** The first option the fast path does not handle, as a refusal reason. */
function unsupportedOption(options: object, handled: readonly string[]): string | null {
  for (const [key, value] of Object.entries(options)) {
    if (value === undefined || value === false || (Array.isArray(value) && !value.length) || handled.includes(key)) continue;
    return `option-${key}`;
  }
  return null;
}

/**
 * Whether the fast path may run: the server allows it, no trace is being recorded (a trace should
 * show Playwright's actions, with their snapshots), and no option stands in the way. Logs the
 * refusal when not.
 */
export function fastAllowed(h: PageHandle, action: string, options: object, handled: readonly string[]): boolean {
  const reason = !h.actionPath.fast ? 'disabled' : h.actionPath.tracing?.() ? 'tracing' : unsupportedOption(options, handled);
  if (reason) refused(h, action, { reason });
  return !reason;
}

/**
 * What the probe looks at: the locator; for a css selector in the main frame the CSS itself,
 * which the page can resolve on its own (PageChannel.probeCss); and whether the locator is a
 * ref, whose table lives in Playwright's utility world, out of reach of `evaluateAll` (it queries
 * in the page's own world).
 */
export interface FastTarget {
  locator: Locator;
  css?: string;
  ref?: boolean;
}

export function fastTarget(h: PageHandle, selector: Selector, locator: Locator): FastTarget {
  if (selector.type === 'ref' || selector.type === 'semantic') return { locator, ref: true };
  return selector.type === 'css' && h.frames.current() === h.page.mainFrame() ? { locator, css: selector.value } : { locator };
}

/** A probe's answer, with the key of the guard it may have left and the world it left it in. */
type Probed = ProbeResult & { key: string; world: 'isolated' | 'main' };

/** Runs the probe, bounded: a page that cannot answer quickly is left to Playwright's path. */
async function probe(h: PageHandle, target: FastTarget, args: Omit<ProbeArgs, 'sensitive' | 'key' | 'sentAt' | 'lateMs'>, timeout: number): Promise<Probed> {
  const limit = timeout > 0 ? Math.min(PROBE_MS, timeout) : PROBE_MS;
  const key = `bap.fastAction.${randomUUID()}`;
  // Started after half the limit, the probe refuses by itself: its answer could arrive after we stopped waiting.
  const full: ProbeArgs = { ...args, sensitive: SENSITIVE_FIELDS, key, sentAt: Date.now(), lateMs: limit / 2 };
  let world: Probed['world'] = 'main';
  const run = async (): Promise<ProbeResult> => {
    const ch = target.css !== undefined ? await pageChannel(h) : null;
    const direct = ch && target.css !== undefined ? await ch.probeCss(target.css, full) : null;
    if (direct) {
      world = 'isolated';
      return direct;
    }
    if (!target.ref) return target.locator.evaluateAll(probeActionability, full);
    // Refs were just resolved (refs.resolve counts them): the element is there or the probe refuses.
    const handle = await target.locator.elementHandle({ timeout: limit });
    try {
      return await handle.evaluate(probeActionability, full);
    } finally {
      void handle.dispose().catch(() => {});
    }
  };
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<ProbeResult>((resolve) => {
    timer = setTimeout(() => resolve({ ok: false, reason: 'slow-page' }), limit);
  });
  // Whatever went wrong (a navigation, a bad selector), Playwright's path meets it again and says so.
  const answer = run().catch((): ProbeResult => ({ ok: false, reason: 'probe-failed' }));
  try {
    return { ...(await Promise.race([answer, late])), key, world };
  } finally {
    clearTimeout(timer);
  }
}

/** Takes the guard a probe left: whether the input landed on the target. Null when the page went away. */
function collectGuard(ch: PageChannel, probed: Probed): Promise<GuardReport | null> {
  return probed.world === 'isolated' ? ch.collectGuard(probed.key) : ch.collectMainWorldGuard(probed.key);
}

export interface PointerAction {
  /** The method, for the debug log. */
  action: string;
  kind: 'click' | 'hover' | 'check';
  timeout: number;
  /** check: the state wanted. */
  checked?: boolean;
  /** Sends the input to the probed point. */
  input: (point: Point) => Promise<void>;
  /** Wait for a navigation the input started to commit, as Playwright's click does. */
  awaitNavigation: boolean;
  /** Bounds that wait when `timeout` is 0 (no limit). */
  navigationTimeout: number;
}

/**
 * A pointer action on the fast path. Null when refused, before any input or because the input
 * missed the target (it was blocked in the page, as Playwright's interceptor blocks it): the
 * caller then runs Playwright's path. Otherwise what the guard saw (a checkbox's state after).
 */
export async function fastPointer(h: PageHandle, target: FastTarget, a: PointerAction): Promise<GuardReport | null> {
  const left = timeLeft(a.timeout);
  const ch = await pageChannel(h);
  if (!ch) {
    refused(h, a.action, { reason: 'no-cdp' });
    return null;
  }
  const result = await probe(h, target, { kind: a.kind, checked: a.checked }, a.timeout);
  if (!result.ok) {
    refused(h, a.action, result);
    return null;
  }
  if (result.done || !result.point) {
    report(h, a.action, { fast: true });
    return { hit: 'done' };
  }
  const watch = a.awaitNavigation ? new NavigationWatch(h.page, ch.cdp, () => ch.mainFrameId) : null;
  const step = (what: string) => ({ ms: left(), timeout: a.timeout, what: `${what} (${a.kind})` });
  try {
    try {
      await within(a.input(result.point), step('performing the input'));
    } catch (error) {
      // The guard must not outlive the action, whatever became of the input.
      void collectGuard(ch, result);
      throw error;
    }
    // Also flushes the CDP events the input caused, navigation requests included.
    const guard = (await within(collectGuard(ch, result), step('checking where the input landed'))) ?? { hit: 'done' };
    if (guard.hit !== 'done') {
      refused(h, a.action, { reason: 'missed', detail: guard.hit });
      return null;
    }
    if (watch) {
      const timeout = a.timeout > 0 ? a.timeout : a.navigationTimeout;
      const ms = a.timeout > 0 ? left() : a.navigationTimeout;
      await within(watch.settled(), { ms, timeout, what: 'waiting for scheduled navigations to finish' });
    }
    report(h, a.action, { fast: true });
    return guard;
  } finally {
    watch?.dispose();
  }
}

/** The time left of `timeout` for what comes next, as a Playwright timeout (0, no limit, stays 0). */
export function timeLeft(timeout: number): () => number {
  const start = Date.now();
  return () => (timeout > 0 ? Math.max(1, timeout - (Date.now() - start)) : 0);
}

/**
 * `work`, or once `ms` pass (0: no limit), the error a timed-out Playwright action gives, so that
 * both paths map to the same protocol error.
 */
async function within<T>(work: Promise<T>, limit: { ms: number; timeout: number; what: string }): Promise<T> {
  if (limit.ms <= 0) return work;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    const message = `Timeout ${limit.timeout}ms exceeded.\nCall log:\n  - attempting action\n  - ${limit.what}`;
    timer = setTimeout(() => reject(new errors.TimeoutError(message)), limit.ms);
  });
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}

export interface TextAction {
  action: string;
  kind: 'fill' | 'type';
  timeout: number;
  /** fill: the value (the probe checks a number field can take it). */
  value?: string;
  /** type: replace the content. */
  clear?: boolean;
  /** Writes into the focused field; `sensitive` says it is a password or card field. */
  write: (sensitive: boolean) => Promise<void>;
}

/**
 * Fill or type on the fast path: the probe checks the field and focuses it (for fill, or type
 * with `clear`, selecting its content, so what is written next replaces it), then `write` runs,
 * unless the probe already wrote a fill's value itself (an input or textarea, not sensitive).
 * False when refused, before anything was written.
 */
export async function fastText(h: PageHandle, target: FastTarget, a: TextAction): Promise<boolean> {
  const left = timeLeft(a.timeout);
  const args = a.kind === 'fill' ? { kind: a.kind, value: a.value ?? '', write: true } : { kind: a.kind, clear: !!a.clear };
  const result = await probe(h, target, args, a.timeout);
  if (!result.ok) {
    refused(h, a.action, result);
    return false;
  }
  if (!result.done) await within(a.write(result.sensitive), { ms: left(), timeout: a.timeout, what: `${a.kind === 'fill' ? 'filling' : 'typing'} the text` });
  report(h, a.action, { fast: true });
  return true;
}

/** Inserts text where the focus is: Playwright's keyboard.insertText, one CDP call without its round trip. */
export async function insertText(h: PageHandle, text: string): Promise<void> {
  const ch = await pageChannel(h);
  if (ch) await ch.insertText(text);
  else await h.page.keyboard.insertText(text);
}

/** Selects options in the probe itself. Null when refused; otherwise the values selected. */
export async function fastSelect(h: PageHandle, target: FastTarget, a: { action: string; values: string[]; timeout: number }): Promise<string[] | null> {
  const result = await probe(h, target, { kind: 'select', values: a.values }, a.timeout);
  if (!result.ok) {
    refused(h, a.action, result);
    return null;
  }
  report(h, a.action, { fast: true });
  return result.selected ?? [];
}
