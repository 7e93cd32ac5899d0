import type { BAPClient } from '@browseragentprotocol/client';
import { ErrorCodes, NetworkEventSchema, type NetworkEvent, type Selector } from '@browseragentprotocol/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectBAPError } from './support/expectations.js';
import { startHarness, type Harness } from './support/harness.js';
import { css, textOf } from './support/observe.js';

let h: Harness;

beforeAll(async () => {
  h = await startHarness({ connect: false });
});

afterAll(async () => {
  await h?.stop();
});

type Of<T extends NetworkEvent['type']> = Extract<NetworkEvent, { type: T }>;

/** A fresh session subscribed to network events, and the events it receives. */
async function session() {
  const client = await h.newClient();
  await client.call('events/subscribe', { events: ['network'] });
  const events: NetworkEvent[] = [];
  client.on('events/network', (event) => events.push(event));
  const find = async <T extends NetworkEvent['type']>(type: T, match: (e: Of<T>) => boolean = () => true): Promise<Of<T>> => {
    let found: Of<T> | undefined;
    await expect
      .poll(() => (found = events.find((e): e is Of<T> => e.type === type && match(e as Of<T>))), { timeout: 10_000 })
      .toBeDefined();
    return found!;
  };
  return { client, events, find };
}

const button = (name: string): Selector => ({ type: 'role', role: 'button', name });
const result = (client: BAPClient) => textOf(client, css('#result'));
const open = (client: BAPClient) => client.call('page/navigate', { url: h.url('network-fetch.html') });

describe('events/network', () => {
  it('reports request and response under one requestId, with status, resource type and timing', async () => {
    const { client, events, find } = await session();
    const { pageId } = await open(client);
    const request = await find('request', (e) => e.url === h.url('network-fetch.html'));
    expect(request).toMatchObject({ pageId, method: 'GET', resourceType: 'document' });
    expect(request.requestId).toMatch(/^req-\d+$/);
    expect(request.intercepted).toBeUndefined();
    const response = await find('response', (e) => e.requestId === request.requestId);
    expect(response).toMatchObject({ pageId, status: 200, resourceType: 'document', url: request.url });
    expect(response.headers['content-type']).toContain('text/html');
    expect(response.timing).toBeDefined();
    expect(response.timing!.ttfb).toBeGreaterThanOrEqual(0);
    expect(response.timing!.download).toBeGreaterThanOrEqual(0);
    expect(response.timestamp).toBeGreaterThanOrEqual(request.timestamp);

    await client.call('action/click', { selector: button('Send data') });
    const post = await find('request', (e) => e.url.endsWith('/echo?from=post'));
    expect(post).toMatchObject({ method: 'POST', resourceType: 'fetch', postData: 'hello=world' });
    await find('response', (e) => e.requestId === post.requestId && e.status === 200);

    const ids = events.filter((e) => e.type === 'request').map((e) => e.requestId);
    expect(new Set(ids).size).toBe(ids.length);
    for (const event of events) expect(NetworkEventSchema.safeParse(event).success, JSON.stringify(event)).toBe(true);
  });
});

describe('network/intercept with handler callback', () => {
  it('pauses a matching request until network/fulfill answers it, and the page gets that response', async () => {
    const { client, find } = await session();
    await open(client);
    const rule = await client.call('network/intercept', { patterns: [{ urlPattern: '**/api/data' }] });
    expect(rule).toEqual({ interceptId: expect.stringMatching(/^intercept-\d+$/), active: 1 });

    await client.call('action/click', { selector: button('Load data') });
    const paused = await find('request', (e) => e.url.endsWith('/api/data'));
    expect(paused).toMatchObject({ intercepted: true, resourceType: 'fetch', method: 'GET' });
    expect(await result(client)).toBe('loading');

    await client.call('network/fulfill', {
      requestId: paused.requestId,
      response: { status: 200, contentType: 'text/plain', body: 'served by the agent' },
    });
    await expect.poll(() => result(client)).toBe('200 served by the agent');
    const response = await find('response', (e) => e.requestId === paused.requestId);
    expect(response).toMatchObject({ status: 200, fulfilled: true });

    const { error } = await expectBAPError(
      () => client.call('network/fulfill', { requestId: paused.requestId, response: { body: 'again' } }),
      ErrorCodes.InterceptedRequest,
    );
    expect(error.message).toContain(`${paused.requestId} is no longer paused: it was fulfilled`);
    expect(error.recoveryHint).toContain('intercepted: true');
  });

  it('answers a paused document while page/navigate is still waiting for it', async () => {
    const { client, find } = await session();
    await client.call('network/intercept', { patterns: [{ urlPattern: '**/virtual.html', resourceType: 'document' }] });
    const navigating = client.call('page/navigate', { url: h.url('virtual.html') });
    const paused = await find('request', (e) => e.url.endsWith('/virtual.html'));
    expect(paused).toMatchObject({ intercepted: true, resourceType: 'document' });
    await client.call('network/fulfill', {
      requestId: paused.requestId,
      response: { contentType: 'text/html', body: '<title>Virtual</title><h1>Served by the agent</h1>' },
    });
    expect(await navigating).toMatchObject({ status: 200, url: h.url('virtual.html') });
    expect(await textOf(client, { type: 'role', role: 'heading' })).toBe('Served by the agent');
  });

  it('network/abort fails the request: the page sees a failure, the event says blocked', async () => {
    const { client, find } = await session();
    await open(client);
    await client.call('network/intercept', { patterns: [{ urlPattern: '/\\/api\\/data$/' }] });
    await client.call('action/click', { selector: button('Load data') });
    const paused = await find('request', (e) => e.url.endsWith('/api/data'));
    await client.call('network/abort', { requestId: paused.requestId, reason: 'accessdenied' });
    await expect.poll(() => result(client)).toMatch(/^failed: /);
    const failed = await find('failed', (e) => e.requestId === paused.requestId);
    expect(failed).toMatchObject({ blocked: true, resourceType: 'fetch' });
    expect(failed.error).toMatch(/ACCESS_DENIED/);
  });

  it('network/continue sends the request on, to another URL and with added headers', async () => {
    const { client, find } = await session();
    await open(client);
    await client.call('network/intercept', { patterns: [{ urlPattern: '**/api/data', method: 'GET', resourceType: 'fetch' }] });
    await client.call('action/click', { selector: button('Load data') });
    const paused = await find('request', (e) => e.url.endsWith('/api/data'));
    await client.call('network/continue', {
      requestId: paused.requestId,
      overrides: { url: h.url('/echo?from=override'), headers: { 'X-Agent': 'bap' } },
    });
    await expect.poll(() => result(client)).toMatch(/^200 /);
    const echo = JSON.parse((await result(client)).slice(4)) as { method: string; url: string; headers: Record<string, string> };
    expect(echo).toMatchObject({ method: 'GET', url: '/echo?from=override' });
    expect(echo.headers).toMatchObject({ 'x-agent': 'bap', 'x-page': 'yes' });
  });

  it('network/continue can change the method and body', async () => {
    const { client, find } = await session();
    await open(client);
    await client.call('network/intercept', { patterns: [{ urlPattern: '**/echo?from=page' }] });
    await client.call('action/click', { selector: button('Load echo') });
    const paused = await find('request', (e) => e.url.endsWith('/echo?from=page'));
    await client.call('network/continue', { requestId: paused.requestId, overrides: { method: 'PUT', postData: 'changed' } });
    await expect.poll(() => result(client)).toMatch(/^200 /);
    expect(JSON.parse((await result(client)).slice(4))).toMatchObject({ method: 'PUT', body: 'changed' });
  });

  it('a paused request nobody answers continues after the timeout', async () => {
    const { client, find } = await session();
    await open(client);
    await client.call('network/intercept', { patterns: [{ urlPattern: '**/echo?from=page' }], timeout: 300 });
    await client.call('action/click', { selector: button('Load echo') });
    const paused = await find('request', (e) => e.url.endsWith('/echo?from=page'));
    expect(paused.intercepted).toBe(true);
    await expect.poll(() => result(client), { timeout: 5_000 }).toMatch(/^200 \{"method":"GET"/);
    const { error } = await expectBAPError(() => client.call('network/continue', { requestId: paused.requestId }), ErrorCodes.InterceptedRequest);
    expect(error.message).toContain('continued after the 300 ms intercept timeout');
  });

  it('an unknown requestId is -32022 with a hint', async () => {
    const { client } = await session();
    const { error } = await expectBAPError(() => client.call('network/abort', { requestId: 'req-999999' }), ErrorCodes.InterceptedRequest);
    expect(error.message).toBe('Request req-999999 is not paused: no intercepted request has that id.');
    expect(error.recoveryHint).toBeTruthy();
  });

  it('a paused request is let go when its context closes', async () => {
    const { client, find } = await session();
    await client.call('context/create', { contextId: 'closing' });
    const page = await client.call('page/create', { contextId: 'closing', url: h.url('network-fetch.html') });
    await client.call('network/intercept', { contextId: 'closing', patterns: [{ urlPattern: '**/api/data' }] });
    await client.call('action/click', { pageId: page.id, selector: button('Load data') });
    const paused = await find('request', (e) => e.url.endsWith('/api/data'));
    await client.call('context/destroy', { contextId: 'closing' });
    const { error } = await expectBAPError(
      () => client.call('network/fulfill', { requestId: paused.requestId, response: { body: 'late' } }),
      ErrorCodes.InterceptedRequest,
    );
    expect(error.message).toContain('released when its context closed');
  });
});

describe('network/intercept with handlers that decide at once', () => {
  it('respond answers every match with the given response', async () => {
    const { client, find } = await session();
    await client.call('network/intercept', {
      patterns: [{ urlPattern: 'api/data' }],
      handler: 'respond',
      response: { status: 201, contentType: 'text/plain', body: Buffer.from('canned ✓').toString('base64'), bodyEncoding: 'base64' },
    });
    await open(client);
    await client.call('action/click', { selector: button('Load data') });
    await expect.poll(() => result(client)).toBe('201 canned ✓');
    const request = await find('request', (e) => e.url.endsWith('/api/data'));
    expect(request.intercepted).toBeUndefined();
    expect(await find('response', (e) => e.requestId === request.requestId)).toMatchObject({ status: 201, fulfilled: true });
  });

  it('abort blocks only what matches (here: POST), and the most recent rule wins', async () => {
    const { client, find } = await session();
    await open(client);
    await client.call('network/intercept', { patterns: [{ urlPattern: '**/echo*' }], handler: 'continue' });
    const rule = await client.call('network/intercept', { patterns: [{ method: 'POST' }], handler: 'abort' });
    expect(rule.active).toBe(2);
    await client.call('action/click', { selector: button('Load echo') });
    await expect.poll(() => result(client)).toMatch(/^200 /);
    await client.call('action/click', { selector: button('Send data') });
    await expect.poll(() => result(client)).toMatch(/^failed: /);
    const post = await find('request', (e) => e.method === 'POST');
    expect(await find('failed', (e) => e.requestId === post.requestId)).toMatchObject({ blocked: true, error: expect.stringContaining('net::ERR_BLOCKED_BY_CLIENT') });
  });

  it('empty patterns remove the rules of the context', async () => {
    const { client } = await session();
    await open(client);
    await client.call('network/intercept', { patterns: [{ urlPattern: '**/echo*' }], handler: 'abort' });
    expect(await client.call('network/intercept', { patterns: [] })).toEqual({ interceptId: null, active: 0 });
    await client.call('action/click', { selector: button('Load echo') });
    await expect.poll(() => result(client)).toMatch(/^200 /);
  });

  it('rejects a bad pattern or a respond rule without response, naming the field', async () => {
    const { client } = await session();
    await open(client);
    const bad = await expectBAPError(
      () => client.call('network/intercept', { patterns: [{ urlPattern: '**/ok' }, { urlPattern: '/(unclosed/' }] }),
      ErrorCodes.InvalidParams,
    );
    expect(bad.error.message).toContain('params.patterns.1.urlPattern');
    const missing = await expectBAPError(
      () => client.call('network/intercept', { patterns: [{ urlPattern: '**/api/data' }], handler: 'respond' }),
      ErrorCodes.InvalidParams,
    );
    expect(missing.error.message).toContain('params.response');
    // Neither call left a rule behind.
    await client.call('action/click', { selector: button('Load echo') });
    await expect.poll(() => result(client)).toMatch(/^200 /);
  });
});
