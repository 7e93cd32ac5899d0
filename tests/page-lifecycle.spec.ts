import { ErrorCodes } from '@browseragentprotocol/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectBAPError } from './support/expectations.js';
import { FixtureServer } from './support/fixtureServer.js';
import { startHarness, type Harness } from './support/harness.js';
import { css, textOf, valueOf } from './support/observe.js';

let h: Harness;

beforeAll(async () => {
  h = await startHarness();
});

afterAll(async () => {
  await h?.stop();
});

describe('page lifecycle: pages', () => {
  it('navigates right after initialize: the first page is created on demand', async () => {
    const client = await h.newClient();
    expect(await client.call('page/list', {})).toEqual({ pages: [], activePage: null });

    const nav = await client.call('page/navigate', { url: h.url('form.html') });
    expect(nav).toMatchObject({ url: h.url('form.html'), status: 200 });
    expect(nav.pageId).toEqual(expect.any(String));

    const list = await client.call('page/list', {});
    expect(list.activePage).toBe(nav.pageId);
    expect(list.pages).toHaveLength(1);
    expect(list.pages[0]).toMatchObject({ id: nav.pageId, url: h.url('form.html'), title: 'Form fixture', status: 'ready', active: true });
  });

  it('page/create opens a page at a URL with a viewport and makes it active', async () => {
    const page = await h.client.call('page/create', { url: h.url('links.html'), viewport: { width: 800, height: 600 } });
    expect(page).toMatchObject({
      url: h.url('links.html'),
      title: 'Links fixture',
      viewport: { width: 800, height: 600 },
      status: 'ready',
      active: true,
    });
    const list = await h.client.call('page/list', {});
    expect(list.activePage).toBe(page.id);
    expect(list.pages.filter((p) => p.active).map((p) => p.id)).toEqual([page.id]);
  });

  it('page/create without a URL opens a blank page; activate:false keeps the active page', async () => {
    const first = await h.client.call('page/create', { url: h.url('list.html') });
    const blank = await h.client.call('page/create', { activate: false });
    expect(blank.url).toBe('about:blank');
    expect(blank.active).toBe(false);
    expect((await h.client.call('page/list', {})).activePage).toBe(first.id);
  });

  it('page/activate chooses the page that calls without pageId go to', async () => {
    const form = await h.client.call('page/create', { url: h.url('form.html') });
    const list = await h.client.call('page/create', { url: h.url('list.html') });
    expect((await h.client.call('observe/content', { format: 'text' })).content).toContain('Groceries');

    expect(await h.client.call('page/activate', { pageId: form.id })).toEqual({});
    expect((await h.client.call('page/list', {})).activePage).toBe(form.id);
    expect((await h.client.call('observe/content', { format: 'text' })).content).toContain('Sign up');
    // An explicit pageId still reaches the other page.
    expect((await h.client.call('observe/content', { pageId: list.id, format: 'text' })).content).toContain('Groceries');
  });

  it('page/close closes a page and the most recently active remaining page becomes active', async () => {
    const client = await h.newClient();
    const a = await client.call('page/create', { url: h.url('form.html') });
    const b = await client.call('page/create', { url: h.url('list.html') });
    const c = await client.call('page/create', { url: h.url('links.html') });
    await client.call('page/activate', { pageId: b.id });
    await client.call('page/activate', { pageId: a.id });

    expect(await client.call('page/close', { pageId: a.id })).toEqual({ activePage: b.id });
    let list = await client.call('page/list', {});
    expect(list.pages.map((p) => p.id).sort()).toEqual([b.id, c.id].sort());
    expect(list.activePage).toBe(b.id);

    // Without pageId: the active page.
    expect(await client.call('page/close', {})).toEqual({ activePage: c.id });
    expect(await client.call('page/close', { pageId: c.id })).toEqual({ activePage: null });
    list = await client.call('page/list', {});
    expect(list).toEqual({ pages: [], activePage: null });
  });

  it('unknown page ids fail with -32011 PageNotFound', async () => {
    const missing = 'no-such-page';
    await expectBAPError(() => h.client.call('page/close', { pageId: missing }), ErrorCodes.PageNotFound);
    await expectBAPError(() => h.client.call('page/activate', { pageId: missing }), ErrorCodes.PageNotFound);
    await expectBAPError(() => h.client.call('page/navigate', { pageId: missing, url: h.url('form.html') }), ErrorCodes.PageNotFound);
    await expectBAPError(() => h.client.call('observe/content', { pageId: missing }), ErrorCodes.PageNotFound);
    await expectBAPError(
      () => h.client.call('action/click', { pageId: missing, selector: css('button') }),
      ErrorCodes.PageNotFound,
    );
  });

  it('a closed page is gone: calls to it fail with -32011', async () => {
    const page = await h.client.call('page/create', { url: h.url('form.html') });
    await h.client.call('page/close', { pageId: page.id });
    await expectBAPError(() => h.client.call('observe/content', { pageId: page.id }), ErrorCodes.PageNotFound);
  });
});

describe('page lifecycle: navigation', () => {
  it('follows redirects and reports the final URL and status', async () => {
    const nav = await h.client.call('page/navigate', { url: h.url(`redirect?to=${encodeURIComponent('list.html')}`) });
    expect(nav).toMatchObject({ url: h.url('list.html'), status: 200 });
  });

  it('reports an HTTP error status as a result, not a failure', async () => {
    const nav = await h.client.call('page/navigate', { url: h.url('missing-page.html') });
    expect(nav.status).toBe(404);
  });

  it('a same-document navigation has status null', async () => {
    await h.client.call('page/navigate', { url: h.url('links.html') });
    const nav = await h.client.call('page/navigate', { url: h.url('links.html#section') });
    expect(nav).toMatchObject({ url: h.url('links.html#section'), status: null });
  });

  it('each waitUntil state navigates', async () => {
    for (const waitUntil of ['load', 'domcontentloaded', 'networkidle', 'commit'] as const) {
      const nav = await h.client.call('page/navigate', { url: h.url('list.html'), waitUntil });
      expect(nav, waitUntil).toMatchObject({ url: h.url('list.html'), status: 200 });
    }
  });

  it('an unreachable server fails with -32015 NavigationFailed', async () => {
    const gone = await FixtureServer.start();
    const url = gone.url('form.html');
    await gone.close();
    const { error } = await expectBAPError(() => h.client.call('page/navigate', { url }), ErrorCodes.NavigationFailed);
    expect(error.data.retryable).toBe(true);
  });

  it('a navigation slower than its timeout fails with -32016 Timeout', async () => {
    const { error, elapsedMs } = await expectBAPError(
      () => h.client.call('page/navigate', { url: h.url('slow?ms=5000'), timeout: 300 }),
      ErrorCodes.Timeout,
    );
    expect(error.data.retryable).toBe(true);
    expect(elapsedMs).toBeLessThan(4_000);
  });

  it('page/reload loads the document again', async () => {
    await h.client.call('page/navigate', { url: h.url('form.html') });
    await h.client.call('action/fill', { selector: css('#name'), value: 'Before reload' });
    const reload = await h.client.call('page/reload', {});
    expect(reload).toMatchObject({ url: h.url('form.html'), status: 200, navigated: true });
    expect(await valueOf(h.client, css('#name'))).toBe('');
  });

  it('a page created at a URL has nothing to go back to', async () => {
    const page = await h.client.call('page/create', { url: h.url('links.html') });
    const back = await h.client.call('page/goBack', { pageId: page.id });
    expect(back).toMatchObject({ url: h.url('links.html'), navigated: false });
  });

  it('page/goBack and page/goForward walk the history and say when there is nowhere to go', async () => {
    const page = await h.client.call('page/create', { url: h.url('links.html') });
    const pageId = page.id;
    await h.client.call('page/navigate', { pageId, url: h.url('list.html') });
    await h.client.call('action/click', { pageId, selector: { type: 'role', role: 'link', name: 'a link back' } });
    await expect.poll(async () => (await h.client.call('page/list', {})).pages.find((p) => p.id === pageId)?.url).toBe(h.url('links.html'));

    expect(await h.client.call('page/goBack', { pageId })).toMatchObject({ url: h.url('list.html'), navigated: true, status: 200 });
    expect(await h.client.call('page/goBack', { pageId })).toMatchObject({ url: h.url('links.html'), navigated: true });
    expect(await h.client.call('page/goForward', { pageId })).toMatchObject({ url: h.url('list.html'), navigated: true });
    expect(await h.client.call('page/goForward', { pageId })).toMatchObject({ url: h.url('links.html'), navigated: true });
    expect(await h.client.call('page/goForward', { pageId })).toMatchObject({ url: h.url('links.html'), navigated: false });
  });
});

describe('page lifecycle: ordering', () => {
  it('pipelined requests to one page complete in the order they were sent', async () => {
    await h.client.call('page/navigate', { url: h.url('form.html') });
    const done: number[] = [];
    const track = <T>(index: number, promise: Promise<T>) => promise.then((value) => (done.push(index), value));
    const name = css('#name');
    const calls = [
      track(0, h.client.call('page/navigate', { url: h.url('slow?ms=600') })),
      track(1, h.client.call('observe/content', { format: 'text' })),
      track(2, h.client.call('page/navigate', { url: h.url('form.html') })),
      track(3, h.client.call('action/fill', { selector: name, value: 'a' })),
      track(4, h.client.call('action/type', { selector: name, text: 'b' })),
      track(5, h.client.call('action/type', { selector: name, text: 'c' })),
      track(6, h.client.call('action/press', { selector: name, key: 'Backspace' })),
      track(7, h.client.call('action/type', { selector: name, text: 'd' })),
      track(8, h.client.call('observe/element', { selector: name, properties: ['value'] })),
    ] as const;
    const results = await Promise.all(calls);
    expect(done).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
    // The content call waited for the slow navigation before it; the read saw every edit before it.
    expect(results[1].content).toContain('Answered after 600 ms');
    expect(results[8].value).toBe('abd');
  });

  it('pipelined raw frames to one page are answered in order', async () => {
    const socket = await h.rawSocket();
    await socket.handshake('ordering');
    const created = await socket.request('page/create', { url: h.url('form.html') });
    const pageId = (created.result as { id: string }).id;
    const frames = Array.from({ length: 12 }, (_, i) =>
      JSON.stringify({
        jsonrpc: '2.0',
        id: 100 + i,
        method: i % 2 === 0 ? 'action/type' : 'observe/element',
        params:
          i % 2 === 0
            ? { pageId, selector: { type: 'css', value: '#name' }, text: String.fromCharCode(97 + i / 2) }
            : { pageId, selector: { type: 'css', value: '#name' }, properties: ['value'] },
      }),
    );
    for (const frame of frames) await socket.send(frame);
    const ids: unknown[] = [];
    const values: unknown[] = [];
    for (let i = 0; i < frames.length; i++) {
      const reply = (await socket.next(10_000)) as { id: number; result: { value?: string } };
      ids.push(reply.id);
      if (reply.id % 2 === 1) values.push(reply.result.value);
    }
    expect(ids).toEqual(frames.map((_, i) => 100 + i));
    expect(values).toEqual(['a', 'ab', 'abc', 'abcd', 'abcde', 'abcdef']);
  });

  it('different pages do not wait for each other', async () => {
    const slow = await h.client.call('page/create', {});
    const fast = await h.client.call('page/create', { url: h.url('list.html') });
    const finished: string[] = [];
    const slowNav = h.client
      .call('page/navigate', { pageId: slow.id, url: h.url('slow?ms=2500') })
      .then(() => finished.push('slow'));
    const fastRead = h.client.call('observe/content', { pageId: fast.id, format: 'text' }).then((r) => {
      finished.push('fast');
      return r;
    });
    expect((await fastRead).content).toContain('Groceries');
    await slowNav;
    expect(finished).toEqual(['fast', 'slow']);
    expect(await textOf(h.client, css('#slow-ms'), slow.id)).toBe('Answered after 2500 ms');
  });
});
