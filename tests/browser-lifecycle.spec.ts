import { ErrorCodes } from '@browseragentprotocol/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectBAPError } from './support/expectations.js';
import { startHarness, type Harness } from './support/harness.js';

let h: Harness;
let holdSeq = 0;

beforeAll(async () => {
  h = await startHarness({ connect: false });
});

afterAll(async () => {
  await h?.stop();
});

/** A URL whose page keeps a request open to the fixture server for as long as the page lives. */
function holdPage(): { id: string; url: string } {
  const id = `hold-${++holdSeq}`;
  return { id, url: h.url(`hold.html?id=${id}`) };
}

async function expectOpenHolds(id: string, count: number): Promise<void> {
  await expect.poll(() => h.fixtures.openHolds(id), { timeout: 10_000, message: `open streams of ${id}` }).toBe(count);
}

describe('browser/launch and browser/close', () => {
  it('browser/launch starts Chromium for the session', async () => {
    const client = await h.newClient();
    const result = await client.call('browser/launch', { browser: 'chromium', headless: true, args: ['--lang=en-US'] });
    expect(result).toMatchObject({ headless: true });
    expect(result.browserId).toEqual(expect.any(String));
    expect(result.defaultContext).toEqual(expect.any(String));
    expect(result.version).toMatch(/\d+\.\d+/);
    const page = await client.call('page/create', { url: h.url('form.html') });
    expect(page.status).toBe('ready');
  });

  it('browser/launch refuses arguments that are not Chromium switches with -32602', async () => {
    const client = await h.newClient();
    const { error } = await expectBAPError(
      () => client.call('browser/launch', { args: ['--lang=en', 'rm -rf /'] }),
      ErrorCodes.InvalidParams,
    );
    expect(error.message).toContain('args');
  });

  it('browser/close closes the session’s pages; the next page call starts over', async () => {
    const client = await h.newClient();
    await client.call('browser/launch', {});
    const hold = holdPage();
    await client.call('page/create', { url: hold.url });
    await expectOpenHolds(hold.id, 1);

    expect(await client.call('browser/close', {})).toEqual({});
    await expectOpenHolds(hold.id, 0);
    expect(await client.call('page/list', {})).toEqual({ pages: [], activePage: null });

    const nav = await client.call('page/navigate', { url: h.url('list.html') });
    expect(nav.status).toBe(200);
  });

  it('browser/close of one session leaves the pages of another alone', async () => {
    const closer = await h.newClient();
    const other = await h.newClient();
    const hold = holdPage();
    const page = await other.call('page/create', { url: hold.url });
    await closer.call('page/create', { url: h.url('form.html') });
    await expectOpenHolds(hold.id, 1);

    await closer.call('browser/close', {});
    expect((await other.call('page/list', {})).pages.map((p) => p.id)).toEqual([page.id]);
    expect((await other.call('observe/content', { pageId: page.id })).content).toContain('keeps a request open');
    expect(h.fixtures.openHolds(hold.id)).toBe(1);
  });
});

describe('sessions', () => {
  it('each connection has its own pages', async () => {
    const a = await h.newClient();
    const b = await h.newClient();
    await a.call('page/create', { url: h.url('form.html') });
    const aSecond = await a.call('page/create', { url: h.url('list.html') });
    expect(await b.call('page/list', {})).toEqual({ pages: [], activePage: null });

    const bPage = await b.call('page/create', { url: h.url('links.html') });
    expect((await b.call('page/list', {})).pages.map((p) => p.id)).toEqual([bPage.id]);
    expect((await a.call('page/list', {})).pages).toHaveLength(2);
    // Another connection's page cannot be reached by its id (ids may repeat across sessions, so
    // take one this session has no page for).
    expect(aSecond.id).not.toBe(bPage.id);
    await expectBAPError(() => b.call('page/activate', { pageId: aSecond.id }), ErrorCodes.PageNotFound);
    await expectBAPError(() => b.call('observe/content', { pageId: aSecond.id }), ErrorCodes.PageNotFound);
    expect((await b.call('observe/content', { pageId: bPage.id, format: 'text' })).content).toContain('Links');
  });

  it('a client that disconnects without shutdown has its pages closed; other clients keep theirs', async () => {
    const survivor = await h.newClient();
    const kept = holdPage();
    await survivor.call('page/create', { url: kept.url });

    const socket = await h.rawSocket();
    await socket.handshake('disconnecting');
    const first = holdPage();
    const second = holdPage();
    expect((await socket.request('page/create', { url: first.url })).result).toBeDefined();
    expect((await socket.request('page/create', { url: second.url })).result).toBeDefined();
    await expectOpenHolds(first.id, 1);
    await expectOpenHolds(second.id, 1);

    await socket.close();
    await expectOpenHolds(first.id, 0);
    await expectOpenHolds(second.id, 0);
    expect(h.fixtures.openHolds(kept.id)).toBe(1);
    expect((await survivor.call('page/list', {})).pages).toHaveLength(1);
  });

  it('shutdown closes the session’s pages', async () => {
    const socket = await h.rawSocket();
    await socket.handshake('shutting-down');
    const hold = holdPage();
    await socket.request('page/create', { url: hold.url });
    await expectOpenHolds(hold.id, 1);
    const reply = await socket.request('shutdown', {});
    expect(reply.result).toEqual({});
    await expectOpenHolds(hold.id, 0);
  });

  it('shutdown with closePages:false is accepted', async () => {
    const client = await h.newClient();
    await client.call('page/create', { url: h.url('list.html') });
    expect(await client.call('shutdown', { closePages: false })).toEqual({});
  });
});
