import { ErrorCodes, type AgentObserveResult, type DialogEvent, type MethodParams, type Selector } from '@browseragentprotocol/protocol';
import { findChromium } from '@browseragentprotocol/server-playwright';
import { chromium } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { expectBAPError } from './support/expectations.js';
import { startHarness, type Harness } from './support/harness.js';
import { css, inspect } from './support/observe.js';

let h: Harness;

beforeAll(async () => {
  h = await startHarness();
});

afterAll(async () => {
  await h?.stop();
});

// A context holds at most 20 pages.
afterEach(async () => {
  const { pages } = await h.client.call('page/list', {});
  await Promise.all(pages.map((page) => h.client.call('page/close', { pageId: page.id })));
});

type ObserveParams = Omit<MethodParams<'agent/observe'>, 'pageId'>;
const SECRETS = ['hunter2-Secret!', '4111111111111111'];

async function open(path: string, viewport = { width: 800, height: 600 }): Promise<string> {
  return (await h.client.call('page/create', { url: h.url(path), viewport })).id;
}

function observe(pageId: string, params: ObserveParams = {}): Promise<AgentObserveResult> {
  return h.client.call('agent/observe', { pageId, ...params });
}

function lines(text: string | undefined): string[] {
  return text ? text.split('\n') : [];
}

/** The line of the element with this role and name (the name is followed by a space, or ends the line). */
function lineOf(text: string | undefined, role: string, name: string): string | undefined {
  const head = `${role} ${JSON.stringify(name)}`;
  return lines(text).find((l) => l.includes(` ${head} `) || l.endsWith(` ${head}`));
}

function refOf(text: string | undefined, role: string, name: string): string {
  const line = lineOf(text, role, name);
  if (!line) throw new Error(`no ${role} "${name}" in:\n${text}`);
  return line.split(' ')[0]!;
}

const ref = (value: string): Selector => ({ type: 'ref', ref: value });

describe('tiers', () => {
  it('interactive (default): metadata and one line per element, with values and states', async () => {
    const pageId = await open('observe-page.html');
    const result = await observe(pageId);
    expect(result.snapshot).toBeUndefined();
    expect(result.interactiveElements).toBeUndefined();
    expect(result.truncated).toBe(false);
    expect(result.metadata).toMatchObject({ pageId, url: h.url('observe-page.html'), title: 'Observe fixture', frameId: 'main', frameCount: 0 });
    const list = lines(result.elements);
    expect(list).toHaveLength(result.elementCount);
    for (const line of list) expect(line).toMatch(/^@[a-z0-9]+ [a-z]+( "|$)/);
    expect(lineOf(result.elements, 'textbox', 'Email')).toMatch(/^@\w+ textbox "Email" = "ada@example\.com"$/);
    expect(lineOf(result.elements, 'combobox', 'Country')).toMatch(/ = "France"$/);
    expect(lineOf(result.elements, 'button', 'Pay now')).toMatch(/ \[disabled\]$/);
    expect(lineOf(result.elements, 'checkbox', 'I accept the terms')).toMatch(/"I accept the terms"$/);
    expect(lineOf(result.elements, 'button', 'Far away')).toBeDefined();
    // Text that is not interactive is left out.
    expect(result.elements).not.toContain('Checkout');
  });

  it('minimal: the same elements without values or states', async () => {
    const pageId = await open('observe-page.html');
    const interactive = await observe(pageId);
    const minimal = await observe(pageId, { responseTier: 'minimal' });
    expect(lines(minimal.elements)).toHaveLength(lines(interactive.elements).length);
    expect(lineOf(minimal.elements, 'textbox', 'Email')).toMatch(/^@\w+ textbox "Email"$/);
    expect(lineOf(minimal.elements, 'button', 'Pay now')).toMatch(/^@\w+ button "Pay now"$/);
    expect(minimal.elements).not.toContain('[');
    expect(minimal.elements).not.toContain(' = ');
    expect(minimal.elements!.length).toBeLessThan(interactive.elements!.length);
  });

  it('full: the snapshot YAML and elements as objects with selector, bounds and hints', async () => {
    const pageId = await open('observe-page.html');
    const result = await observe(pageId, { responseTier: 'full' });
    expect(result.elements).toBeUndefined();
    expect(result.snapshot).toContain('- heading "Checkout" [level=1]');
    expect(result.snapshot).toContain('Fill in your details');
    expect(result.snapshot).not.toContain('[box=');
    const objects = result.interactiveElements!;
    expect(objects).toHaveLength(result.elementCount);
    const email = objects.find((e) => e.role === 'textbox' && e.name === 'Email')!;
    expect(email).toMatchObject({
      selector: { type: 'role', role: 'textbox', name: 'Email', exact: true },
      value: 'ada@example.com',
      actionHints: ['fill', 'type'],
    });
    expect(result.snapshot).toContain(`[ref=${email.ref}]`);
    expect(email.bounds!.width).toBeGreaterThan(20);
    expect(objects.find((e) => e.name === 'I accept the terms')).toMatchObject({ role: 'checkbox', checked: false, actionHints: ['check', 'click'] });
    expect(objects.find((e) => e.name === 'Pay now')).toMatchObject({ disabled: true });
    // Every element's bounds, the one far down the page too, in the viewport's CSS pixels.
    expect(objects.find((e) => e.name === 'Far away')!.bounds!.y).toBeGreaterThan(2_000);
  });

  it('explicit include flags override the tier', async () => {
    const pageId = await open('observe-page.html');
    const withExtras = await observe(pageId, { includeAccessibility: true, includeBounds: true });
    expect(withExtras.snapshot).toContain('- heading "Checkout"');
    for (const line of lines(withExtras.elements)) expect(line).toMatch(/ \[box=-?\d+,-?\d+,\d+,\d+\]$/);

    const fullWithout = await observe(pageId, { responseTier: 'full', includeBounds: false, includeAccessibility: false, includeMetadata: false });
    expect(fullWithout.snapshot).toBeUndefined();
    expect(fullWithout.metadata).toBeUndefined();
    expect(fullWithout.interactiveElements!.every((e) => e.bounds === undefined)).toBe(true);

    const countOnly = await observe(pageId, { includeInteractiveElements: false });
    expect(countOnly.elements).toBeUndefined();
    expect(countOnly.elementCount).toBe(fullWithout.elementCount);
  });
});

describe('selection', () => {
  it('filterRoles keeps only those roles; maxElements cuts in document order after counting', async () => {
    const pageId = await open('observe-page.html');
    const checkboxes = await observe(pageId, { filterRoles: ['checkbox'] });
    expect(lines(checkboxes.elements).map((l) => l.split(' ')[1])).toEqual(['checkbox', 'checkbox']);
    expect(checkboxes.elementCount).toBe(2);

    const all = await observe(pageId);
    const first3 = await observe(pageId, { maxElements: 3 });
    expect(lines(first3.elements)).toEqual(lines(all.elements).slice(0, 3));
    expect(first3.elementCount).toBe(all.elementCount);
  });

  it('viewportOnly lists the elements inside the viewport, wherever it is scrolled', async () => {
    const pageId = await open('observe-page.html');
    const top = await observe(pageId, { viewportOnly: true });
    expect(lineOf(top.elements, 'textbox', 'Email')).toBeDefined();
    expect(lineOf(top.elements, 'button', 'Far away')).toBeUndefined();
    expect(top.elementCount).toBe(lines(top.elements).length);

    await h.client.call('action/scroll', { pageId, options: { direction: 'down', amount: 100_000 } });
    const bottom = await observe(pageId, { viewportOnly: true });
    expect(lineOf(bottom.elements, 'button', 'Far away')).toBeDefined();
    expect(lineOf(bottom.elements, 'textbox', 'Email')).toBeUndefined();
    expect(bottom.metadata!.scroll.y).toBeGreaterThan(1_000);
  });

  it('observes the frame frame/switch made current', async () => {
    const pageId = (await h.client.call('page/create', { url: h.iframePageUrl() })).id;
    const page = await observe(pageId);
    expect(page.metadata!.frameCount).toBe(2);
    expect(lineOf(page.elements, 'button', 'Press same')).toBeDefined();

    await h.client.call('frame/switch', { pageId, selector: css('#same') });
    const frame = await observe(pageId);
    expect(frame.metadata).toMatchObject({ url: expect.stringContaining('frame.html?name=same'), title: 'Frame fixture' });
    expect(frame.metadata!.frameId).not.toBe('main');
    expect(lines(frame.elements).map((l) => l.replace(/^@\w+ /, ''))).toEqual(['button "Press same"', 'textbox "Frame note"']);
    await h.client.call('action/click', { pageId, selector: ref(refOf(frame.elements, 'button', 'Press same')) });
    expect(lineOf((await observe(pageId)).elements, 'button', 'Pressed same')).toBeDefined();
  });
});

describe('metadata', () => {
  it('names the page, viewport, scroll and focused element', async () => {
    const pageId = await open('observe-page.html');
    const before = await observe(pageId);
    expect(before.metadata).toMatchObject({
      contextId: expect.any(String),
      viewport: { width: 800, height: 600 },
      scroll: { x: 0, y: 0, width: 800 },
      focused: null,
      dialogs: [],
    });
    expect(before.metadata!.scroll.height).toBeGreaterThan(2_000);

    const email = refOf(before.elements, 'textbox', 'Email');
    await h.client.call('action/click', { pageId, selector: ref(email) });
    const after = await observe(pageId);
    expect(after.metadata!.focused).toEqual({ ref: email, role: 'textbox', name: 'Email' });
  });

  it('lists a dialog waiting for dialog/handle, without waiting for it', async () => {
    const client = await h.newClient();
    await client.call('events/subscribe', { events: ['dialog'] });
    const dialogs: DialogEvent[] = [];
    client.on('events/dialog', (event) => dialogs.push(event));
    const { id: pageId } = await client.call('page/create', { url: h.url('dialogs-buttons.html') });
    await client.call('dialog/setPolicy', { pageId, policy: 'queue' });
    await client.call('action/click', { pageId, selector: { type: 'role', role: 'button', name: 'Ask later' } });
    await expect.poll(() => dialogs.length).toBe(1);

    const started = Date.now();
    const result = await client.call('agent/observe', { pageId });
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(result.metadata).toMatchObject({ title: 'Dialogs fixture', dialogs: [{ type: 'confirm', message: 'Still there?' }] });
    expect(result.elements).toBeUndefined();

    await client.call('dialog/handle', { pageId, action: 'accept' });
    const answered = await client.call('agent/observe', { pageId });
    expect(answered.metadata!.dialogs).toEqual([]);
    expect(lineOf(answered.elements, 'button', 'Ask later')).toBeDefined();
  });
});

describe('secrets', () => {
  it('password and card values appear in no tier, snapshot or change', async () => {
    const pageId = await open('observe-page.html');
    await observe(pageId);
    await h.client.call('action/fill', { pageId, selector: css('#password'), value: SECRETS[0]! });
    await h.client.call('action/fill', { pageId, selector: css('#card'), value: SECRETS[1]! });
    const results = [
      await observe(pageId, { incremental: true }),
      await observe(pageId),
      await observe(pageId, { responseTier: 'minimal' }),
      await observe(pageId, { responseTier: 'full', includeAccessibility: true }),
    ];
    expect(results[0]!.changes!.changed).toContain('textbox "Password" = "••••••"');
    for (const result of results) {
      const json = JSON.stringify(result);
      for (const secret of SECRETS) expect(json).not.toContain(secret);
    }
    expect(results[3]!.interactiveElements!.find((e) => e.name === 'Card number')!.value).toBe('••••••');
  });
});

describe('incremental', () => {
  it('returns only what changed since the last observation of the page', async () => {
    const pageId = await open('observe-page.html');
    const first = await observe(pageId, { incremental: true });
    expect(first.changes).toBeUndefined();
    expect(lines(first.elements).length).toBe(first.elementCount);

    await h.client.call('action/click', { pageId, selector: ref(refOf(first.elements, 'button', 'Show options')) });
    const next = await observe(pageId, { incremental: true });
    expect(next.elements).toBeUndefined();
    expect(next.elementCount).toBe(first.elementCount + 1);
    expect(next.changes!.added).toMatch(/^@\w+ button "Gift wrap"$/);
    expect(next.changes!.changed).toBe(`${refOf(first.elements, 'checkbox', 'Express delivery')} checkbox "Express delivery" [checked]`);
    expect(next.changes!.removed).toEqual([]);

    const banner = refOf(first.elements, 'button', 'Close banner');
    await h.client.call('action/click', { pageId, selector: ref(banner) });
    const after = await observe(pageId, { incremental: true });
    expect(after.changes).toEqual({ added: '', changed: '', removed: [banner] });

    // The full tier reads a snapshot, whose refs differ from the walk's: no baseline of its kind yet.
    const full = await observe(pageId, { incremental: true, responseTier: 'full' });
    expect(full.changes).toBeUndefined();
    expect(full.interactiveElements).toHaveLength(after.elementCount);
    expect((await observe(pageId, { incremental: true, responseTier: 'full' })).changes).toEqual({ added: '', changed: '', removed: [] });
  });

  it('in the full tier, lists only added and changed elements as objects', async () => {
    const pageId = await open('observe-page.html');
    await observe(pageId, { responseTier: 'full' });
    await h.client.call('action/click', { pageId, selector: css('#reveal') });
    const result = await observe(pageId, { responseTier: 'full', incremental: true });
    expect(result.interactiveElements!.map((e) => [e.role, e.name])).toEqual([
      ['button', 'Gift wrap'],
      ['checkbox', 'Express delivery'],
    ]);
    expect(result.snapshot).toContain('Gift wrap');
  });

  it('starts over with the whole list after the page loads a new document', async () => {
    const pageId = await open('observe-page.html');
    const before = await observe(pageId);
    await h.client.call('page/reload', { pageId });
    const after = await observe(pageId, { incremental: true });
    expect(after.changes).toBeUndefined();
    expect(lines(after.elements)).toHaveLength(before.elementCount);
  });
});

describe('a catalog of 750 interactive elements', () => {
  it('lists every element with a working ref, in under 35% of the characters of Playwright’s AI snapshot', async () => {
    const pageId = await open('observe-catalog.html', { width: 1280, height: 720 });
    const result = await observe(pageId);
    const list = lines(result.elements);
    expect(result.truncated).toBe(false);
    expect(list).toHaveLength(750);
    expect(result.elementCount).toBe(750);
    const refs = list.map((l) => l.split(' ')[0]!);
    expect(new Set(refs).size).toBe(750);
    for (const role of ['link', 'button', 'checkbox']) expect(list.filter((l) => l.split(' ')[1] === role)).toHaveLength(250);

    const yaml = await playwrightSnapshot(h.url('observe-catalog.html'));
    expect(JSON.stringify(result).length).toBeLessThanOrEqual(0.35 * yaml.length);

    const buttons = list.filter((l) => l.includes(' button ')).map((l) => l.split(' ')[0]!);
    for (const button of [buttons[0]!, buttons[124]!, buttons[249]!]) await h.client.call('action/click', { pageId, selector: ref(button) });
    const links = list.filter((l) => l.includes(' link ')).map((l) => l.split(' ')[0]!);
    await h.client.call('action/click', { pageId, selector: ref(links[249]!) });
    const checkbox = list.filter((l) => l.includes(' checkbox ')).map((l) => l.split(' ')[0]!)[42]!;
    await h.client.call('action/check', { pageId, selector: ref(checkbox) });
    expect(await inspect(h.client, ref(checkbox), pageId)).toMatchObject({ checked: true });

    const after = await observe(pageId, { filterRoles: ['button', 'checkbox'] });
    expect(lines(after.elements).filter((l) => l.endsWith('button "Added"'))).toHaveLength(3);
    expect(lineOf(after.elements, 'checkbox', 'Compare')).toBeDefined();
    expect(after.elements).toContain(`${checkbox} checkbox "Compare" [checked]`);
    expect(after.metadata!.url).toBe(`${h.url('observe-catalog.html')}#product-250`);
  });

  it('a small budget cuts at whole lines; the cursors return every element exactly once', async () => {
    const pageId = await open('observe-catalog.html', { width: 1280, height: 720 });
    const whole = lines((await observe(pageId)).elements);
    let result = await observe(pageId, { maxChars: 5_000 });
    expect(result.truncated).toBe(true);
    expect(result.metadata).toBeDefined();
    const seen: string[] = [];
    let slices = 0;
    for (;;) {
      slices++;
      expect(JSON.stringify(result).length).toBeLessThanOrEqual(5_000);
      seen.push(...lines(result.elements));
      if (!result.truncated) break;
      expect(result.cursor).toMatch(/\S/);
      result = await observe(pageId, { cursor: result.cursor });
      expect(result.metadata).toBeUndefined();
      expect(result.elementCount).toBe(750);
    }
    expect(result.cursor).toBeUndefined();
    expect(seen).toEqual(whole);
    expect(slices).toBeGreaterThan(4);

    const tokens = await observe(pageId, { maxTokens: 1_250 });
    expect(JSON.stringify(tokens).length).toBeLessThanOrEqual(5_000);
    expect(tokens.truncated).toBe(true);
  });

  it('the full tier cuts the objects and the snapshot; reassembled, they equal an uncut observation', async () => {
    const pageId = await open('observe-catalog.html', { width: 1280, height: 720 });
    const uncut = await observe(pageId, { responseTier: 'full', maxChars: 5_000_000 });
    expect(uncut.truncated).toBe(false);
    let result = await observe(pageId, { responseTier: 'full' });
    const snapshot: string[] = [];
    const objects: unknown[] = [];
    for (;;) {
      expect(JSON.stringify(result).length).toBeLessThanOrEqual(40_000);
      snapshot.push(...lines(result.snapshot));
      objects.push(...(result.interactiveElements ?? []));
      if (!result.cursor) break;
      result = await observe(pageId, { cursor: result.cursor });
    }
    expect(objects).toEqual(uncut.interactiveElements);
    expect(snapshot.join('\n')).toBe(uncut.snapshot);
  });
});

describe('budget and cursors', () => {
  it('metadata over the budget is still returned, with the elements behind a cursor', async () => {
    const title = 'T'.repeat(800);
    const { id: pageId } = await h.client.call('page/create', { url: h.url(`inline?html=${encodeURIComponent(`<title>${title}</title><button>Only</button>`)}`) });
    const first = await observe(pageId, { maxChars: 500 });
    expect(first).toMatchObject({ metadata: { title }, truncated: true });
    expect(first.elements).toBeUndefined();
    const rest = await observe(pageId, { cursor: first.cursor });
    expect(rest).toMatchObject({ elements: expect.stringMatching(/^@\w+ button "Only"$/), truncated: false });
  });

  it('a line longer than a slice is shortened to fit, and the cursor goes on after it', async () => {
    const page = `<title>Notes</title><textarea aria-label="Notes" id="t"></textarea><button>Save</button><script>t.value = 'x'.repeat(3000)</script>`;
    const { id: pageId } = await h.client.call('page/create', { url: h.url(`inline?html=${encodeURIComponent(page)}`) });
    const first = await observe(pageId, { maxChars: 700 });
    expect(JSON.stringify(first).length).toBeLessThanOrEqual(700);
    expect(first.elements).toMatch(/^@\w+ textbox "Notes" = "x+…$/);
    expect(first.truncated).toBe(true);
    const rest = await observe(pageId, { cursor: first.cursor });
    expect(rest).toMatchObject({ elements: expect.stringMatching(/^@\w+ button "Save"$/), truncated: false });
  });

  it('the screenshot is returned whole and not counted against the budget', async () => {
    const pageId = await open('observe-page.html');
    const result = await observe(pageId, { includeScreenshot: true, maxChars: 2_000 });
    expect(result.truncated).toBe(false);
    expect(result.screenshot).toMatchObject({ format: 'png', width: 800, height: 600 });
    expect(result.screenshot!.data.length).toBeGreaterThan(2_000);
    expect(result.annotations).toBeUndefined();
  });

  it('annotateScreenshot returns the set-of-marks image and its labels beside it', async () => {
    const pageId = await open('observe-page.html');
    const result = await observe(pageId, { annotateScreenshot: { filter: { maxLabels: 5 } } });
    expect(result.screenshot).toMatchObject({ format: 'png', width: 800, height: 600 });
    expect(result.screenshot).not.toHaveProperty('annotations');
    expect(result.annotations!.length).toBeGreaterThan(0);
    const refs = new Set(lines(result.elements).map((l) => l.split(' ')[0]));
    for (const annotation of result.annotations!) expect(refs.has(annotation.ref), annotation.ref).toBe(true);
  });

  it('an unknown cursor, or one of another page, is -32602 naming params.cursor', async () => {
    const pageId = await open('observe-catalog.html');
    const { error } = await expectBAPError(() => observe(pageId, { cursor: 'o999.0.0' }), ErrorCodes.InvalidParams);
    expect(error.message).toContain('params.cursor');
    expect(error.recoveryHint).toMatch(/agent\/observe/);

    const cut = await observe(pageId, { maxChars: 1_000 });
    const other = await open('observe-page.html');
    await expectBAPError(() => observe(other, { cursor: cut.cursor }), ErrorCodes.InvalidParams);
    await expectBAPError(() => observe(pageId, { cursor: `${cut.cursor}9999` }), ErrorCodes.InvalidParams);
  });
});

/** Playwright's own AI snapshot of a page, in a browser of its own. */
async function playwrightSnapshot(url: string): Promise<string> {
  const browser = await chromium.launch({ executablePath: findChromium(), args: process.getuid?.() === 0 ? ['--no-sandbox'] : [] });
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
    await page.goto(url);
    return await page.ariaSnapshot({ mode: 'ai' });
  } finally {
    await browser.close();
  }
}
