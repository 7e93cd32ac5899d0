import type { AccessibilityNode, Selector } from '@browseragentprotocol/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './support/harness.js';
import { imageSize } from './support/images.js';
import { css, inspect } from './support/observe.js';
import { snapshotLines } from './support/snapshots.js';

let h: Harness;

beforeAll(async () => {
  h = await startHarness();
});

afterAll(async () => {
  await h?.stop();
});

async function open(path: string, viewport = { width: 800, height: 600 }): Promise<string> {
  return (await h.client.call('page/create', { url: h.url(path), viewport })).id;
}

function walk(node: AccessibilityNode, visit: (node: AccessibilityNode, depth: number) => void, depth = 0): void {
  visit(node, depth);
  for (const child of node.children ?? []) walk(child, visit, depth + 1);
}

function nodes(tree: AccessibilityNode): AccessibilityNode[] {
  const all: AccessibilityNode[] = [];
  walk(tree, (node) => all.push(node));
  return all;
}

describe('observe/screenshot', () => {
  it('captures the viewport as PNG, JPEG and WebP with the size the header says', async () => {
    const pageId = await open('form.html');
    for (const format of ['png', 'jpeg', 'webp'] as const) {
      const shot = await h.client.call('observe/screenshot', { pageId, options: { format, quality: format === 'png' ? undefined : 60 } });
      const bytes = Buffer.from(shot.data, 'base64');
      expect(shot.format).toBe(format);
      expect(imageSize(bytes), format).toEqual({ format, width: 800, height: 600 });
      expect({ width: shot.width, height: shot.height }).toEqual({ width: 800, height: 600 });
    }
  });

  it('defaults to PNG', async () => {
    const pageId = await open('list.html', { width: 640, height: 480 });
    const shot = await h.client.call('observe/screenshot', { pageId });
    expect(imageSize(Buffer.from(shot.data, 'base64'))).toEqual({ format: 'png', width: 640, height: 480 });
  });

  it('captures the full page, a clip, and a single element', async () => {
    const pageId = await open('scroll.html');
    const full = await h.client.call('observe/screenshot', { pageId, options: { fullPage: true } });
    const fullSize = imageSize(Buffer.from(full.data, 'base64'));
    expect(fullSize.width).toBe(800);
    expect(fullSize.height).toBeGreaterThan(5_000);
    expect(full.height).toBe(fullSize.height);

    const clip = await h.client.call('observe/screenshot', { pageId, options: { clip: { x: 10, y: 20, width: 300, height: 150 }, format: 'jpeg' } });
    expect(imageSize(Buffer.from(clip.data, 'base64'))).toEqual({ format: 'jpeg', width: 300, height: 150 });

    const box = (await inspect(h.client, css('#box'), pageId)).boundingBox!;
    const element = await h.client.call('observe/screenshot', { pageId, selector: css('#box'), options: { format: 'webp' } });
    const elementSize = imageSize(Buffer.from(element.data, 'base64'));
    expect(elementSize.format).toBe('webp');
    expect(Math.abs(elementSize.width - box.width)).toBeLessThanOrEqual(1);
    expect(Math.abs(elementSize.height - box.height)).toBeLessThanOrEqual(1);
    expect({ width: element.width, height: element.height }).toEqual({ width: elementSize.width, height: elementSize.height });
  });

  it('masks elements and still returns a valid image', async () => {
    const pageId = await open('form.html');
    const shot = await h.client.call('observe/screenshot', { pageId, options: { mask: [css('#password'), { type: 'label', value: 'PIN' }], scale: 'css' } });
    expect(imageSize(Buffer.from(shot.data, 'base64'))).toEqual({ format: 'png', width: 800, height: 600 });
  });
});

describe('observe/ariaSnapshot and observe/accessibility', () => {
  it('observe/ariaSnapshot returns YAML with @refs and a ref count', async () => {
    const pageId = await open('form.html');
    const result = await h.client.call('observe/ariaSnapshot', { pageId });
    expect(result).toMatchObject({ pageId, url: h.url('form.html'), title: 'Form fixture' });
    expect(result.snapshot).toContain('- heading "Sign up" [level=1]');
    const lines = snapshotLines(result.snapshot);
    expect(lines.length).toBeGreaterThan(10);
    for (const line of lines) expect(line.ref, line.line).toMatch(/^@[a-z0-9]+$/);
    expect(result.refCount).toBe(new Set(lines.map((l) => l.ref)).size);
    expect(lines.find((l) => l.role === 'textbox' && l.name === 'Full name')).toBeDefined();
    expect(lines.find((l) => l.role === 'button' && l.name === 'Unavailable')?.line).toContain('[disabled]');
  });

  it('observe/ariaSnapshot of one element holds only its subtree, and includeTree adds the JSON tree', async () => {
    const pageId = await open('list.html');
    const table = await h.client.call('observe/ariaSnapshot', { pageId, selector: css('#prices'), options: { includeTree: true } });
    expect(table.snapshot).toContain('Apple');
    expect(table.snapshot).toContain('1.20');
    expect(table.snapshot).not.toContain('Groceries');
    expect(table.tree).toBeDefined();
    expect(nodes(table.tree!).some((n) => n.role === 'cell' && n.name === 'Apple')).toBe(true);
  });

  it('observe/ariaSnapshot with refs: false prints the plain ARIA snapshot', async () => {
    const pageId = await open('form.html');
    const plain = await h.client.call('observe/ariaSnapshot', { pageId, options: { refs: false } });
    expect(plain.snapshot).toContain('- button "Submit"\n');
    expect(plain.snapshot).not.toMatch(/\[ref=|\[cursor=/);
    expect(plain.refCount).toBeGreaterThan(0);
  });

  it('observe/accessibility returns the tree with ARIA roles, states and refs', async () => {
    const pageId = await open('form.html');
    await h.client.call('action/check', { pageId, selector: { type: 'role', role: 'checkbox', name: 'I accept the terms' } });
    const result = await h.client.call('observe/accessibility', { pageId });
    expect(result).toMatchObject({ pageId, url: h.url('form.html'), title: 'Form fixture' });
    expect(result.snapshot).toContain('[ref=@');
    expect(result.tree).toBeDefined();
    const all = nodes(result.tree!);
    const find = (role: string, name: string) => all.find((n) => n.role === role && n.name === name);

    expect(find('heading', 'Sign up')).toMatchObject({ level: 1 });
    expect(find('textbox', 'Full name')?.ref).toMatch(/^@/);
    expect(find('checkbox', 'I accept the terms')).toMatchObject({ checked: true });
    expect(find('checkbox', 'Send me news')).toMatchObject({ checked: true });
    expect(find('button', 'Unavailable')).toMatchObject({ disabled: true });
    expect(find('combobox', 'Country')).toBeDefined();
    expect(find('listbox', 'Favourite colours')).toBeDefined();
    expect(find('radio', 'Free plan')).toMatchObject({ checked: true });
    // ARIA roles, never tag names (a defect of the published implementation).
    const tagNames = ['input', 'select', 'textarea', 'div', 'span', 'form', 'label', 'ul', 'li', 'p', 'h1'];
    expect(all.filter((n) => tagNames.includes(n.role)).map((n) => n.role)).toEqual([]);
  });

  it('observe/accessibility honours maxDepth and root', async () => {
    const pageId = await open('list.html');
    const depthOf = (tree: AccessibilityNode) => {
      let max = 0;
      walk(tree, (_, depth) => (max = Math.max(max, depth)));
      return max;
    };
    const full = await h.client.call('observe/accessibility', { pageId });
    const shallow = await h.client.call('observe/accessibility', { pageId, options: { maxDepth: 1 } });
    expect(depthOf(shallow.tree!)).toBeLessThan(depthOf(full.tree!));

    const steps = await h.client.call('observe/accessibility', { pageId, options: { root: css('#steps') } });
    const names = nodes(steps.tree!).map((n) => n.name ?? n.text ?? '');
    expect(names.join(' ')).toContain('Peel');
    expect(names.join(' ')).not.toContain('Banana');
  });
});

describe('observe/console', () => {
  it("returns the page's console messages, oldest first, from a level up", async () => {
    const pageId = await open('console.html');
    await h.client.call('action/click', { pageId, selector: css('#log-button') });
    await expect.poll(async () => (await h.client.call('observe/console', { pageId })).messages.length).toBe(7);
    const all = await h.client.call('observe/console', { pageId });
    expect(all).toMatchObject({ pageId, dropped: 0 });
    expect(all.messages.map((m) => `${m.level}: ${m.text}`)).toEqual([
      'log: load log message',
      'debug: load debug message',
      'info: load info message',
      'warn: load warn message',
      'error: load error message',
      'log: click log 1',
      'error: click error 1',
    ]);
    expect(all.messages[0]).toMatchObject({ url: h.url('console.html'), line: expect.any(Number), timestamp: expect.any(Number) });
    const errors = await h.client.call('observe/console', { pageId, level: 'error' });
    expect(errors.messages.map((m) => m.text)).toEqual(['load error message', 'click error 1']);
    expect((await h.client.call('observe/console', { pageId, level: 'info' })).messages).toHaveLength(6);
  });

  it('keeps the last 1,000 messages of a page and counts those dropped', async () => {
    const pageId = await open('console-burst.html?n=1200');
    await h.client.call('action/click', { pageId, selector: css('#burst') });
    await h.client.call('page/waitFor', { pageId, text: 'logged 1200' });
    await expect.poll(async () => (await h.client.call('observe/console', { pageId })).dropped).toBe(200);
    const { messages } = await h.client.call('observe/console', { pageId });
    expect(messages).toHaveLength(1_000);
    expect([messages[0]!.text, messages.at(-1)!.text]).toEqual(['burst 200', 'burst 1199']);
  });
});

describe('observe/dom, observe/element, observe/content', () => {
  it('observe/dom returns the HTML and text of the page or of one element', async () => {
    const pageId = await open('list.html');
    const page = await h.client.call('observe/dom', { pageId });
    expect(page).toMatchObject({ url: h.url('list.html'), title: 'List fixture', truncated: false });
    expect(page.html).toContain('<table id="prices">');
    expect(page.text).toContain('Groceries');

    const table = await h.client.call('observe/dom', { pageId, options: { root: css('#prices') } });
    expect(table.html).toMatch(/^<table/);
    expect(table.html).not.toContain('Groceries');
    expect(table.text).toContain('Banana');

    const cut = await h.client.call('observe/dom', { pageId, options: { maxLength: 100 } });
    expect(cut.truncated).toBe(true);
    expect(cut.html.length).toBeLessThanOrEqual(100);
  });

  it('observe/element describes one element', async () => {
    const pageId = await open('form.html');
    const button = await h.client.call('observe/element', {
      pageId,
      selector: { type: 'role', role: 'button', name: 'Unavailable' },
      properties: ['visible', 'enabled', 'text', 'role', 'name', 'tagName', 'attributes', 'boundingBox', 'computedStyle'],
    });
    expect(button).toMatchObject({ found: true, count: 1, visible: true, enabled: false, text: 'Unavailable', role: 'button', name: 'Unavailable' });
    expect(button.tagName?.toLowerCase()).toBe('button');
    expect(button.attributes).toMatchObject({ id: 'disabled', type: 'button' });
    expect(button.boundingBox!.width).toBeGreaterThan(0);
    expect(button.computedStyle).toBeDefined();

    const email = await inspect(h.client, { type: 'placeholder', value: 'you@example.com' }, pageId);
    expect(email).toMatchObject({ found: true, value: '', role: 'textbox', name: 'Email address', focused: false });

    const news = await inspect(h.client, { type: 'label', value: 'Send me news' }, pageId);
    expect(news.checked).toBe(true);
  });

  it('observe/element reports missing elements as found:false and counts matches', async () => {
    const pageId = await open('list.html');
    const started = performance.now();
    const missing = await h.client.call('observe/element', { pageId, selector: css('#nothing-here') });
    expect(missing).toMatchObject({ found: false, count: 0 });
    expect(performance.now() - started).toBeLessThan(2_000);

    const items = await h.client.call('observe/element', { pageId, selector: css('#fruits li'), properties: ['text'] });
    expect(items).toMatchObject({ found: true, count: 3, text: 'Apple' });
  });

  it('observe/content returns text, markdown and html', async () => {
    const pageId = await open('list.html');
    const text = await h.client.call('observe/content', { pageId, format: 'text' });
    expect(text).toMatchObject({ format: 'text', url: h.url('list.html'), title: 'List fixture', truncated: false });
    expect(text.content).toContain('Groceries');
    expect(text.content).not.toContain('<li>');

    const markdown = await h.client.call('observe/content', { pageId, format: 'markdown' });
    expect(markdown.format).toBe('markdown');
    expect(markdown.content).toMatch(/^# Groceries$/m);
    expect(markdown.content).toMatch(/^## Steps$/m);
    expect(markdown.content).toMatch(/^\s*[-*] Apple$/m);
    expect(markdown.content).toMatch(/^\s*1\. Wash$/m);
    expect(markdown.content).toMatch(/\[a link back\]\([^)]*links\.html\)/);
    expect(markdown.content).toMatch(/^\|.*Apple.*\|.*1\.20.*\|$/m);

    const html = await h.client.call('observe/content', { pageId, format: 'html' });
    expect(html.format).toBe('html');
    expect(html.content).toMatch(/<ol id="steps">/);
  });

  it('observe/content defaults to text, and can be limited to an element and cut short', async () => {
    const pageId = await open('list.html');
    const table = await h.client.call('observe/content', { pageId, selector: css('#prices') });
    expect(table.format).toBe('text');
    expect(table.content).toContain('Banana');
    expect(table.content).not.toContain('Groceries');

    const cut = await h.client.call('observe/content', { pageId, format: 'markdown', maxLength: 20 });
    expect(cut.truncated).toBe(true);
    expect(cut.content.length).toBeLessThanOrEqual(20);
  });
});

describe('observations never reveal password values', () => {
  // Both secrets contain "SECRET": the typed one and the PIN's value attribute in form.html.
  const TYPED = 'hunter2-SECRET-typed';

  it('not in ariaSnapshot, accessibility, dom, content or element results', async () => {
    const pageId = await open('form.html');
    await h.client.call('action/fill', { pageId, selector: { type: 'label', value: 'Password' }, value: TYPED });
    const password: Selector = css('#password');
    const pin: Selector = css('#pin');

    const results: Array<[string, unknown]> = [
      ['ariaSnapshot', await h.client.call('observe/ariaSnapshot', { pageId, options: { includeTree: true } })],
      ['ariaSnapshot of the form', await h.client.call('observe/ariaSnapshot', { pageId, selector: css('form') })],
      ['accessibility', await h.client.call('observe/accessibility', { pageId })],
      ['dom', await h.client.call('observe/dom', { pageId })],
      ['dom of the form', await h.client.call('observe/dom', { pageId, options: { root: css('form') } })],
      ['dom of the PIN field', await h.client.call('observe/dom', { pageId, options: { root: pin } })],
      ['content text', await h.client.call('observe/content', { pageId, format: 'text' })],
      ['content markdown', await h.client.call('observe/content', { pageId, format: 'markdown' })],
      ['content html', await h.client.call('observe/content', { pageId, format: 'html' })],
      ['content html of the PIN field', await h.client.call('observe/content', { pageId, format: 'html', selector: pin })],
    ];
    const everything = ['visible', 'enabled', 'checked', 'focused', 'text', 'value', 'boundingBox', 'attributes', 'computedStyle', 'role', 'name', 'tagName'] as const;
    for (const [name, selector] of [['password', password], ['PIN', pin], ['form', css('form')]] as const) {
      results.push([`element ${name}`, await h.client.call('observe/element', { pageId, selector, properties: [...everything] })]);
    }
    const leaks = results.filter(([, result]) => JSON.stringify(result).includes('SECRET')).map(([name]) => name);
    expect(leaks).toEqual([]);

    // The field itself still holds the value: redaction is in the observation, not in the page.
    await h.client.call('action/click', { pageId, selector: { type: 'role', role: 'button', name: 'Submit' } });
    const submitted = await h.client.call('observe/element', { pageId, selector: css('#result'), properties: ['text'] });
    expect(JSON.parse(submitted.text!)).toMatchObject({ passwordLength: TYPED.length });
  });
});
