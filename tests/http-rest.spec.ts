import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RestOutput } from '@browseragentprotocol/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './support/harness.js';
import { RestClient, errorOf, refOf } from './support/restClient.js';

// The REST contract over real HTTP against a real server. Every request of one address shares
// one REST session, so the tests here run in order on the same tabs.

let h: Harness;
let rest: RestClient;
let uploads: string;

beforeAll(async () => {
  uploads = await mkdtemp(join(tmpdir(), 'bap-rest-uploads-'));
  await writeFile(join(uploads, 'notes.txt'), 'notes from disk');
  await writeFile(join(uploads, 'more.txt'), 'more');
  h = await startHarness({ connect: false, server: { uploadDirs: [uploads], allowEvaluate: true, requestsPerSecond: 10_000 } });
  rest = await RestClient.open(h.server.httpUrl);
});

afterAll(async () => {
  await h?.stop();
  await rm(uploads, { recursive: true, force: true });
});

type Snapshot = RestOutput<'snapshot'>;

/** Navigates the active tab and returns its AI snapshot. */
async function open(path: string): Promise<string> {
  await rest.ok('POST', '/navigate', { url: path.startsWith('http') ? path : h.url(path) });
  return (await rest.ok<Snapshot>('GET', '/snapshot')).snapshot;
}

/** The value of a page expression, through `/act evaluate`. */
async function value(expression: string): Promise<unknown> {
  return (await rest.ok<RestOutput<'act'>>('POST', '/act', { kind: 'evaluate', expression })).value;
}

const act = (body: Record<string, unknown>) => rest.ok<RestOutput<'act'>>('POST', '/act', body);

describe('REST: browser and tabs', () => {
  it('POST /stop, GET /, POST /start: the status follows the browser, and start is idempotent', async () => {
    const stopped = await rest.ok<RestOutput<'stop'>>('POST', '/stop');
    expect(stopped).toMatchObject({ running: false, tabs: 0, activeTargetId: null, protocolVersion: '0.9.0' });
    expect(await rest.ok('GET', '/')).toEqual(stopped);
    const started = await rest.ok<RestOutput<'start'>>('POST', '/start');
    expect(started).toMatchObject({ running: true, tabs: 1, activeTargetId: expect.stringMatching(/^page-/) });
    expect(await rest.ok('POST', '/start')).toEqual(started);
    expect(await rest.ok('GET', '/')).toEqual(started);
  });

  it('GET /tabs, POST /tabs/open, POST /tabs/focus, DELETE /tabs/:targetId; an unknown tab is 404', async () => {
    const opened = await rest.ok<RestOutput<'openTab'>>('POST', '/tabs/open', { url: h.url('form.html') });
    expect(opened).toMatchObject({ url: h.url('form.html'), title: 'Form fixture', active: true, status: 'ready' });
    const blank = await rest.ok<RestOutput<'openTab'>>('POST', '/tabs/open');
    const { tabs, activeTargetId } = await rest.ok<RestOutput<'tabs'>>('GET', '/tabs');
    expect(activeTargetId).toBe(blank.targetId);
    expect(tabs.map((t) => t.targetId)).toEqual(expect.arrayContaining([opened.targetId, blank.targetId]));

    expect(await rest.ok('POST', '/tabs/focus', { targetId: opened.targetId })).toEqual({ activeTargetId: opened.targetId });
    expect((await rest.ok<RestOutput<'status'>>('GET', '/')).activeTargetId).toBe(opened.targetId);

    expect(await rest.ok('DELETE', `/tabs/${blank.targetId}`)).toEqual({ closed: blank.targetId, activeTargetId: opened.targetId });
    const again = await rest.delete(`/tabs/${blank.targetId}`);
    expect(again.status).toBe(404);
    expect(errorOf(again)).toMatchObject({ name: 'PageNotFound', message: `Page not found: ${blank.targetId}` });
    expect((await rest.post('/tabs/focus', { targetId: 'page-999' })).status).toBe(404);
  });

  it('POST /navigate: the active tab, or the one targetId names', async () => {
    const other = await rest.ok<RestOutput<'openTab'>>('POST', '/tabs/open');
    const navigated = await rest.ok<RestOutput<'navigate'>>('POST', '/navigate', { url: h.url('links.html') });
    expect(navigated).toEqual({ targetId: other.targetId, url: h.url('links.html'), status: 200 });
    const { tabs } = await rest.ok<RestOutput<'tabs'>>('GET', '/tabs');
    const first = tabs.find((t) => t.targetId !== other.targetId)!;
    expect(await rest.ok('POST', '/navigate', { url: h.url('hover.html'), targetId: first.targetId })).toMatchObject({ targetId: first.targetId, status: 200 });
    expect((await rest.ok<RestOutput<'tabs'>>('GET', '/tabs')).tabs.find((t) => t.targetId === first.targetId)).toMatchObject({ title: 'Hover fixture', active: false });
    expect((await rest.post('/navigate', { url: h.url('form.html'), targetId: 'page-999' })).status).toBe(404);
  });
});

describe('REST: POST /act', () => {
  it('click (and doubleClick), with refs as e5 or @e5', async () => {
    const snapshot = await open('form.html');
    await act({ kind: 'click', ref: refOf(snapshot, 'button', 'Submit') });
    expect(await value('document.getElementById("result").textContent')).toContain('"plan":"free"');
    await act({ kind: 'click', ref: `@${refOf(snapshot, 'generic', 'Double-click me: 0')}`, doubleClick: true });
    expect(await value('document.getElementById("dbl-count").textContent')).toBe('1');
  });

  it('type, with submit pressing Enter', async () => {
    const snapshot = await open('form.html');
    await act({ kind: 'type', ref: refOf(snapshot, 'textbox', 'Full name'), text: 'Ada', slowly: true, submit: true });
    expect(JSON.parse((await value('document.getElementById("result").textContent')) as string)).toMatchObject({ name: 'Ada' });
  });

  it('press, on the focused element or on a ref', async () => {
    const snapshot = await open('form.html');
    await act({ kind: 'press', key: 'x' });
    await act({ kind: 'press', key: 'b', ref: refOf(snapshot, 'textbox', 'Email address') });
    expect(await value('document.getElementById("keys").textContent')).toBe('x b');
    expect(await value('document.getElementById("email").value')).toBe('b');
  });

  it('hover', async () => {
    const snapshot = await open('hover.html');
    await act({ kind: 'hover', ref: refOf(snapshot, 'button', 'Hover over me') });
    expect(await value('document.getElementById("entered").textContent')).toBe('yes');
  });

  it('drag', async () => {
    const snapshot = await open('drag.html');
    await act({ kind: 'drag', startRef: refOf(snapshot, 'generic', 'Drag me'), endRef: refOf(snapshot, 'generic', 'Drop here') });
    expect(await value('document.getElementById("drop-log").textContent')).toBe('dropped payload-from-source');
  });

  it('select', async () => {
    const snapshot = await open('form.html');
    expect(await act({ kind: 'select', ref: refOf(snapshot, 'combobox', 'Country'), values: ['Japan'] })).toEqual({ ok: true, kind: 'select', selected: ['jp'] });
  });

  it('fill: text fields and checkboxes, in order', async () => {
    const snapshot = await open('form.html');
    const fields = [
      { ref: refOf(snapshot, 'textbox', 'Full name'), value: 'Grace' },
      { ref: refOf(snapshot, 'textbox', 'Biography'), value: 'Compilers' },
      { ref: refOf(snapshot, 'checkbox', 'I accept the terms'), value: true },
      { ref: refOf(snapshot, 'checkbox', 'Send me news'), value: false },
    ];
    expect(await act({ kind: 'fill', fields })).toEqual({ ok: true, kind: 'fill' });
    await act({ kind: 'click', ref: refOf(snapshot, 'button', 'Submit') });
    expect(JSON.parse((await value('document.getElementById("result").textContent')) as string)).toMatchObject({ name: 'Grace', bio: 'Compilers', terms: true, news: false });
  });

  it('wait: for a time, text, text gone, a selector, a URL, a load state', async () => {
    await open('form.html');
    const waited = await act({ kind: 'wait', timeMs: 50 });
    expect(waited).toMatchObject({ ok: true, kind: 'wait', url: h.url('form.html') });
    expect(waited.waitedMs).toBeGreaterThanOrEqual(45);
    await act({ kind: 'wait', text: 'Sign up' });
    await act({ kind: 'wait', textGone: 'Nowhere on this page' });
    await act({ kind: 'wait', selector: '#email' });
    await act({ kind: 'wait', url: '**/form.html' });
    await act({ kind: 'wait', loadState: 'load' });
    const timedOut = await rest.post('/act', { kind: 'wait', text: 'Never shown', timeoutMs: 200 });
    expect(timedOut.status).toBe(408);
  });

  it('resize', async () => {
    await open('form.html');
    expect(await act({ kind: 'resize', width: 640, height: 480 })).toEqual({ ok: true, kind: 'resize' });
    const { tabs } = await rest.ok<RestOutput<'tabs'>>('GET', '/tabs');
    expect(tabs.find((t) => t.active)?.viewport).toEqual({ width: 640, height: 480 });
    expect(await value('innerWidth')).toBe(640);
  });

  it('close', async () => {
    const { targetId } = await rest.ok<RestOutput<'openTab'>>('POST', '/tabs/open');
    const closed = await act({ kind: 'close', targetId });
    expect(closed).toMatchObject({ ok: true, kind: 'close', activeTargetId: expect.stringMatching(/^page-/) });
    expect((await rest.ok<RestOutput<'tabs'>>('GET', '/tabs')).tabs.map((t) => t.targetId)).not.toContain(targetId);
  });

  it('evaluate: an expression, a function, a promise; a throw is 422, a syntax error 400', async () => {
    await open('form.html');
    expect(await act({ kind: 'evaluate', expression: '1 + 1' })).toEqual({ ok: true, kind: 'evaluate', value: 2 });
    expect(await value('() => document.title')).toBe('Form fixture');
    expect(await value('new Promise((resolve) => setTimeout(() => resolve({ a: [1, "b"] }), 10))')).toEqual({ a: [1, 'b'] });
    expect(await value('undefined')).toBeNull();
    const thrown = await rest.post('/act', { kind: 'evaluate', expression: '(() => { throw new Error("boom") })()' });
    expect(thrown.status).toBe(422);
    expect(errorOf(thrown).message).toContain('boom');
    const bad = await rest.post('/act', { kind: 'evaluate', expression: 'this is not javascript' });
    expect(bad.status).toBe(400);
    expect(errorOf(bad).message).toContain('expression');
  });
});

describe('REST: observation', () => {
  it('POST /screenshot: PNG bytes by default, JPEG, the full page, one element by ref or CSS', async () => {
    const snapshot = await open('form.html');
    const png = await rest.post('/screenshot', {});
    expect(png.status).toBe(200);
    expect(png.headers.get('content-type')).toBe('image/png');
    expect(png.bytes.subarray(1, 4).toString('latin1')).toBe('PNG');
    const jpeg = await rest.post('/screenshot', { type: 'jpeg', fullPage: true });
    expect(jpeg.headers.get('content-type')).toBe('image/jpeg');
    expect([...jpeg.bytes.subarray(0, 2)]).toEqual([0xff, 0xd8]);
    const byRef = await rest.post('/screenshot', { ref: refOf(snapshot, 'button', 'Submit') });
    const byCss = await rest.post('/screenshot', { element: '#submit' });
    expect(byRef.status).toBe(200);
    expect(byRef.bytes.length).toBeLessThan(png.bytes.length);
    expect(byCss.bytes.equals(byRef.bytes)).toBe(true);
    const both = await rest.post('/screenshot', { ref: 'e1', element: '#submit' });
    expect(both.status).toBe(400);
    expect(errorOf(both).message).toContain('body.element');
  });

  it('GET /snapshot: ai with refs, aria without, limit cuts at a line end', async () => {
    await open('form.html');
    const ai = await rest.ok<Snapshot>('GET', '/snapshot?format=ai');
    expect(ai).toMatchObject({ format: 'ai', url: h.url('form.html'), title: 'Form fixture', truncated: false });
    expect(ai.snapshot).toMatch(/button "Submit" \[ref=@\w+\]/);
    const aria = await rest.ok<Snapshot>('GET', `/snapshot?format=aria&targetId=${ai.targetId}`);
    expect(aria.snapshot).toContain('- button "Submit"');
    expect(aria.snapshot).not.toContain('[ref=');
    const cut = await rest.ok<Snapshot>('GET', '/snapshot?limit=200');
    expect(cut).toMatchObject({ truncated: true, totalChars: ai.totalChars });
    expect(cut.snapshot.length).toBeLessThanOrEqual(200);
    expect(ai.snapshot.startsWith(`${cut.snapshot}\n`)).toBe(true);
  });

  it('GET /console: the messages the page logged, optionally from a level up', async () => {
    // A new tab: the log is the tab's, across navigations.
    await rest.ok('POST', '/tabs/open', { url: h.url('console.html') });
    const all = await rest.ok<RestOutput<'console'>>('GET', '/console');
    expect(all.messages.map((m) => `${m.level} ${m.text}`)).toEqual([
      'log load log message',
      'debug load debug message',
      'info load info message',
      'warn load warn message',
      'error load error message',
    ]);
    expect(all.dropped).toBe(0);
    const severe = await rest.ok<RestOutput<'console'>>('GET', `/console?level=warn&targetId=${all.targetId}`);
    expect(severe.messages.map((m) => m.level)).toEqual(['warn', 'error']);
  });

  it('POST /pdf: PDF bytes', async () => {
    await open('form.html');
    const pdf = await rest.post('/pdf', {});
    expect(pdf.status).toBe(200);
    expect(pdf.headers.get('content-type')).toBe('application/pdf');
    expect(pdf.bytes.subarray(0, 5).toString('latin1')).toBe('%PDF-');
  });
});

describe('REST: hooks', () => {
  it('POST /hooks/file-chooser: the next file chooser, however it opens, gets the files', async () => {
    const snapshot = await open('files-upload.html');
    expect(await rest.ok('POST', '/hooks/file-chooser', { paths: ['notes.txt'] })).toEqual({ status: 'armed', timeoutMs: 120_000 });
    await act({ kind: 'click', ref: refOf(snapshot, 'button', 'Choose file') });
    await expect.poll(() => value('document.getElementById("result").textContent')).toBe('hidden-input: notes.txt (15 bytes): notes from disk');
  });

  it('the last arm wins; an arm is used once; timeoutMs is clamped to two minutes', async () => {
    const snapshot = await open('files-upload.html');
    const { targetId } = await rest.ok<Snapshot>('GET', '/snapshot');
    await rest.ok('POST', '/hooks/file-chooser', { paths: ['notes.txt'], targetId });
    expect(await rest.ok('POST', '/hooks/file-chooser', { paths: [join(uploads, 'more.txt')], targetId, timeoutMs: 600_000 })).toEqual({ status: 'armed', timeoutMs: 120_000 });
    await act({ kind: 'click', ref: refOf(snapshot, 'button', 'Choose file') });
    await expect.poll(() => value('document.getElementById("result").textContent')).toBe('hidden-input: more.txt (4 bytes): more');
    await rest.ok('POST', '/hooks/file-chooser', { paths: ['notes.txt'], timeoutMs: 1 });
    await new Promise((resolve) => setTimeout(resolve, 50));
    const unarmed = await rest.post('/act', { kind: 'click', ref: refOf(snapshot, 'button', 'Choose file'), timeoutMs: 2_000 });
    expect(unarmed.status).toBe(200);
    expect(await value('document.getElementById("result").children.length')).toBe(1);
  });

  it('POST /hooks/file-chooser refuses paths outside the upload directories, naming them', async () => {
    const outside = await rest.post('/hooks/file-chooser', { paths: ['../etc/passwd'] });
    expect(outside.status).toBe(400);
    expect(errorOf(outside).message).toBe('params.paths.0: "../etc/passwd" is outside the server\'s upload directories.');
  });

  it('POST /hooks/dialog: accepts the next prompt with text; the last arm wins', async () => {
    const snapshot = await open('dialogs-buttons.html');
    await rest.ok('POST', '/hooks/dialog', { accept: false });
    expect(await rest.ok('POST', '/hooks/dialog', { accept: true, promptText: 'Ada', timeoutMs: 999_999 })).toEqual({ status: 'armed', timeoutMs: 120_000 });
    await act({ kind: 'click', ref: refOf(snapshot, 'button', 'Prompt') });
    expect(await value('document.getElementById("result").textContent')).toBe('prompt: Ada');
    await rest.ok('POST', '/hooks/dialog', { accept: true });
    await act({ kind: 'click', ref: refOf(snapshot, 'button', 'Confirm') });
    expect(await value('document.getElementById("result").textContent')).toBe('confirm: true');
    // Used once: the next confirm gets the default answer, dismissal.
    await act({ kind: 'click', ref: refOf(snapshot, 'button', 'Confirm') });
    expect(await value('document.getElementById("result").textContent')).toBe('confirm: false');
  });
});
