import { BapMcpServer } from '@browseragentprotocol/mcp';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { LoggingMessageNotificationSchema, type LoggingMessageNotification } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Fixtures, callTool, connect, refOf, type Reply } from './support.js';

/**
 * What a model sees through the MCP tools: open dialogs, iframes, tabs, what changed after an
 * action, budgeted observations with a cursor, resources, log notifications, screenshots, PDFs
 * and waits. Each test has its own MCP session (its own pages) on one shared server.
 */

/** How long a call may take while a dialog is open before the session counts as blocked. */
const UNBLOCKED_MS = 4_000;

let fixtures: Fixtures;
let mcp: BapMcpServer;
let client: Client;
let logs: LoggingMessageNotification['params'][];

function call(name: string, args: Record<string, unknown> = {}): Promise<Reply> {
  return callTool(client, name, args);
}

/** A call that must succeed. */
async function ok(name: string, args: Record<string, unknown> = {}): Promise<string> {
  const r = await call(name, args);
  expect(r.isError, `${name} ${JSON.stringify(args)}: ${r.text}`).toBe(false);
  return r.text;
}

/** `promise`, or a failure saying what did not answer in time. */
function within<T>(ms: number, what: string, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/** Polls `probe` until it returns a value. */
async function until<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, ms = 5_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

beforeAll(async () => {
  fixtures = await Fixtures.start();
  mcp = new BapMcpServer({ server: { headless: true } });
});

afterAll(async () => {
  await mcp?.close();
  await fixtures?.close();
});

beforeEach(async () => {
  logs = [];
  client = await connect(mcp);
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.push(n.params));
});

afterEach(async () => {
  await client.close();
});

describe('dialogs', () => {
  it('a confirm opened by a click is reported with its message, answered by the dialog tool, and never blocks the session', async () => {
    await ok('navigate', { url: fixtures.url('mcp-dialog.html') });
    const click = call('click', { target: 'role:button:Delete draft' });
    click.catch(() => {});
    const clicked = await Promise.race([click, new Promise<undefined>((resolve) => setTimeout(resolve, UNBLOCKED_MS))]);
    // The click's own result, or else the next observe, says the dialog is open.
    const report = clicked && /Dialog open/.test(clicked.text) ? clicked.text : (await within(UNBLOCKED_MS, 'observe while a dialog is open', call('observe'))).text;
    expect(report).toContain('Dialog open: confirm "Delete?"');

    // Other tools answer while the dialog waits.
    const tabs = await within(UNBLOCKED_MS, 'tabs {list} while a dialog is open', call('tabs', { action: 'list' }));
    expect(tabs.text).toContain('mcp-dialog.html');

    const answered = await within(UNBLOCKED_MS, 'dialog {accept}', call('dialog', { action: 'accept' }));
    expect(answered.text).toBe('Accepted confirm "Delete?".');
    await within(UNBLOCKED_MS, 'the click, once its dialog was answered', click);
    const waited = await call('wait_for', { text: 'Deleted', timeout: 3_000 });
    expect(waited.isError, waited.text).toBe(false);
    expect(await ok('observe')).not.toContain('Dialog open');
  });
});

describe('iframes', () => {
  it('observe shows a same-origin frame’s button with an @f ref and a Frames line; clicking the ref works', async () => {
    await ok('navigate', { url: fixtures.url('mcp-frames.html') });
    const observed = await ok('observe');
    expect(observed).toMatch(/^Frames: 1 /m);
    const inside = refOf(observed, 'button', 'Press inside');
    expect(inside).toMatch(/^@f\d+e\d+$/);
    const clicked = await ok('click', { target: inside });
    expect(clicked).toMatch(/^\+ @f\d+e\d+ button "Pressed inside"$/m);
  });
});

describe('tabs', () => {
  it('a target=_blank link opens a tab the click reports; tabs list/select/close and the tab argument address each tab', async () => {
    await ok('navigate', { url: fixtures.url('mcp-tabs.html') });
    const clicked = await ok('click', { target: 'role:link:Open second' });
    expect(clicked).toMatch(/^✓ click role:link:Open second$/m);

    const second = await until('the second tab in tabs {list}', async () => /^(page-\d+)(?: \(active\))? "Second tab"/m.exec((await ok('tabs', { action: 'list' })))?.[1]);
    const first = /^(page-\d+)(?: \(active\))? "First tab"/m.exec(await ok('tabs', { action: 'list' }))![1]!;
    expect(second).not.toBe(first);

    const selected = await ok('tabs', { action: 'select', tab: second });
    expect(selected).toContain(`${second} (active) "Second tab"`);

    // The first tab, while the second is active.
    const observed = await ok('observe', { tab: first });
    expect(observed).toMatch(new RegExp(`^Tab ${first} \\(2 open\\): "First tab"`, 'm'));
    expect(observed).toContain('button "First button"');
    expect(observed).not.toContain('Second button');
    const firstClicked = await ok('click', { target: 'role:button:First button', tab: first });
    // The walk keeps an element's ref when its name changes: the same button, changed.
    expect(firstClicked).toMatch(/^~ @\S+ button "First clicked"$/m);
    expect(await ok('tabs', { action: 'list' })).toContain(`${second} (active)`);

    const closed = await ok('tabs', { action: 'close', tab: second });
    expect(closed).not.toContain('Second tab');
    expect(closed).toContain(first);
  });
});

describe('incremental observation and budgets', () => {
  it('after observe, a click that adds an element returns only what changed', async () => {
    await ok('navigate', { url: fixtures.url('mcp-grow.html') });
    await ok('observe');
    const clicked = await ok('click', { target: 'role:button:Add row' });
    expect(clicked).toContain('Changes:');
    expect(clicked).toMatch(/^\+ @b\d+ button "Row 1 details"$/m);
    expect(clicked).not.toContain('Interactive elements');
    expect(clicked).not.toContain('textbox "Filter"');
  });

  it('a page of 2,000 buttons comes back cut to the budget with a cursor, and observe {cursor} continues it', async () => {
    const navigated = await ok('navigate', { url: fixtures.url('mcp-many.html') });
    expect(navigated.length).toBeLessThan(10_000);
    expect(navigated).toMatch(/\[cut to fit: observe \{"cursor":"[^"]+"\} returns the rest\]$/);

    const first = await ok('observe');
    expect(first.length).toBeLessThan(14_000);
    expect(first).toContain('Interactive elements (2000)');
    expect(first).not.toContain('"Item 1999"');
    const cursor = /observe \{"cursor":"([^"]+)"\}/.exec(first)?.[1];
    expect(cursor).toBeDefined();
    const last = Math.max(...[...first.matchAll(/button "Item (\d+)"/g)].map((m) => Number(m[1])));

    const next = await ok('observe', { cursor });
    const items = [...next.matchAll(/button "Item (\d+)"/g)].map((m) => Number(m[1]));
    expect(items[0]).toBe(last + 1);
    expect(next.length).toBeLessThan(14_000);
  });
});

describe('resources', () => {
  it('lists the tab state, snapshot and screenshot, and reads each', async () => {
    await ok('navigate', { url: fixtures.url('mcp-grow.html') });
    const { resources } = await client.listResources();
    expect(resources.map((r) => r.uri).sort()).toEqual(['bap://tab/screenshot', 'bap://tab/snapshot', 'bap://tab/state']);

    const state = (await client.readResource({ uri: 'bap://tab/state' })).contents[0]!;
    expect(state.mimeType).toBe('application/json');
    const parsed = JSON.parse('text' in state ? state.text : '') as { pages: { url: string }[] };
    expect(parsed.pages.map((p) => p.url)).toEqual([fixtures.url('mcp-grow.html')]);

    const snapshot = (await client.readResource({ uri: 'bap://tab/snapshot' })).contents[0]!;
    expect('text' in snapshot ? snapshot.text : '').toMatch(/^@b\d+ button "Add row"$/m);

    const shot = (await client.readResource({ uri: 'bap://tab/screenshot' })).contents[0]!;
    expect(shot.mimeType).toBe('image/png');
    const png = Buffer.from('blob' in shot ? shot.blob : '', 'base64');
    expect([...png.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  });
});

describe('logging', () => {
  it('a console error and a failed request reach the client as log notifications', async () => {
    await ok('navigate', { url: fixtures.url('mcp-noisy.html') });
    await ok('click', { target: 'role:button:Log error' });
    const boom = await until('an error log with boom', () => logs.find((l) => l.level === 'error' && String(l.data).includes('boom')));
    expect(boom.logger).toBe('console');

    await ok('click', { target: 'role:button:Load missing image' });
    const missing = await until('a warning about the missing image', () =>
      logs.find((l) => l.level === 'warning' && String(l.data).includes('missing-picture.png')),
    );
    expect(String(missing.data)).toContain('404');
  });
});

describe('screenshot and pdf', () => {
  it('screenshot is PNG image content; marks adds the refs; pdf is an embedded application/pdf resource', async () => {
    await ok('navigate', { url: fixtures.url('mcp-grow.html') });
    const plain = await call('screenshot');
    expect(plain.isError).toBe(false);
    expect(plain.result.content).toHaveLength(1);
    expect(plain.result.content[0]).toMatchObject({ type: 'image', mimeType: 'image/png', data: expect.stringMatching(/^iVBORw0KGgo/) });

    const marked = await call('screenshot', { marks: true });
    expect(marked.result.content[0]).toMatchObject({ type: 'image', mimeType: 'image/png' });
    expect(marked.text).toMatch(/^Marks:\n/);
    expect(marked.text).toMatch(/^\[\d+\] @e\d+ button "Add row"$/m);

    const pdf = await call('pdf');
    expect(pdf.isError).toBe(false);
    const resource = pdf.result.content.find((c) => c.type === 'resource');
    expect(resource).toMatchObject({ type: 'resource', resource: { mimeType: 'application/pdf', blob: expect.stringMatching(/^JVBER/) } });
  });
});

describe('wait_for', () => {
  it('resolves when the text appears later', async () => {
    await ok('navigate', { url: fixtures.url('mcp-later.html') });
    const waited = await ok('wait_for', { text: 'Report ready' });
    expect(waited).toMatch(/^✓ wait/m);
    const { text } = await call('extract', { schema: { type: 'object', properties: { status: { type: 'string', 'x-selector': '#status' } } } });
    expect(JSON.parse(text)).toEqual({ status: 'Report ready' });
  });
});
