import { afterEach, describe, expect, it } from 'vitest';
import { BAPClient, BAPClientError, type ClientEventMap } from '../src/index.js';
import { FakeServer, NO_REPLY } from './fakeServer.js';

let server: FakeServer;
let client: BAPClient;

afterEach(async () => {
  await client.close();
  await server.close();
});

function record(c: BAPClient) {
  const events: { event: string; payload: unknown }[] = [];
  for (const event of ['reconnecting', 'reconnected', 'close', 'error'] as const) {
    c.on(event, (payload: ClientEventMap[typeof event]) => events.push({ event, payload }));
  }
  return events;
}

describe('BAPClient reconnect', () => {
  it('rejects pending calls with ECLOSED, backs off, and re-runs the handshake with the session id', async () => {
    server = await FakeServer.start();
    server.handle('page/list', () => NO_REPLY);
    client = new BAPClient(server.url, { reconnect: { initialDelayMs: 20, maxDelayMs: 200 } });
    const events = record(client);
    await client.connect();

    const pending = client.listPages();
    await server.waitFor(() => server.requests('page/list').length === 1);
    server.refuseNext(2);
    server.dropAll();

    await expect(pending).rejects.toMatchObject({ name: 'BAPClientError', code: 'ECLOSED' });
    await expect(client.listPages()).rejects.toMatchObject({ code: 'ECLOSED' });
    await server.waitFor(() => events.some((e) => e.event === 'reconnected'));

    const attempts = events.filter((e) => e.event === 'reconnecting').map((e) => e.payload as ClientEventMap['reconnecting']);
    expect(attempts.map((a) => a.attempt)).toEqual([1, 2, 3]);
    // Equal jitter: each delay lies in [ceiling/2, ceiling] with the ceiling doubling from 20 ms.
    attempts.forEach(({ attempt, delayMs }) => {
      const ceiling = 20 * 2 ** (attempt - 1);
      expect(delayMs).toBeGreaterThanOrEqual(ceiling / 2);
      expect(delayMs).toBeLessThanOrEqual(ceiling);
    });
    expect(events.at(-1)).toEqual({ event: 'reconnected', payload: { attempt: 3, sessionId: 'session-1', resumed: true } });

    const inits = server.requests('initialize');
    expect(inits).toHaveLength(2);
    expect(inits[1]!.message.params).toMatchObject({ sessionId: 'session-1' });
    expect(server.requests('events/subscribe').map((r) => r.connection)).toEqual([0, 1]);
    // The pending call was not replayed on the new connection.
    expect(server.requests('page/list').map((r) => r.connection)).toEqual([0]);
    server.handle('page/list', () => ({ pages: [], activePage: null }));
    expect(await client.listPages()).toEqual({ pages: [], activePage: null });
  });

  it('gives up after maxAttempts with an ECONNECT error, then closes', async () => {
    server = await FakeServer.start();
    client = new BAPClient(server.url, { reconnect: { maxAttempts: 2, initialDelayMs: 5 } });
    const events = record(client);
    await client.connect();
    server.refuseNext(10);
    server.dropAll();
    await server.waitFor(() => events.some((e) => e.event === 'close'));
    expect(events.map((e) => e.event)).toEqual(['reconnecting', 'reconnecting', 'error', 'close']);
    const error = events[2]!.payload;
    expect(error).toBeInstanceOf(BAPClientError);
    expect(error).toMatchObject({ code: 'ECONNECT', message: expect.stringContaining('503') });
    expect(client.connected).toBe(false);
  });

  it('does not reconnect after a policy close (1008)', async () => {
    server = await FakeServer.start();
    client = new BAPClient(server.url, { reconnect: true });
    const events = record(client);
    await client.connect();
    server.sockets[0]!.close(1008, 'token revoked');
    await server.waitFor(() => events.length > 0);
    expect(events).toEqual([{ event: 'close', payload: { code: 1008, reason: 'token revoked' } }]);
  });

  it('does not reconnect unless asked to', async () => {
    server = await FakeServer.start();
    client = new BAPClient(server.url);
    const events = record(client);
    await client.connect();
    server.dropAll();
    await server.waitFor(() => events.length > 0);
    expect(events).toEqual([{ event: 'close', payload: { code: 1006, reason: '' } }]);
  });

  it('close() sends shutdown, closes the socket and never reconnects', async () => {
    server = await FakeServer.start();
    client = new BAPClient(server.url, { reconnect: { initialDelayMs: 5 } });
    const events = record(client);
    await client.connect();
    await client.close();
    expect(server.received.at(-1)!.message).toMatchObject({ method: 'shutdown', params: {} });
    await server.waitFor(() => server.sockets[0]!.readyState === server.sockets[0]!.CLOSED);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(server.sockets).toHaveLength(1);
    expect(events).toEqual([{ event: 'close', payload: { code: 1000, reason: 'client closed' } }]);
    await expect(client.listPages()).rejects.toMatchObject({ code: 'ECLOSED' });
  });

  it('close() during backoff stops reconnecting', async () => {
    server = await FakeServer.start();
    client = new BAPClient(server.url, { reconnect: { initialDelayMs: 10_000, maxDelayMs: 10_000 } });
    const events = record(client);
    await client.connect();
    server.dropAll();
    await server.waitFor(() => events.length > 0);
    await client.close();
    expect(events.map((e) => e.event)).toEqual(['reconnecting', 'close']);
    expect(server.sockets).toHaveLength(1);
  });
});
