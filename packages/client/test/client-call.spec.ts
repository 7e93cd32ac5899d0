import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BAPClient, BAPClientError, BAPError, ErrorCodes, role } from '../src/index.js';
import { FakeServer, NO_REPLY } from './fakeServer.js';

let server: FakeServer;
let client: BAPClient;

beforeEach(async () => {
  server = await FakeServer.start({ reverseBatches: true });
  server.handle('page/navigate', (params) => ({ pageId: 'p1', url: params?.url, title: 'Example', status: 200 }));
  server.handle('page/list', () => ({ pages: [], activePage: null }));
  server.handle('action/click', () => {
    throw new BAPError(ErrorCodes.ElementNotFound, 'No element matches role:button:Go', {
      retryAfterMs: 500,
      recoveryHint: 'Take a new observe/ariaSnapshot and use a fresh ref',
    });
  });
  // requestTimeout also bounds opening the socket: short enough for the ETIMEOUT test, long
  // enough that connecting on a machine busy with browser tests never trips it.
  client = new BAPClient(server.url, { requestTimeout: 1_000 });
  await client.connect();
});

afterEach(async () => {
  await client.close();
  await server.close();
});

describe('BAPClient calls', () => {
  it('call() sends the method and resolves with its result', async () => {
    const result = await client.call('page/navigate', { url: 'http://example.test/' });
    expect(result).toEqual({ pageId: 'p1', url: 'http://example.test/', title: 'Example', status: 200 });
    const sent = server.requests('page/navigate')[0]!.message;
    expect(sent).toMatchObject({ jsonrpc: '2.0', method: 'page/navigate', params: { url: 'http://example.test/' } });
    expect(typeof sent.id).toBe('number');
  });

  it('rpc.<namespace>.<method> is built from the method table', async () => {
    expect(await client.rpc.page.navigate({ url: 'http://a.test/' })).toMatchObject({ url: 'http://a.test/' });
    expect(await client.rpc.page.list()).toEqual({ pages: [], activePage: null });
    expect(server.requests('page/list')[0]!.message.params).toEqual({});
    expect(Object.keys(client.rpc)).toEqual(expect.arrayContaining(['page', 'action', 'observe', 'events']));
    expect(client.rpc).not.toHaveProperty('initialize');
  });

  it('rebuilds wire errors as BAPError with retryable and recoveryHint', async () => {
    const error: unknown = await client.click(role('button', 'Go')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BAPError);
    const bap = error as BAPError;
    expect(bap.name).toBe('ElementNotFound');
    expect(bap.code).toBe(ErrorCodes.ElementNotFound);
    expect(bap.retryable).toBe(true);
    expect(bap.data.retryAfterMs).toBe(500);
    expect(bap.recoveryHint).toBe('Take a new observe/ariaSnapshot and use a fresh ref');
  });

  it('sends a batch as one array and settles each entry in request order', async () => {
    const [navigated, clicked, listed] = await client.batch([
      { method: 'page/navigate', params: { url: 'http://b.test/' } },
      { method: 'action/click', params: { selector: { type: 'css', value: '#go' } } },
      { method: 'page/list' },
    ]);
    expect(navigated).toMatchObject({ url: 'http://b.test/' });
    expect(clicked).toBeInstanceOf(BAPError);
    expect(listed).toEqual({ pages: [], activePage: null });
    const sent = server.received.filter((r) => r.batch);
    expect(sent.map((r) => r.message.method)).toEqual(['page/navigate', 'action/click', 'page/list']);
    expect(await client.batch([])).toEqual([]);
  });

  it('times out with ETIMEOUT, forgets the request, and keeps working', async () => {
    let answer: (() => void) | undefined;
    server.handle('observe/content', (_params, { socket, id }) => {
      // Answer only after the client gave up: the late reply must be dropped quietly.
      answer = () => socket.send(JSON.stringify({ jsonrpc: '2.0', id, result: {} }));
      return NO_REPLY;
    });
    const started = Date.now();
    const error: unknown = await client.content('text').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BAPClientError);
    expect(error).toMatchObject({ code: 'ETIMEOUT', message: 'observe/content timed out after 1000 ms' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(990);
    const errors: Error[] = [];
    client.on('error', (e) => errors.push(e));
    answer?.();
    expect(await client.listPages()).toEqual({ pages: [], activePage: null });
    expect(errors).toEqual([]);
  });

  it('parses selector strings in the helpers and passes objects through', async () => {
    server.handle('action/fill', () => ({}));
    server.handle('action/type', () => ({}));
    server.handle('action/press', () => ({}));
    server.handle('observe/ariaSnapshot', () => ({ pageId: 'p1', url: 'u', title: 't', snapshot: '- button', refCount: 1 }));
    await client.click('role:button:Submit', { force: true, pageId: 'p2' }).catch(() => undefined);
    await client.fill('@e5', 'hello');
    await client.type('label:Email', 'a@b.c', { delay: 5 });
    await client.press('Enter', 'coords:10,20');
    await client.press('Escape');
    await client.ariaSnapshot({ selector: 'text:Main' });

    const params = (method: string) => server.requests(method).map((r) => r.message.params);
    expect(params('action/click')).toEqual([
      { pageId: 'p2', selector: { type: 'role', role: 'button', name: 'Submit' }, options: { force: true } },
    ]);
    expect(params('action/fill')).toEqual([{ selector: { type: 'ref', ref: '@e5' }, options: {}, value: 'hello' }]);
    expect(params('action/type')).toEqual([
      { selector: { type: 'label', value: 'Email' }, options: { delay: 5 }, text: 'a@b.c' },
    ]);
    expect(params('action/press')).toEqual([
      { key: 'Enter', selector: { type: 'coordinates', x: 10, y: 20 } },
      { key: 'Escape' },
    ]);
    expect(params('observe/ariaSnapshot')).toEqual([{ selector: { type: 'text', value: 'Main' } }]);
  });

  it('sendRaw sends verbatim and resolves with the reply message', async () => {
    const reply = await client.sendRaw({ jsonrpc: '2.0', id: 'mine', method: 'page/list' });
    expect(reply).toEqual({ jsonrpc: '2.0', id: 'mine', result: { pages: [], activePage: null } });
    const replies = await client.sendRaw([
      { jsonrpc: '2.0', id: 7, method: 'page/list' },
      { jsonrpc: '2.0', method: 'notifications/whatever' },
    ]);
    expect(replies).toEqual([{ jsonrpc: '2.0', id: 7, result: { pages: [], activePage: null } }]);
    expect(await client.sendRaw({ jsonrpc: '2.0', method: 'notifications/whatever' })).toBeUndefined();
  });

  it('sendRaw waits for the error a malformed message is owed, and does not steal the next reply', async () => {
    const invalid = await client.sendRaw({ bogus: true });
    expect(invalid).toMatchObject({ id: null, error: { code: ErrorCodes.InvalidRequest } });
    expect(await client.sendRaw([{ jsonrpc: '2.0', id: 1, method: 'page/list' }])).toEqual([
      { jsonrpc: '2.0', id: 1, result: { pages: [], activePage: null } },
    ]);
    expect(await client.sendRaw([])).toMatchObject({ id: null, error: { code: ErrorCodes.InvalidRequest } });
  });

  it('sendRaw refuses an id that an unanswered request already uses', async () => {
    server.handle('observe/dom', () => NO_REPLY);
    const pending = client.rpc.observe.dom().catch((e: unknown) => e);
    await server.waitFor(() => server.requests('observe/dom').length === 1);
    const { id } = server.requests('observe/dom')[0]!.message;
    await expect(client.sendRaw({ jsonrpc: '2.0', id, method: 'page/list' })).rejects.toMatchObject({ code: 'EPROTOCOL' });
    expect(await pending).toMatchObject({ code: 'ETIMEOUT' });
  });

  it('rejects calls when not connected with ECLOSED', async () => {
    const idle = new BAPClient(server.url);
    await expect(idle.listPages()).rejects.toMatchObject({ code: 'ECLOSED' });
  });
});
