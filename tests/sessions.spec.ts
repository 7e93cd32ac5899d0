import { BAPClient } from '@browseragentprotocol/client';
import { ErrorCodes, PROTOCOL_VERSION, type ConsoleEvent } from '@browseragentprotocol/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectBAPError } from './support/expectations.js';
import { startHarness, type Harness } from './support/harness.js';
import type { RawSocket } from './support/rawSocket.js';
import { TcpProxy } from './support/tcpProxy.js';

let h: Harness;

beforeAll(async () => {
  h = await startHarness({ connect: false, server: { sessionGraceMs: 5_000 } });
});

afterAll(async () => {
  await h?.stop();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
let counter = 0;
const newSessionId = () => `test-session-${Date.now()}-${++counter}`;

/** A raw connection that opened (or resumed) `sessionId`; returns the initialize result. */
async function open(socket: RawSocket, sessionId: string) {
  const reply = await socket.request('initialize', { protocolVersion: PROTOCOL_VERSION, clientInfo: { name: 'raw', version: '0' }, sessionId });
  return reply.result as { sessionId?: string; resumed?: boolean };
}

describe('initialize {sessionId}', () => {
  it('a reconnect within the grace period finds its contexts and pages still there', async () => {
    const sessionId = newSessionId();
    const first = await h.rawSocket();
    expect(await open(first, sessionId)).toMatchObject({ sessionId, resumed: false });
    await first.request('context/create', { contextId: 'kept' });
    const page = (await first.request('page/create', { contextId: 'kept', url: h.url('form.html') })).result as { id: string };
    await first.request('action/fill', { selector: { type: 'label', value: 'Email' }, value: 'still@here.test' });
    await first.close();

    const client = new BAPClient(h.server.url, { sessionId });
    const init = await client.connect();
    expect(init).toMatchObject({ sessionId, resumed: true });
    const { pages, activePage } = await client.call('page/list', {});
    expect(pages).toEqual([expect.objectContaining({ id: page.id, contextId: 'kept', url: h.url('form.html') })]);
    expect(activePage).toBe(page.id);
    const email = await client.call('observe/element', { selector: { type: 'label', value: 'Email' }, properties: ['value'] });
    expect(email.value).toBe('still@here.test');
    expect((await client.call('context/list', {})).contexts.map((c) => c.id)).toEqual(['kept']);
    await client.close();
  });

  it('keeps the subscriptions and delivers what happened while no connection held the session', async () => {
    const sessionId = newSessionId();
    const first = await h.rawSocket();
    await open(first, sessionId);
    await first.request('events/subscribe', { events: ['console'] });
    await first.request('page/navigate', { url: h.url('console-later.html?ms=400') });
    await first.close();
    await sleep(900);

    const client = new BAPClient(h.server.url, { sessionId, events: ['console'] });
    const seen: ConsoleEvent[] = [];
    client.on('events/console', (e) => seen.push(e));
    await client.connect();
    await expect.poll(() => seen.map((e) => e.text)).toContain('later');
    await client.close();
  });

  it('a second connection with the same id takes the session over; the first is closed with 4001', async () => {
    const sessionId = newSessionId();
    const first = await h.rawSocket();
    await open(first, sessionId);
    await first.request('page/navigate', { url: h.url('links.html') });
    const second = await h.rawSocket();
    expect(await open(second, sessionId)).toMatchObject({ resumed: true });
    expect((await first.closed).code).toBe(4001);
    const list = (await second.request('page/list', {})).result as { pages: { url: string }[] };
    expect(list.pages.map((p) => p.url)).toEqual([h.url('links.html')]);
    await second.request('shutdown', {});
  });

  it('after shutdown, or once the grace period is over, the id starts a new empty session', async () => {
    const sessionId = newSessionId();
    const first = await h.rawSocket();
    await open(first, sessionId);
    await first.request('page/create', {});
    await first.request('shutdown', {});
    await first.close();
    const second = await h.rawSocket();
    expect(await open(second, sessionId)).toMatchObject({ resumed: false });
    expect(((await second.request('page/list', {})).result as { pages: unknown[] }).pages).toEqual([]);
    await second.close();

    const short = await startHarness({ connect: false, server: { sessionGraceMs: 200 } });
    try {
      const a = await short.rawSocket();
      await open(a, sessionId);
      await a.request('page/create', {});
      await a.close();
      await sleep(600);
      const b = await short.rawSocket();
      expect(await open(b, sessionId)).toMatchObject({ resumed: false });
      expect(((await b.request('page/list', {})).result as { pages: unknown[] }).pages).toEqual([]);
      expect(await short.server.stats()).toMatchObject({ contexts: 0, pages: 0 });
    } finally {
      await short.stop();
    }
  });

  it('shutdown {closePages: false} parks a resumable session instead of ending it', async () => {
    const sessionId = newSessionId();
    const first = await h.rawSocket();
    await open(first, sessionId);
    await first.request('page/create', { url: h.url('links.html') });
    await first.request('shutdown', { closePages: false });
    await first.close();
    const second = await h.rawSocket();
    expect(await open(second, sessionId)).toMatchObject({ resumed: true });
    await second.request('shutdown', {});
  });

  it('refuses guessable session ids', async () => {
    const client = new BAPClient(h.server.url, { sessionId: 'short' });
    const { error } = await expectBAPError(() => client.connect(), ErrorCodes.InvalidParams);
    expect(error.message).toContain('params.sessionId');
    await client.close();
  });

  it('a client with sessionId: true resumes after its socket drops', async () => {
    const proxy = await TcpProxy.start(h.server.port);
    const client = new BAPClient(`ws://127.0.0.1:${proxy.port}`, { sessionId: true, reconnect: { initialDelayMs: 50, maxAttempts: 5 } });
    try {
      await client.connect();
      const page = await client.call('page/create', { url: h.url('links.html') });
      const reconnected = new Promise((resolve) => client.on('reconnected', resolve));
      proxy.cut();
      expect(await reconnected).toMatchObject({ resumed: true });
      expect((await client.call('page/list', {})).pages.map((p) => p.id)).toEqual([page.id]);
    } finally {
      await client.close();
      await proxy.close();
    }
  });
});

describe('events/subscribe filters', () => {
  it('narrows each event type by page, level and type', async () => {
    const client = await h.newClient();
    const a = await client.call('page/create', {});
    const b = await client.call('page/create', {});
    const seen: ConsoleEvent[] = [];
    client.on('events/console', (e) => seen.push(e));
    const types: string[] = [];
    client.on('events/page', (e) => types.push(`${e.pageId}:${e.type}`));
    await client.call('events/subscribe', {
      events: ['console', 'page'],
      filters: { console: { pageIds: [a.id], levels: ['error'] }, page: { types: ['load'] } },
    });
    await client.call('page/navigate', { pageId: b.id, url: h.url('console.html') });
    await client.call('page/navigate', { pageId: a.id, url: h.url('console.html') });
    await expect.poll(() => seen.length).toBeGreaterThan(0);
    await sleep(300);
    expect(new Set(seen.map((e) => `${e.pageId}:${e.level}`))).toEqual(new Set([`${a.id}:error`]));
    expect(types.every((t) => t.endsWith(':load'))).toBe(true);
    expect(types).toEqual(expect.arrayContaining([`${a.id}:load`, `${b.id}:load`]));
    const bad = await expectBAPError(
      () => client.call('events/subscribe', { events: ['network'], filters: { network: { urlPattern: '/[/' } } }),
      ErrorCodes.InvalidParams,
    );
    expect(bad.error.message).toContain('params.filters.network.urlPattern');
    await client.close();
  });
});
