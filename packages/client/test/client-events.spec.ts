import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BAPClient, BAPClientError, type ClientEventMap } from '../src/index.js';
import { FakeServer } from './fakeServer.js';

let server: FakeServer;
let client: BAPClient;

beforeEach(async () => {
  server = await FakeServer.start();
  client = new BAPClient(server.url);
  await client.connect();
});

afterEach(async () => {
  await client.close();
  await server.close();
});

function next<E extends keyof ClientEventMap>(event: E): Promise<ClientEventMap[E]> {
  return new Promise((resolve) => {
    const off = client.on(event, (payload) => {
      off();
      resolve(payload);
    });
  });
}

describe('BAPClient notifications', () => {
  it('emits events/page and events/console with validated params', async () => {
    const page = next('events/page');
    const consoleEvent = next('events/console');
    server.notify('events/page', { type: 'load', pageId: 'p1', url: 'http://a.test/', timestamp: 1 });
    server.notify('events/console', { pageId: 'p1', level: 'warn', text: 'careful', timestamp: 2 });
    expect(await page).toEqual({ type: 'load', pageId: 'p1', url: 'http://a.test/', timestamp: 1 });
    expect(await consoleEvent).toMatchObject({ level: 'warn', text: 'careful' });
  });

  it("emits every notification as 'notification', including ones the table does not know", async () => {
    const seen: ClientEventMap['notification'][] = [];
    client.on('notification', (n) => seen.push(n));
    server.notify('events/network', { requestId: 'r1' });
    server.notify('events/page', { type: 'close', pageId: 'p1', timestamp: 3 });
    await server.waitFor(() => seen.length === 2);
    expect(seen).toEqual([
      { method: 'events/network', params: { requestId: 'r1' } },
      { method: 'events/page', params: { type: 'close', pageId: 'p1', timestamp: 3 } },
    ]);
  });

  it('off() and the function on() returns both stop delivery', async () => {
    const pages: string[] = [];
    const listener = (event: ClientEventMap['events/page']) => pages.push(event.pageId);
    client.on('events/page', listener);
    const unsubscribe = client.on('events/page', (event) => pages.push(`second:${event.pageId}`));
    server.notify('events/page', { type: 'load', pageId: 'a', timestamp: 1 });
    await server.waitFor(() => pages.length === 2);
    client.off('events/page', listener);
    unsubscribe();
    server.notify('events/page', { type: 'load', pageId: 'b', timestamp: 2 });
    await client.listPages().catch(() => undefined);
    expect(pages).toEqual(['a', 'second:a']);
  });

  it('reports malformed notifications and messages as EPROTOCOL errors', async () => {
    const errors: Error[] = [];
    client.on('error', (error) => errors.push(error));
    server.notify('events/console', { pageId: 'p1', level: 'shout', text: 'x', timestamp: 1 });
    server.sockets[0]!.send('not json');
    await server.waitFor(() => errors.length === 2);
    expect(errors.every((e) => e instanceof BAPClientError && e.code === 'EPROTOCOL')).toBe(true);
    expect(errors[0]!.message).toContain('level');
  });
});
