import { ErrorCodes, InitializeResultSchema, PROTOCOL_VERSION } from '@browseragentprotocol/protocol';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { expectErrorReply, expectResultReply } from './support/expectations.js';
import { startHarness, type Harness } from './support/harness.js';
import { isObject, type RawSocket } from './support/rawSocket.js';

// The examples of https://www.jsonrpc.org/specification#examples, with BAP methods in place of
// `subtract`, `update` and `get_data`.

const SILENCE_MS = 400;

let harness: Harness;
let socket: RawSocket;

beforeAll(async () => {
  harness = await startHarness({ connect: false });
});

afterAll(async () => {
  await harness?.stop();
});

describe('jsonrpc conformance: before initialize', () => {
  beforeEach(async () => {
    socket = await harness.rawSocket();
  });

  it('answers a method called before initialize with -32001 NotInitialized and the request id', async () => {
    await socket.send('{"jsonrpc":"2.0","method":"page/list","params":{},"id":7}');
    expectErrorReply(await socket.next(), ErrorCodes.NotInitialized, 7);
  });

  it('answers initialize with a result the protocol schema accepts, and a second initialize with -32002', async () => {
    await socket.send(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 'init-1',
        method: 'initialize',
        params: { protocolVersion: PROTOCOL_VERSION, clientInfo: { name: 'conformance', version: '1.0.0' } },
      }),
    );
    const result = expectResultReply(await socket.next(), 'init-1');
    const parsed = InitializeResultSchema.safeParse(result);
    expect(parsed.success, JSON.stringify(parsed.error?.issues)).toBe(true);
    expect(parsed.data!.protocolVersion.split('.').map(Number)[0]).toBe(0);
    expect(parsed.data!.capabilities.features.batch).toBe(true);

    await socket.send(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 'init-2',
        method: 'initialize',
        params: { protocolVersion: PROTOCOL_VERSION, clientInfo: { name: 'conformance', version: '1.0.0' } },
      }),
    );
    expectErrorReply(await socket.next(), ErrorCodes.AlreadyInitialized, 'init-2');
  });

  it('answers an initialize with a malformed protocolVersion with -32602 naming the field', async () => {
    await socket.send(
      '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"zero","clientInfo":{"name":"x","version":"1"}}}',
    );
    const reply = await socket.next();
    expectErrorReply(reply, ErrorCodes.InvalidParams, 1);
    expect((reply as { error: { message: string } }).error.message).toContain('protocolVersion');
  });
});

describe('jsonrpc conformance: specification examples', () => {
  beforeEach(async () => {
    socket = await harness.rawSocket();
    await socket.handshake('conformance');
  });

  it('rpc call with named parameters', async () => {
    await socket.send('{"jsonrpc":"2.0","method":"events/subscribe","params":{"events":["page"]},"id":1}');
    const result = expectResultReply(await socket.next(), 1);
    expect(result).toEqual({ subscribed: ['page'], unavailable: [] });
  });

  it('echoes string ids, id 0 and negative ids exactly', async () => {
    for (const id of ['abc-1', 0, -5, 'ünïcødé id']) {
      await socket.send(JSON.stringify({ jsonrpc: '2.0', method: 'page/list', params: {}, id }));
      expectResultReply(await socket.next(), id);
    }
  });

  it('accepts a request without params for a method whose params are all optional', async () => {
    await socket.send('{"jsonrpc":"2.0","method":"page/list","id":2}');
    const result = expectResultReply(await socket.next(), 2);
    expect(result).toMatchObject({ pages: [] });
  });

  it('a notification gets no reply', async () => {
    await socket.send('{"jsonrpc":"2.0","method":"notifications/initialized"}');
    await socket.send('{"jsonrpc":"2.0","method":"page/list","params":{}}');
    await socket.expectSilence(SILENCE_MS);
  });

  it('a notification of a non-existent method or with invalid params gets no reply either', async () => {
    await socket.send('{"jsonrpc":"2.0","method":"foobar"}');
    await socket.send('{"jsonrpc":"2.0","method":"page/navigate","params":{"url":5}}');
    await socket.expectSilence(SILENCE_MS);
  });

  it('rpc call of a non-existent method', async () => {
    await socket.send('{"jsonrpc":"2.0","method":"foobar","id":"1"}');
    const reply = await socket.next();
    expectErrorReply(reply, ErrorCodes.MethodNotFound, '1');
    expect((reply as { error: { message: string } }).error.message).toContain('foobar');
  });

  it('rpc call with invalid JSON', async () => {
    await socket.send('{"jsonrpc":"2.0","method":"foobar,"params":"bar","baz]');
    expectErrorReply(await socket.next(), ErrorCodes.ParseError, null);
  });

  it('rpc call with invalid Request object', async () => {
    await socket.send('{"jsonrpc":"2.0","method":1,"params":"bar"}');
    expectErrorReply(await socket.next(), ErrorCodes.InvalidRequest, null);
  });

  it('params that are not a structured value make an invalid Request object', async () => {
    for (const params of ['"bar"', '1', 'true', 'null']) {
      await socket.send(`{"jsonrpc":"2.0","method":"page/list","params":${params},"id":3}`);
      const reply = await socket.next();
      expect((reply as { error?: { code?: number } }).error?.code, `params ${params}: ${JSON.stringify(reply)}`).toBe(
        ErrorCodes.InvalidRequest,
      );
    }
  });

  it('rpc call Batch, invalid JSON', async () => {
    await socket.send(
      '[{"jsonrpc":"2.0","method":"page/list","params":{},"id":"1"},{"jsonrpc":"2.0","method"]',
    );
    const reply = await socket.next();
    expect(Array.isArray(reply)).toBe(false);
    expectErrorReply(reply, ErrorCodes.ParseError, null);
  });

  it('rpc call with an empty Array', async () => {
    await socket.send('[]');
    const reply = await socket.next();
    expect(Array.isArray(reply), JSON.stringify(reply)).toBe(false);
    expectErrorReply(reply, ErrorCodes.InvalidRequest, null);
  });

  it('rpc call with an invalid Batch (but not empty)', async () => {
    await socket.send('[1]');
    const reply = await socket.next();
    expect(Array.isArray(reply), JSON.stringify(reply)).toBe(true);
    expect(reply).toHaveLength(1);
    expectErrorReply((reply as unknown[])[0], ErrorCodes.InvalidRequest, null);
  });

  it('rpc call with invalid Batch', async () => {
    await socket.send('[1,2,3]');
    const reply = await socket.next();
    expect(Array.isArray(reply), JSON.stringify(reply)).toBe(true);
    expect(reply).toHaveLength(3);
    for (const item of reply as unknown[]) expectErrorReply(item, ErrorCodes.InvalidRequest, null);
  });

  it('rpc call Batch: one array reply holding the requests only', async () => {
    await socket.send(
      JSON.stringify([
        { jsonrpc: '2.0', method: 'page/list', params: {}, id: '1' },
        { jsonrpc: '2.0', method: 'notifications/initialized' },
        { jsonrpc: '2.0', method: 'page/navigate', params: { url: 5 }, id: '2' },
        { foo: 'boo' },
        { jsonrpc: '2.0', method: 'foo.get', params: { name: 'myself' }, id: '5' },
        { jsonrpc: '2.0', method: 'events/subscribe', params: { events: ['console'] }, id: '9' },
      ]),
    );
    const reply = await socket.next();
    expect(Array.isArray(reply), JSON.stringify(reply)).toBe(true);
    const items = reply as Array<{ id: unknown }>;
    expect(items).toHaveLength(5);
    const byId = (id: unknown) => items.filter((item) => isObject(item) && item.id === id);
    expect(byId('1')).toHaveLength(1);
    expect(expectResultReply(byId('1')[0], '1')).toMatchObject({ pages: [] });
    expect(byId('2')).toHaveLength(1);
    expectErrorReply(byId('2')[0], ErrorCodes.InvalidParams, '2');
    expect(byId(null)).toHaveLength(1);
    expectErrorReply(byId(null)[0], ErrorCodes.InvalidRequest, null);
    expect(byId('5')).toHaveLength(1);
    expectErrorReply(byId('5')[0], ErrorCodes.MethodNotFound, '5');
    expect(byId('9')).toHaveLength(1);
    expect(expectResultReply(byId('9')[0], '9')).toEqual({ subscribed: ['console'], unavailable: [] });
    await socket.expectSilence(SILENCE_MS);
  });

  it('rpc call Batch (all notifications): no reply at all', async () => {
    await socket.send(
      JSON.stringify([
        { jsonrpc: '2.0', method: 'notifications/initialized' },
        { jsonrpc: '2.0', method: 'page/list', params: {} },
      ]),
    );
    await socket.expectSilence(SILENCE_MS);
    await socket.send('{"jsonrpc":"2.0","method":"page/list","params":{},"id":"after"}');
    expectResultReply(await socket.next(), 'after');
  });
});

describe('jsonrpc conformance: errors raised by the browser side', () => {
  beforeEach(async () => {
    socket = await harness.rawSocket();
    await socket.handshake('conformance');
  });

  it('carry data.retryable (and a recovery hint where there is one) on the wire', async () => {
    const missingPage = await socket.request('observe/content', { pageId: 'no-such-page' });
    expectErrorReply(missingPage, ErrorCodes.PageNotFound, missingPage.id as number);

    const created = await socket.request('page/create', { url: harness.url('list.html') });
    const pageId = expectResultReply(created, created.id as number).id as string;
    const unknownRef = await socket.request('action/click', { pageId, selector: { type: 'ref', ref: '@e9999' } });
    expectErrorReply(unknownRef, ErrorCodes.ElementNotFound, unknownRef.id as number);
    const data = (unknownRef as { error: { data: { retryable: boolean; recoveryHint?: string } } }).error.data;
    expect(data.recoveryHint).toEqual(expect.stringMatching(/\S/));

    const slow = await socket.request('page/navigate', { pageId, url: harness.url('slow?ms=3000'), timeout: 200 });
    expectErrorReply(slow, ErrorCodes.Timeout, slow.id as number);
    expect((slow as { error: { data: { retryable: boolean } } }).error.data.retryable).toBe(true);
  });
});

describe('jsonrpc conformance: invalid params name the field', () => {
  beforeEach(async () => {
    socket = await harness.rawSocket();
    await socket.handshake('conformance');
  });

  const cases: Array<{ method: string; params: unknown; field: string }> = [
    { method: 'page/navigate', params: { url: 5 }, field: 'url' },
    { method: 'page/navigate', params: {}, field: 'url' },
    { method: 'page/navigate', params: { url: 'http://127.0.0.1/', waitUntil: 'soon' }, field: 'waitUntil' },
    { method: 'page/navigate', params: { url: 'http://127.0.0.1/', surprise: true }, field: 'surprise' },
    { method: 'action/click', params: { selector: { type: 'css' } }, field: 'value' },
    { method: 'action/click', params: { selector: { type: 'nope', value: 'x' } }, field: 'selector' },
    { method: 'action/fill', params: { selector: { type: 'css', value: '#a' } }, field: 'value' },
    { method: 'action/press', params: { key: '' }, field: 'key' },
    { method: 'observe/screenshot', params: { options: { format: 'gif' } }, field: 'format' },
    { method: 'observe/screenshot', params: { options: { quality: 101 } }, field: 'quality' },
    { method: 'page/list', params: { verbose: true }, field: 'verbose' },
    { method: 'events/subscribe', params: { events: ['telepathy'] }, field: 'events' },
  ];

  for (const { method, params, field } of cases) {
    it(`${method} ${JSON.stringify(params)} → -32602 naming "${field}"`, async () => {
      await socket.send(JSON.stringify({ jsonrpc: '2.0', id: 42, method, params }));
      const reply = await socket.next();
      expectErrorReply(reply, ErrorCodes.InvalidParams, 42);
      expect((reply as { error: { message: string } }).error.message).toContain(field);
    });
  }

  it('every reply is jsonrpc 2.0 with exactly one of result and error', async () => {
    const frames = [
      '{"jsonrpc":"2.0","method":"page/list","id":1}',
      '{"jsonrpc":"2.0","method":"nope","id":2}',
      '{"jsonrpc":"2.0","method":"page/navigate","params":{},"id":3}',
      '{"jsonrpc":"2.0","method":',
    ];
    for (const frame of frames) {
      await socket.send(frame);
      const reply = (await socket.next()) as Record<string, unknown>;
      expect(reply.jsonrpc).toBe('2.0');
      expect(Number('result' in reply) + Number('error' in reply), JSON.stringify(reply)).toBe(1);
    }
  });
});
