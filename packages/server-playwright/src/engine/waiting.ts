import type { Locator } from 'playwright-core';
import {
  BAPError,
  ErrorCodes,
  describeSelector,
  type ElementStateSchema,
  type MethodResult,
  type ParsedParams,
  type Selector,
} from '@browseragentprotocol/protocol';
import type { z } from 'zod';
import { toBAPError } from './errors.js';
import type { PageHandle } from './pageHandle.js';
import { compileUrlPattern } from './urlPattern.js';

type ElementState = z.infer<typeof ElementStateSchema>;

const POLL_MS = 50;

/** page/waitFor: one condition, in the page's current frame. */
export async function waitFor(h: PageHandle, p: ParsedParams<'page/waitFor'>): Promise<MethodResult<'page/waitFor'>> {
  const started = Date.now();
  const timeout = p.timeout ?? h.timeouts.action;
  const frame = h.frames.current();
  const visibleText = (text: string) => frame.getByText(text).filter({ visible: true }).first();
  try {
    if (p.time !== undefined) await new Promise((resolve) => setTimeout(resolve, p.time));
    else if (p.text !== undefined) await visibleText(p.text).waitFor({ state: 'attached', timeout });
    else if (p.textGone !== undefined) await visibleText(p.textGone).waitFor({ state: 'detached', timeout });
    else if (p.loadState !== undefined) await frame.waitForLoadState(p.loadState, { timeout });
    else if (p.url !== undefined) {
      const matches = compileUrlPattern(p.url, 'params.url');
      await h.page.waitForURL((url) => matches(url.href), { timeout, waitUntil: 'commit' });
    } else if (p.selector !== undefined) {
      const state = p.state ?? 'visible';
      const locator = await elementOrGone(h, p.selector, state === 'hidden' || state === 'detached');
      if (locator) await locator.first().waitFor({ state, timeout });
    }
  } catch (error) {
    throw toBAPError(error, { action: 'page/waitFor', timeout, ...(p.selector ? { selector: describeSelector(p.selector) } : {}) });
  }
  return { waited: Date.now() - started, url: h.page.url() };
}

/**
 * Waits until the element reaches `state` (an agent/act step's condition). Fails with the error
 * that says what was wrong: not found, not visible, not enabled, or still there.
 */
export async function waitForState(h: PageHandle, selector: Selector, state: ElementState, timeout: number): Promise<void> {
  const what = describeSelector(selector);
  const locator = await elementOrGone(h, selector, state === 'hidden');
  if (!locator) return;
  const element = locator.first();
  const deadline = Date.now() + timeout;
  try {
    if (state === 'visible' || state === 'hidden') await element.waitFor({ state, timeout });
    else await element.waitFor({ state: 'attached', timeout });
    if (state === 'enabled' || state === 'disabled') {
      while ((await element.isEnabled({ timeout: Math.max(1, deadline - Date.now()) })) !== (state === 'enabled')) {
        if (Date.now() >= deadline) throw new Error('timeout');
        await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      }
    }
  } catch (error) {
    const failure = toBAPError(error, { selector: what, timeout });
    if (failure.code === ErrorCodes.TargetClosed || failure.code === ErrorCodes.InvalidParams) throw failure;
    const code = CONDITION_CODES[state];
    throw new BAPError(code, `Condition not met: ${what} is not ${state === 'exists' ? 'on the page' : state} after ${timeout} ms.`, {
      retryable: true,
      details: { selector: what, state, timeout },
      recoveryHint: 'Observe the page to see its current state, or give the condition a longer timeout.',
    });
  }
}

const CONDITION_CODES: Record<ElementState, number> = {
  visible: ErrorCodes.ElementNotVisible,
  enabled: ErrorCodes.ElementNotEnabled,
  exists: ErrorCodes.ElementNotFound,
  hidden: ErrorCodes.Timeout,
  disabled: ErrorCodes.Timeout,
};

/** The element's locator; null when a stale ref already proves it gone and gone is what is awaited. */
async function elementOrGone(h: PageHandle, selector: Selector, goneIsFine: boolean): Promise<Locator | null> {
  try {
    return await h.element(selector, 'page/waitFor');
  } catch (error) {
    if (goneIsFine && error instanceof BAPError && error.code === ErrorCodes.ElementNotFound) return null;
    throw error;
  }
}
