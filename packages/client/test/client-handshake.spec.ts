import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { BAPClient, BAPClientError, BAPError, CLIENT_INFO, ErrorCodes, PROTOCOL_VERSION } from '../src/index.js';
import { FakeServer } from './fakeServer.js';

let server: FakeServer | undefined;
let client: BAPClient | undefined;

afterEach(async () => {
  await client?.close();
  await server?.close();
  client = server = undefined;
});

describe('BAPClient handshake', () => {
  it('sends initialize, notifications/initialized and events/subscribe in order', async () => {
    server = await FakeServer.start();
    client = new BAPClient(server.url, { clientInfo: { name: 'spec', version: '1.2.3' } });
    const result = await client.connect();

    expect(server.received.map((r) => r.message.method)).toEqual([
      'initialize',
      'notifications/initialized',
      'events/subscribe',
    ]);
    expect(server.received[0]!.message.params).toEqual({
      protocolVersion: PROTOCOL_VERSION,
      clientInfo: { name: 'spec', version: '1.2.3' },
      capabilities: { events: ['page', 'console'] },
    });
    expect(server.received[1]!.message).not.toHaveProperty('id');
    expect(server.received[2]!.message.params).toEqual({ events: ['page', 'console'] });
    expect(result.serverInfo).toEqual({ name: 'fake-bap-server', version: '9.9.9' });
    expect(client.serverInfo).toEqual(result.serverInfo);
    expect(client.capabilities?.limits.maxBatchSize).toBe(100);
    expect(client.sessionId).toBe('session-1');
    expect(client.connected).toBe(true);
  });

  it('subscribes to the events it was given and puts the token on the URL', async () => {
    server = await FakeServer.start();
    client = new BAPClient(server.url, { token: 's3cret&x', events: ['network'] });
    await client.connect();
    expect(new URL(server.urls[0]!, 'ws://h').searchParams.get('token')).toBe('s3cret&x');
    expect(server.requests('events/subscribe')[0]!.message.params).toEqual({ events: ['network'] });
  });

  it('is idempotent while connected or connecting', async () => {
    server = await FakeServer.start();
    client = new BAPClient(server.url);
    const [a, b] = await Promise.all([client.connect(), client.connect()]);
    expect(a).toBe(b);
    expect(await client.connect()).toBe(a);
    expect(server.requests('initialize')).toHaveLength(1);
  });

  it('rejects a server of another major version with EVERSION and closes the socket', async () => {
    server = await FakeServer.start({ protocolVersion: '1.0.0' });
    client = new BAPClient(server.url);
    await expect(client.connect()).rejects.toMatchObject({ name: 'BAPClientError', code: 'EVERSION' });
    expect(server.requests('events/subscribe')).toHaveLength(0);
    await server.waitFor(() => server!.sockets[0]!.readyState === server!.sockets[0]!.CLOSED);
    expect(client.connected).toBe(false);
  });

  it('fails with ECONNECT when nothing listens', async () => {
    server = await FakeServer.start();
    const { url } = server;
    await server.close();
    server = undefined;
    client = new BAPClient(url);
    const error: unknown = await client.connect().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BAPClientError);
    expect(error).toMatchObject({ code: 'ECONNECT', message: expect.stringContaining('ECONNREFUSED') });
  });

  it('passes a handshake refused by the server on as the BAPError it is', async () => {
    server = await FakeServer.start();
    server.handle('initialize', () => {
      throw new BAPError(ErrorCodes.Unauthorized, 'Bad token', { recoveryHint: 'Pass a valid token' });
    });
    client = new BAPClient(server.url);
    const error: unknown = await client.connect().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BAPError);
    expect(error).toMatchObject({ code: ErrorCodes.Unauthorized, name: 'Unauthorized', recoveryHint: 'Pass a valid token' });
  });

  it('announces the version of its package.json', () => {
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { name: string; version: string };
    expect(CLIENT_INFO).toEqual({ name: pkg.name, version: pkg.version });
  });
});
