import { readdirSync, readFileSync } from 'node:fs';
import type { AgentObserveResult, MethodParams } from '@browseragentprotocol/protocol';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './support/harness.js';
import { css } from './support/observe.js';

// agent/observe lists interactive elements by walking the page (refs `@b…`) unless a snapshot is
// needed anyway; the walk must list exactly what the snapshot's reading lists (refs `@e…`).

let h: Harness;

beforeAll(async () => {
  h = await startHarness({ server: { allowEvaluate: true } });
});

afterAll(async () => {
  await h?.stop();
});

afterEach(async () => {
  const { pages } = await h.client.call('page/list', {});
  await Promise.all(pages.map((page) => h.client.call('page/close', { pageId: page.id })));
});

type ObserveParams = Omit<MethodParams<'agent/observe'>, 'pageId'>;

const observe = (pageId: string, params: ObserveParams = {}): Promise<AgentObserveResult> =>
  h.client.call('agent/observe', { pageId, maxChars: 1_000_000, ...params });

/** Element lines without their refs. */
const unref = (text: string | undefined) => (text ? text.split('\n').map((line) => line.replace(/^@\w+ /, '')) : []);

/** The fixtures without iframes (a page with child frames is always snapshotted). */
const PAGES = readdirSync(new URL('./fixtures/', import.meta.url))
  .filter((name) => name.endsWith('.html') && !/<i?frame\b/i.test(readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8')))
  .sort();

/** [snapshot line, walk line] in document order, where the two name an element differently (docs/agent-observe.md). */
const KNOWN_DIFFERENCES: Record<string, Array<[string, string]>> = {
  'walk-cases.html': [
    // Playwright leaves the link unnamed; accname names it by its image's alt text.
    ['link', 'link "Pictured"'],
    // dom-accessibility-api takes role="none" at its word where ARIA's conflict resolution (a focusable element) keeps the button.
    ['button "Focusable keeps its role"', 'button'],
    // Playwright leaves an aria-hidden button unnamed; accname names it from its content.
    ['button', 'button "Aria-hidden but visible"'],
  ],
};

describe('the walk lists what the snapshot lists', () => {
  it.each(PAGES)('%s', async (name) => {
    const pageId = (await h.client.call('page/create', { url: h.url(name), viewport: { width: 1000, height: 700 } })).id;
    // The page settles (scripts, fonts) before the two readings are compared.
    await h.client.call('page/evaluate', { pageId, expression: 'new Promise((r) => requestAnimationFrame(() => setTimeout(r, 50)))' });
    const walked = await observe(pageId, { includeBounds: true });
    const snapshot = await observe(pageId, { includeBounds: true, includeAccessibility: true });
    for (const line of walked.elements ? walked.elements.split('\n') : []) expect(line).toMatch(/^@b\d+ /);
    // Where dom-accessibility-api names an element differently from Playwright: each pair once, in order.
    const known = [...(KNOWN_DIFFERENCES[name] ?? [])];
    const expected = unref(snapshot.elements).map((line) => {
      const box = / \[box=[^\]]*\]$/.exec(line)?.[0] ?? '';
      if (known[0]?.[0] !== line.slice(0, line.length - box.length)) return line;
      return known.shift()![1] + box;
    });
    expect(known).toEqual([]);
    expect(unref(walked.elements)).toEqual(expected);
    expect(walked.metadata?.focused?.name ?? null).toEqual(snapshot.metadata?.focused?.name ?? null);
  });

  it('covers the hard cases of walk-cases.html', async () => {
    const pageId = (await h.client.call('page/create', { url: h.url('walk-cases.html') })).id;
    const lines = unref((await observe(pageId)).elements);
    for (const line of [
      'link "Data link"',
      'textbox "Password" = "••••••"',
      'textbox "Echo" = "••••••"',
      'combobox "Country" = "Japan"',
      'checkbox "Mixed box" [mixed]',
      'button "In a disabled fieldset" [disabled]',
      'button "Inherits aria-disabled" [disabled]',
      'button "Expanded menu" [expanded]',
      'textbox "Editor"',
      'textbox "Only a placeholder"',
      'generic',
      'strong',
      'button "Visible again"',
      'button "Shadow button"',
      'textbox "Shadow field"',
      'button "Slotted"',
    ]) {
      expect(lines.some((l) => l === line || l.startsWith(`${line} `)), `${line} in:\n${lines.join('\n')}`).toBe(true);
    }
    for (const absent of ['Invisible', 'Display none', 'Zero size', 'No pointer events', 'Inline text only', 'Covered inner', 'No href', 'secret-ish']) {
      expect(lines.join('\n')).not.toContain(absent);
    }
  });
});

describe('walk refs', () => {
  it('act like snapshot refs, stay with their element, and go stale with it', async () => {
    const pageId = (await h.client.call('page/create', { url: h.url('walk-cases.html') })).id;
    const first = await observe(pageId);
    const line = first.elements!.split('\n').find((l) => l.endsWith('button "Expanded menu" [expanded]'))!;
    const ref = line.split(' ')[0]!;
    await h.client.call('page/evaluate', { pageId, expression: "void document.querySelector('[aria-expanded=true]').addEventListener('click', (e) => (e.target.textContent = 'Clicked'))" });
    await h.client.call('action/click', { pageId, selector: { type: 'ref', ref } });
    const second = await observe(pageId, { incremental: true });
    expect(second.changes?.changed).toBe(`${ref} button "Clicked" [expanded]`);
    // A snapshot in between replaces Playwright's refs, not the walk's.
    await h.client.call('observe/ariaSnapshot', { pageId });
    await h.client.call('action/click', { pageId, selector: { type: 'ref', ref } });
    await h.client.call('page/evaluate', { pageId, expression: "document.querySelector('[aria-expanded=true]').remove()" });
    await expect(h.client.call('action/click', { pageId, selector: { type: 'ref', ref }, options: { timeout: 1_000 } })).rejects.toThrow(/stale/);
  });

  it('do not cross into another document', async () => {
    const pageId = (await h.client.call('page/create', { url: h.url('walk-cases.html') })).id;
    const ref = (await observe(pageId)).elements!.split('\n')[0]!.split(' ')[0]!;
    await h.client.call('page/navigate', { pageId, url: h.url('walk-cases.html?again') });
    await expect(h.client.call('action/click', { pageId, selector: { type: 'ref', ref }, options: { timeout: 1_000 } })).rejects.toThrow(/stale/);
    expect(await h.client.call('observe/element', { pageId, selector: css('h1'), properties: ['visible'] })).toBeTruthy();
  });
});
