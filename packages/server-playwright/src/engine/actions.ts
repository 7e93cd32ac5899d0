import type { Locator, Page } from 'playwright-core';
import {
  BAPError,
  ErrorCodes,
  describeSelector,
  type MethodName,
  type ParsedParams,
  type Selector,
} from '@browseragentprotocol/protocol';
import { defined, toBAPError } from './errors.js';
import type { PageHandle } from './pageHandle.js';
import { fastAllowed, fastPointer, fastSelect, fastTarget, fastText, insertText, timeLeft } from './fastActions.js';
import { focusIsSensitive, isSensitiveField, learnSecret } from './secrets.js';

type P<M extends MethodName> = ParsedParams<M>;

/** Runs one action and reports Playwright's failure as the protocol error that explains it. */
async function act<T>(action: string, selector: Selector | undefined, timeout: number | undefined, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    const context: { action: string; selector?: string; timeout?: number } = { action };
    if (selector) context.selector = describeSelector(selector);
    if (timeout !== undefined) context.timeout = timeout;
    throw toBAPError(error, context);
  }
}

const timeoutOf = (h: PageHandle, options?: { timeout?: number | undefined }) => options?.timeout ?? h.timeouts.action;

export async function click(h: PageHandle, p: P<'action/click'>, count: 1 | 2 = 1): Promise<object> {
  const name = count === 2 ? 'action/dblclick' : 'action/click';
  const target = await h.target(p.selector);
  const { timeout: _t, ...options } = defined(p.options);
  const timeout = timeoutOf(h, p.options);
  await act(name, p.selector, timeout, async () => {
    const mouse = defined({ button: options.button, delay: options.delay });
    const at = ({ x, y }: { x: number; y: number }) =>
      count === 2 ? h.page.mouse.dblclick(x, y, mouse) : h.page.mouse.click(x, y, { ...mouse, clickCount: options.clickCount ?? 1 });
    if (target.kind === 'point') return at(target);
    const left = timeLeft(timeout);
    if (fastAllowed(h, name, options, ['button', 'clickCount', 'delay', 'noWaitAfter'])) {
      // Playwright's click waits for a navigation it started; its dblclick does not.
      const awaitNavigation = count === 1 && !options.noWaitAfter;
      const fast = { action: name, kind: 'click', timeout, input: at, awaitNavigation, navigationTimeout: h.timeouts.navigation } as const;
      if (await fastPointer(h, fastTarget(h, p.selector, target.locator), fast)) return;
    }
    if (count === 2) {
      const { clickCount: _c, ...rest } = options;
      await target.locator.dblclick({ ...rest, timeout: left() });
    } else {
      await target.locator.click({ ...options, timeout: left() });
    }
  });
  return {};
}

export async function type(h: PageHandle, p: P<'action/type'>): Promise<object> {
  const target = await h.target(p.selector);
  const timeout = timeoutOf(h, p.options);
  await act('action/type', p.selector, timeout, async () => {
    // A secret is inserted in one go: typed key by key, a page echoing each keystroke would show its prefixes.
    const secret = (sensitive: boolean) => sensitive || h.guards.redactor.scrub(p.text) !== p.text;
    const write = (sensitive: boolean) =>
      secret(sensitive) ? h.page.keyboard.insertText(p.text) : h.page.keyboard.type(p.text, defined({ delay: p.options?.delay }));
    if (target.kind === 'point') {
      await h.page.mouse.click(target.x, target.y);
      const sensitive = await focusIsSensitive(h.page);
      if (sensitive) learnSecret(h.guards.redactor, p.text);
      if (p.options?.clear) await selectAllAndDelete(h.page);
      return write(sensitive);
    }
    const left = timeLeft(timeout);
    const fast = {
      action: 'action/type',
      kind: 'type',
      timeout,
      clear: !!p.options?.clear,
      write: async (sensitive: boolean) => {
        if (sensitive) learnSecret(h.guards.redactor, p.text);
        // The probe selected the content to clear: Playwright's clear deletes a selection the same way.
        if (p.options?.clear) await h.page.keyboard.press('Delete');
        await write(sensitive);
      },
    } as const;
    if (fastAllowed(h, 'action/type', {}, []) && (await fastText(h, fastTarget(h, p.selector, target.locator), fast))) return;
    const sensitive = await learnIfSensitive(h, target.locator, p.text, left());
    if (p.options?.clear) await target.locator.clear({ timeout: left() });
    if (secret(sensitive)) {
      await target.locator.focus({ timeout: left() });
      await h.page.keyboard.insertText(p.text);
    } else {
      await target.locator.pressSequentially(p.text, defined({ delay: p.options?.delay, timeout: left() }));
    }
  });
  return {};
}

/**
 * Registers `value` with the redactor when the element is a password or card field, before it
 * is written, so nothing the page does with it (events, requests, traces) can carry it out.
 * Returns whether it is. (The fast path learns it from its probe instead.)
 */
async function learnIfSensitive(h: PageHandle, locator: Locator, value: string, timeout: number): Promise<boolean> {
  const sensitive = await isSensitiveField(locator, timeout);
  if (sensitive) learnSecret(h.guards.redactor, value);
  return sensitive;
}

async function selectAllAndDelete(page: Page): Promise<void> {
  await page.keyboard.press('ControlOrMeta+a');
  await page.keyboard.press('Delete');
}

export async function fill(h: PageHandle, p: P<'action/fill'>): Promise<object> {
  const locator = await h.element(p.selector, 'action/fill');
  const timeout = timeoutOf(h, p.options);
  await act('action/fill', p.selector, timeout, async () => {
    const left = timeLeft(timeout);
    const fast = {
      action: 'action/fill',
      kind: 'fill',
      timeout,
      value: p.value,
      // The probe selected the field's content: what is written next replaces it, as Playwright's fill does.
      write: async (sensitive: boolean) => {
        if (sensitive) learnSecret(h.guards.redactor, p.value);
        if (p.value) await insertText(h, p.value);
        else await h.page.keyboard.press('Delete');
      },
    } as const;
    if (fastAllowed(h, 'action/fill', defined({ force: p.options?.force }), []) && (await fastText(h, fastTarget(h, p.selector, locator), fast))) return;
    await learnIfSensitive(h, locator, p.value, left());
    await locator.fill(p.value, defined({ force: p.options?.force, timeout: left() }));
  });
  return {};
}

export async function clear(h: PageHandle, p: P<'action/clear'>): Promise<object> {
  const locator = await h.element(p.selector, 'action/clear');
  const timeout = timeoutOf(h, p.options);
  await act('action/clear', p.selector, timeout, () => locator.clear(defined({ force: p.options?.force, timeout })));
  return {};
}

export async function press(h: PageHandle, p: P<'action/press'>): Promise<object> {
  const timeout = timeoutOf(h, p.options);
  const delay = defined({ delay: p.options?.delay });
  if (!p.selector) {
    await act('action/press', undefined, timeout, () => h.page.keyboard.press(p.key, delay));
    return {};
  }
  const target = await h.target(p.selector);
  await act('action/press', p.selector, timeout, async () => {
    if (target.kind === 'point') {
      await h.page.mouse.click(target.x, target.y);
      await h.page.keyboard.press(p.key, delay);
    } else {
      await target.locator.press(p.key, { ...delay, timeout });
    }
  });
  return {};
}

export async function hover(h: PageHandle, p: P<'action/hover'>): Promise<object> {
  const target = await h.target(p.selector);
  const timeout = timeoutOf(h, p.options);
  await act('action/hover', p.selector, timeout, async () => {
    if (target.kind === 'point') return h.page.mouse.move(target.x, target.y);
    const { timeout: _t, ...options } = defined(p.options);
    const left = timeLeft(timeout);
    if (fastAllowed(h, 'action/hover', options, ['noWaitAfter'])) {
      const input = ({ x, y }: { x: number; y: number }) => h.page.mouse.move(x, y);
      const fast = { action: 'action/hover', kind: 'hover', timeout, input, awaitNavigation: false, navigationTimeout: 0 } as const;
      if (await fastPointer(h, fastTarget(h, p.selector, target.locator), fast)) return;
    }
    await target.locator.hover({ ...options, timeout: left() });
  });
  return {};
}

export async function scroll(h: PageHandle, p: P<'action/scroll'>): Promise<{ scrollX: number; scrollY: number }> {
  const timeout = timeoutOf(h, p.options);
  const direction = p.options?.direction;
  const amount = p.options?.amount;
  const locator = p.selector ? await h.element(p.selector, 'action/scroll') : null;
  // Without a selector, the current frame's window scrolls, and its position is what comes back.
  const frame = h.frames.current();
  return act('action/scroll', p.selector, timeout, async () => {
    if (locator && (amount === 'toElement' || direction === undefined)) {
      await locator.scrollIntoViewIfNeeded({ timeout });
      return frame.evaluate(() => ({ scrollX: window.scrollX, scrollY: window.scrollY }));
    }
    if (amount === 'toElement') {
      throw new BAPError(ErrorCodes.InvalidParams, 'options.amount: "toElement" needs a selector.');
    }
    const args = { direction: direction ?? 'down', amount: amount ?? 'page' };
    // Runs in the page: the root element stands for the window.
    const scrollBy = (el: Element, a: typeof args) => {
      const win = el === document.documentElement;
      const vertical = a.direction === 'up' || a.direction === 'down';
      const page = vertical ? (win ? window.innerHeight : el.clientHeight) : win ? window.innerWidth : el.clientWidth;
      const distance = (a.amount === 'page' ? page : a.amount) * (a.direction === 'up' || a.direction === 'left' ? -1 : 1);
      const delta = { left: vertical ? 0 : distance, top: vertical ? distance : 0, behavior: 'instant' as ScrollBehavior };
      if (win) window.scrollBy(delta);
      else el.scrollBy(delta);
      return win ? { scrollX: window.scrollX, scrollY: window.scrollY } : { scrollX: el.scrollLeft, scrollY: el.scrollTop };
    };
    return (locator ?? frame.locator(':root')).evaluate(scrollBy, args, { timeout });
  });
}

export async function select(h: PageHandle, p: P<'action/select'>): Promise<{ selected: string[] }> {
  const locator = await h.element(p.selector, 'action/select');
  const timeout = timeoutOf(h, p.options);
  const values = Array.isArray(p.values) ? p.values : [p.values];
  const selected = await act('action/select', p.selector, timeout, async () => {
    const left = timeLeft(timeout);
    if (fastAllowed(h, 'action/select', defined({ force: p.options?.force }), [])) {
      const fast = await fastSelect(h, fastTarget(h, p.selector, locator), { action: 'action/select', values, timeout });
      if (fast) return fast;
    }
    return locator.selectOption(values, defined({ force: p.options?.force, timeout: left() }));
  });
  return { selected };
}

export async function check(h: PageHandle, p: P<'action/check'>, checked: boolean): Promise<object> {
  const name = checked ? 'action/check' : 'action/uncheck';
  const locator = await h.element(p.selector, name);
  const timeout = timeoutOf(h, p.options);
  const { timeout: _t, ...options } = defined(p.options);
  await act(name, p.selector, timeout, async () => {
    const left = timeLeft(timeout);
    if (fastAllowed(h, name, options, ['noWaitAfter'])) {
      const input = ({ x, y }: { x: number; y: number }) => h.page.mouse.click(x, y);
      const fast = await fastPointer(h, fastTarget(h, p.selector, locator), { action: name, kind: 'check', checked, timeout, input, awaitNavigation: false, navigationTimeout: 0 });
      // Playwright's words for a click the page undid, so both paths fail alike.
      if (fast?.checked === !checked) throw new Error('Clicking the checkbox did not change its state');
      if (fast) return;
    }
    const rest = { ...options, timeout: left() };
    await (checked ? locator.check(rest) : locator.uncheck(rest));
  });
  return {};
}

export async function drag(h: PageHandle, p: P<'action/drag'>): Promise<object> {
  const source = await h.target(p.source);
  const timeout = timeoutOf(h, p.options);
  const target = 'type' in p.target ? await h.target(p.target) : ({ kind: 'point', ...p.target } as const);
  await act('action/drag', p.source, timeout, async () => {
    if (source.kind === 'element' && target.kind === 'element') {
      await source.locator.dragTo(target.locator, { ...defined(p.options), timeout });
      return;
    }
    const from = source.kind === 'point' ? source : await center(source.locator, timeout);
    const to = target.kind === 'point' ? target : await center(target.locator, timeout);
    await h.page.mouse.move(from.x, from.y);
    await h.page.mouse.down();
    await h.page.mouse.move(to.x, to.y, { steps: 8 });
    await h.page.mouse.up();
  });
  return {};
}

async function center(locator: Locator, timeout: number): Promise<{ x: number; y: number }> {
  await locator.scrollIntoViewIfNeeded({ timeout });
  const box = await locator.boundingBox({ timeout });
  if (!box) throw new BAPError(ErrorCodes.ElementNotVisible, 'Element has no box to drag from or to.');
  return { x: box.x + box.width / 2, y: box.y + box.height / 2 };
}
