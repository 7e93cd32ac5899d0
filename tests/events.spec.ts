import type { BAPClient } from '@browseragentprotocol/client';
import { ConsoleEventSchema, PageEventSchema, type ConsoleEvent, type PageEvent } from '@browseragentprotocol/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './support/harness.js';
import { isObject } from './support/rawSocket.js';

/** How long a test waits to be sure an event is not coming. */
const QUIET_MS = 500;

let h: Harness;

beforeAll(async () => {
  h = await startHarness({ connect: false });
});

afterAll(async () => {
  await h?.stop();
});

function record(client: BAPClient) {
  const page: PageEvent[] = [];
  const console: ConsoleEvent[] = [];
  client.on('events/page', (event) => page.push(event));
  client.on('events/console', (event) => console.push(event));
  return { page, console };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('events/page', () => {
  it('reports a page being created, navigated, loaded and closed', async () => {
    const client = await h.newClient();
    const events = record(client);
    const created = await client.call('page/create', {});
    await client.call('page/navigate', { pageId: created.id, url: h.url('links.html') });
    await expect.poll(() => events.page.map((e) => e.type)).toContain('load');
    await client.call('page/close', { pageId: created.id });
    await expect.poll(() => events.page.map((e) => e.type)).toContain('close');

    for (const event of events.page) {
      expect(PageEventSchema.safeParse(event).success, JSON.stringify(event)).toBe(true);
      expect(event.pageId).toBe(created.id);
    }
    const types = events.page.map((e) => e.type);
    expect(types[0]).toBe('created');
    expect(types.at(-1)).toBe('close');
    expect(types.indexOf('domcontentloaded')).toBeGreaterThan(0);
    expect(types.indexOf('load')).toBeGreaterThan(types.indexOf('domcontentloaded'));
    const navigated = events.page.filter((e) => e.type === 'navigated').map((e) => e.url);
    expect(navigated).toContain(h.url('links.html'));
    const timestamps = events.page.map((e) => e.timestamp);
    expect(timestamps).toEqual([...timestamps].sort((a, b) => a - b));
  });

  it('arrive as JSON-RPC notifications without an id', async () => {
    const socket = await h.rawSocket();
    await socket.handshake('events-raw');
    expect((await socket.request('events/subscribe', { events: ['page'] })).result).toEqual({ subscribed: ['page'], unavailable: [] });
    const reply = await socket.request('page/create', { url: h.url('list.html') });
    const pageId = (reply.result as { id: string }).id;
    const event = await socket.waitFor((m) => isObject(m) && m.method === 'events/page', 5_000, 'events/page');
    expect(event).toMatchObject({ jsonrpc: '2.0', method: 'events/page', params: { pageId } });
    expect(event).not.toHaveProperty('id');
  });
});

describe('events/console', () => {
  it('reports console messages at every level, on load and later', async () => {
    const client = await h.newClient();
    const events = record(client);
    const { pageId } = await client.call('page/navigate', { url: h.url('console.html') });
    await expect.poll(() => events.console.length).toBeGreaterThanOrEqual(5);
    expect(events.console.slice(0, 5).map((e) => [e.level, e.text])).toEqual([
      ['log', 'load log message'],
      ['debug', 'load debug message'],
      ['info', 'load info message'],
      ['warn', 'load warn message'],
      ['error', 'load error message'],
    ]);
    for (const event of events.console) {
      expect(ConsoleEventSchema.safeParse(event).success, JSON.stringify(event)).toBe(true);
      expect(event.pageId).toBe(pageId);
    }
    expect(events.console[0]!.url).toBe(h.url('console.html'));

    await client.call('action/click', { selector: { type: 'role', role: 'button', name: 'Log more' } });
    await expect.poll(() => events.console.length).toBe(7);
    expect(events.console.slice(5).map((e) => [e.level, e.text])).toEqual([
      ['log', 'click log 1'],
      ['error', 'click error 1'],
    ]);
  });
});

describe('events/subscribe', () => {
  it('replaces the subscription: after subscribing to page only, console events stop', async () => {
    const client = await h.newClient();
    const events = record(client);
    expect(await client.call('events/subscribe', { events: ['page'] })).toEqual({ subscribed: ['page'], unavailable: [] });
    await client.call('page/navigate', { url: h.url('console.html') });
    await expect.poll(() => events.page.map((e) => e.type)).toContain('load');
    await sleep(QUIET_MS);
    expect(events.console).toEqual([]);

    await client.call('events/subscribe', { events: [] });
    const before = events.page.length;
    await client.call('page/reload', {});
    await sleep(QUIET_MS);
    expect(events.page.length).toBe(before);
  });

  it('says which requested events it does not emit', async () => {
    const client = await h.newClient();
    const requested = ['page', 'console', 'network', 'dialog', 'download'] as const;
    const result = await client.call('events/subscribe', { events: [...requested] });
    expect([...result.subscribed, ...result.unavailable].sort()).toEqual([...requested].sort());
    expect(result.subscribed).toEqual(expect.arrayContaining(['page', 'console']));
  });

  it('a connection never receives the events of another connection’s pages', async () => {
    const owner = await h.newClient();
    const bystander = await h.newClient();
    const ownerEvents = record(owner);
    const bystanderEvents = record(bystander);
    await owner.call('page/navigate', { url: h.url('console.html') });
    await expect.poll(() => ownerEvents.console.length).toBeGreaterThanOrEqual(5);
    await sleep(QUIET_MS);
    expect(bystanderEvents).toEqual({ page: [], console: [] });
  });
});
