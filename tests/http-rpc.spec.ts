import { execFile, execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { ErrorCodes, PROTOCOL_VERSION } from '@browseragentprotocol/protocol';
import { startServer } from '@browseragentprotocol/server-playwright';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness, type RunningServer } from './support/harness.js';

/** How long a test waits to be sure an event is not coming. */
const QUIET_MS = 500;

let h: Harness;
let base: string;

beforeAll(async () => {
  h = await startHarness({ connect: false, server: { requestsPerSecond: 10_000 } });
  base = h.server.httpUrl;
});

afterAll(async () => {
  await h?.stop();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** What the tests read from a body: a JSON-RPC response, or an HTTP refusal's `{error}`. */
interface Body {
  jsonrpc?: string;
  id?: number | string | null;
  result?: CallResult;
  error?: { code: number; name?: string; message: string; data: { retryable: boolean } };
}

interface CallResult {
  id?: string;
  protocolVersion?: string;
  subscribed?: string[];
  pages?: { id: string }[];
}

interface Reply {
  status: number;
  session: string | null;
  headers: Headers;
  /** The parsed body (a batch reply is an array: see responses()); undefined when there is none. */
  body: Body;
}

/** A batch reply's responses. */
function responses(reply: Reply): Body[] {
  expect(Array.isArray(reply.body), JSON.stringify(reply.body)).toBe(true);
  return reply.body as Body[];
}

interface PostOptions {
  session?: string;
  token?: string;
  path?: string;
  contentType?: string;
  server?: string;
}

async function post(body: unknown, options: PostOptions = {}): Promise<Reply> {
  const headers: Record<string, string> = { 'content-type': options.contentType ?? 'application/json' };
  if (options.session) headers['BAP-Session-Id'] = options.session;
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  const response = await fetch(`${options.server ?? base}${options.path ?? '/rpc'}`, {
    method: 'POST',
    headers,
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return reply(response);
}

async function reply(response: Response): Promise<Reply> {
  const text = await response.text();
  return { status: response.status, session: response.headers.get('bap-session-id'), headers: response.headers, body: (text ? JSON.parse(text) : undefined) as Body };
}

let nextId = 1;
const request = (method: string, params: Record<string, unknown> = {}) => ({ jsonrpc: '2.0', id: nextId++, method, params });
const notification = (method: string, params: Record<string, unknown> = {}) => ({ jsonrpc: '2.0', method, params });
const initialize = () => request('initialize', { protocolVersion: PROTOCOL_VERSION, clientInfo: { name: 'http-rpc-test', version: '1' } });

/** A session opened the way a plain-HTTP client would: initialize, initialized, subscribe. */
async function open(options: PostOptions = {}, events = ['page', 'console']): Promise<string> {
  const init = await post(initialize(), options);
  expect(init.status).toBe(200);
  expect(init.body.result?.protocolVersion).toBe(PROTOCOL_VERSION);
  const session = init.session!;
  expect(session).toMatch(/^[0-9a-f-]{36}$/);
  expect((await post(notification('notifications/initialized'), { ...options, session })).status).toBe(202);
  const subscribed = await post(request('events/subscribe', { events }), { ...options, session });
  expect(subscribed.body.result?.subscribed).toEqual(events);
  return session;
}

/** Calls one method on a session and returns its result (the test fails on a JSON-RPC error). */
async function call(session: string, method: string, params: Record<string, unknown> = {}, options: PostOptions = {}): Promise<CallResult> {
  const { status, body } = await post(request(method, params), { ...options, session });
  expect(status).toBe(200);
  expect(body.error, JSON.stringify(body.error)).toBeUndefined();
  return body.result!;
}

interface SseMessage {
  id: number;
  method: string;
  params: EventParams;
}

interface EventParams {
  pageId?: string;
  type?: string;
  text?: string;
}

/** A GET /events stream read by hand: `id:` / `data:` fields, `:` comments, blank-line separated. */
class EventStream {
  readonly messages: SseMessage[] = [];
  readonly comments: string[] = [];
  readonly status: number;
  /** The server ended the stream. */
  ended = false;
  readonly contentType: string | null;
  private constructor(
    private readonly response: Response,
    private readonly abort: AbortController,
  ) {
    this.status = response.status;
    this.contentType = response.headers.get('content-type');
  }

  static async open(session: string, options: { lastEventId?: number; query?: string; token?: string; server?: string; header?: boolean } = {}): Promise<EventStream> {
    const abort = new AbortController();
    const headers: Record<string, string> = {};
    if (options.header !== false) headers['BAP-Session-Id'] = session;
    if (options.lastEventId !== undefined) headers['Last-Event-ID'] = String(options.lastEventId);
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    const query = options.header === false ? `?session=${session}${options.query ? `&${options.query}` : ''}` : options.query ? `?${options.query}` : '';
    const response = await fetch(`${options.server ?? base}/events${query}`, { headers, signal: abort.signal });
    const stream = new EventStream(response, abort);
    if (response.ok) void stream.read();
    return stream;
  }

  /** The messages' SSE ids, in arrival order. */
  get ids(): number[] {
    return this.messages.map((m) => m.id);
  }

  of(method: string): EventParams[] {
    return this.messages.filter((m) => m.method === method).map((m) => m.params);
  }

  /** Drops the connection, as a network failure would. */
  close(): void {
    this.abort.abort();
  }

  private async read(): Promise<void> {
    const decoder = new TextDecoder();
    let buffer = '';
    const reader = this.response.body!.getReader();
    try {
      for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
        buffer += decoder.decode(chunk.value, { stream: true });
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          this.parse(buffer.slice(0, end));
          buffer = buffer.slice(end + 2);
        }
      }
      this.ended = true;
    } catch (error) {
      if ((error as Error).name !== 'AbortError') throw error;
    }
  }

  private parse(block: string): void {
    let id: number | undefined;
    let data = '';
    for (const line of block.split('\n')) {
      if (line.startsWith(':')) this.comments.push(line.slice(1).trim());
      else if (line.startsWith('id: ')) id = Number(line.slice(4));
      else if (line.startsWith('data: ')) data += line.slice(6);
    }
    if (id === undefined) return;
    const message = JSON.parse(data) as { method: string; params: EventParams };
    this.messages.push({ id, method: message.method, params: message.params });
  }
}

describe('POST /rpc', () => {
  it('answers a request with its JSON-RPC response and names the new session in BAP-Session-Id', async () => {
    const init = initialize();
    const first = await post(init);
    expect(first.status).toBe(200);
    expect(first.headers.get('content-type')).toBe('application/json');
    expect(first.body).toMatchObject({ jsonrpc: '2.0', id: init.id, result: { protocolVersion: PROTOCOL_VERSION } });
    const session = first.session!;
    expect(session).toBeTruthy();

    const list = request('page/list');
    const second = await post(list, { session });
    expect(second.status).toBe(200);
    expect(second.session).toBe(session);
    expect(second.body).toEqual({ jsonrpc: '2.0', id: list.id, result: { pages: [], activePage: null } });
  });

  it('answers a batch with an array of responses, and a notification alone with 202 and no body', async () => {
    const session = await open();
    const pages = request('page/list');
    const contexts = request('context/list');
    const batch = await post([pages, notification('notifications/initialized'), contexts], { session });
    expect(batch.status).toBe(200);
    const replies = responses(batch);
    expect(replies.map((r) => r.id).sort()).toEqual([pages.id, contexts.id].sort());
    expect(replies.every((r) => r.result !== undefined)).toBe(true);

    // An invalid item keeps its own error reply next to the valid one's result.
    const mixed = responses(await post([1, pages] as never, { session }));
    expect(mixed.map((r) => [r.id, r.error?.code ?? 'ok'])).toEqual([
      [null, -32600],
      [pages.id, 'ok'],
    ]);

    const alone = await fetch(`${base}/rpc`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'BAP-Session-Id': session },
      body: JSON.stringify(notification('notifications/initialized')),
    });
    expect(alone.status).toBe(202);
    expect(await alone.text()).toBe('');
    expect(alone.headers.get('bap-session-id')).toBe(session);

    const notificationsOnly = await post([notification('notifications/initialized'), notification('notifications/initialized')], { session });
    expect(notificationsOnly.status).toBe(202);
  });

  it('keeps JSON-RPC errors at HTTP 200: unknown method, bad params, parse error, empty batch', async () => {
    const session = await open();
    const unknown = request('page/teleport');
    expect((await post(unknown, { session })).body).toMatchObject({ id: unknown.id, error: { code: ErrorCodes.MethodNotFound, data: { retryable: false } } });

    const bad = request('page/navigate', { url: 42 });
    const badReply = await post(bad, { session });
    expect(badReply.status).toBe(200);
    expect(badReply.body).toMatchObject({ id: bad.id, error: { code: ErrorCodes.InvalidParams } });
    expect(badReply.body.error?.message).toContain('url');

    const parse = await post('{"jsonrpc": "2.0", "id": 1, "method": ', { session });
    expect(parse.status).toBe(200);
    expect(parse.session).toBe(session);
    expect(parse.body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: ErrorCodes.ParseError } });

    const empty = await post([], { session });
    expect(empty.status).toBe(200);
    expect(empty.body).toMatchObject({ id: null, error: { code: ErrorCodes.InvalidRequest } });
  });

  it('a request without a session that does not initialize gets NotInitialized and no session', async () => {
    const list = request('page/list');
    const reply = await post(list);
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ id: list.id, error: { code: ErrorCodes.NotInitialized } });
    expect(reply.session).toBeNull();

    const parse = await post('not json');
    expect(parse.body).toMatchObject({ id: null, error: { code: ErrorCodes.ParseError } });
    expect(parse.session).toBeNull();
  });

  it('a second initialize on the session is AlreadyInitialized; a batch can open a session', async () => {
    const session = await open();
    expect((await post(initialize(), { session })).body.error?.code).toBe(ErrorCodes.AlreadyInitialized);

    const init = initialize();
    const list = request('page/list');
    const batch = await post([init, notification('notifications/initialized')], {});
    expect(responses(batch)).toMatchObject([{ id: init.id, result: { protocolVersion: PROTOCOL_VERSION } }]);
    expect((await post(list, { session: batch.session! })).body.result?.pages).toEqual([]);
  });

  it('refuses what is not a JSON-RPC POST: 415 without application/json, 405 for other methods, 413 when too large', async () => {
    const wrongType = await post(initialize(), { contentType: 'text/plain' });
    expect(wrongType.status).toBe(415);
    expect(wrongType.body.error).toMatchObject({ code: ErrorCodes.InvalidRequest, name: 'InvalidRequest' });
    expect(wrongType.session).toBeNull();

    const get = await fetch(`${base}/rpc`);
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST, DELETE');
    const postEvents = await fetch(`${base}/events`, { method: 'POST' });
    expect(postEvents.status).toBe(405);

    const server = await startServer({ host: '127.0.0.1', port: 0, logger: false, headless: true, maxMessageBytes: 4_096 });
    try {
      const large = await post({ ...initialize(), params: { padding: 'x'.repeat(5_000) } }, { server: server.httpUrl });
      expect(large.status).toBe(413);
      expect(large.body.error?.message).toContain('4096 bytes');
    } finally {
      await server.close();
    }
  });
});

describe('sessions', () => {
  it('an unknown session is 404 on every route; DELETE ends a session for good', async () => {
    const missing = '00000000-0000-4000-8000-000000000000';
    const unknown = await post(request('page/list'), { session: missing });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toMatchObject({ code: ErrorCodes.InvalidRequest, data: { retryable: false } });
    expect(unknown.body.error?.message).toContain('Session not found');
    expect((await EventStream.open(missing)).status).toBe(404);
    expect((await fetch(`${base}/rpc`, { method: 'DELETE', headers: { 'BAP-Session-Id': missing } })).status).toBe(404);
    expect((await fetch(`${base}/events`)).status).toBe(400);

    const session = await open();
    await call(session, 'page/create', { url: h.url('list.html') });
    const stream = await EventStream.open(session);
    await expect.poll(() => stream.of('events/page').map((e) => e.type)).toContain('load');
    const pages = (await h.server.stats()).pages;
    const deleted = await fetch(`${base}/rpc`, { method: 'DELETE', headers: { 'BAP-Session-Id': session } });
    expect(deleted.status).toBe(204);
    // shutdown ran: the page the session held is closed, and its stream ended.
    expect((await h.server.stats()).pages).toBe(pages - 1);
    await expect.poll(() => stream.ended).toBe(true);
    expect((await post(request('page/list'), { session })).status).toBe(404);
    expect((await EventStream.open(session)).status).toBe(404);
    expect((await fetch(`${base}/rpc?session=${session}`, { method: 'DELETE' })).status).toBe(404);
  });

  it('takes the session id as ?session= too, and POST /message is the same route', async () => {
    const init = await post(initialize(), { path: '/message' });
    const session = init.session!;
    expect(init.body.result?.protocolVersion).toBe(PROTOCOL_VERSION);
    const list = await fetch(`${base}/message?session=${session}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(request('page/list')),
    });
    expect(list.status).toBe(200);
    expect(((await list.json()) as Body).result?.pages).toEqual([]);
    expect((await post(request('page/list'), { session })).body.result).toBeDefined();
  });
});

describe('GET /events', () => {
  it('streams console and page notifications to a client using only POST /rpc and GET /events', async () => {
    const session = await open();
    const stream = await EventStream.open(session);
    expect(stream.status).toBe(200);
    expect(stream.contentType).toBe('text/event-stream; charset=utf-8');
    const created = await call(session, 'page/create', {});
    await call(session, 'page/navigate', { pageId: created.id, url: h.url('console.html') });
    await expect.poll(() => stream.of('events/console').map((e) => e.text)).toEqual(expect.arrayContaining(['load log message', 'load error message']));
    await expect.poll(() => stream.of('events/page').map((e) => e.type)).toContain('load');
    for (const event of [...stream.of('events/console'), ...stream.of('events/page')]) expect(event.pageId).toBe(created.id);
    expect(stream.ids).toEqual(stream.ids.map((_, i) => i + 1));
    stream.close();
  });

  it('a stream dropped mid-way resumes with Last-Event-ID: every notification once, in order', async () => {
    const session = await open();
    const first = await EventStream.open(session);
    const created = await call(session, 'page/create', {});
    await call(session, 'page/navigate', { pageId: created.id, url: h.url('console.html') });
    await expect.poll(() => first.messages.length).toBeGreaterThanOrEqual(3);
    first.close();
    const seen = first.ids.at(-1)!;

    for (let i = 1; i <= 3; i++) await call(session, 'action/click', { pageId: created.id, selector: { type: 'css', value: '#log-button' } });
    await call(session, 'page/navigate', { pageId: created.id, url: h.url('console.html?again') });

    const second = await EventStream.open(session, { lastEventId: seen });
    await expect.poll(() => second.of('events/console').map((e) => e.text)).toEqual(expect.arrayContaining(['click log 3', 'click error 3']));
    await expect.poll(() => second.of('events/page').filter((e) => e.type === 'load').length).toBeGreaterThanOrEqual(1);
    await sleep(QUIET_MS);
    second.close();

    const received = [...first.ids, ...second.ids];
    expect(new Set(received).size).toBe(received.length);
    expect(received).toEqual(received.map((_, i) => i + 1));
    expect(second.ids[0]).toBe(seen + 1);
    const texts = [...first.of('events/console'), ...second.of('events/console')].map((e) => e.text);
    for (let i = 1; i <= 3; i++) expect(texts).toEqual(expect.arrayContaining([`click log ${i}`, `click error ${i}`]));

    // ?lastEventId= is the same, and without either the stream starts with everything kept.
    const byQuery = await EventStream.open(session, { header: false, query: `lastEventId=${seen}` });
    const all = await EventStream.open(session);
    await expect.poll(() => byQuery.ids).toEqual(second.ids);
    await expect.poll(() => all.ids).toEqual(received);
    byQuery.close();
    all.close();
  });

  it('sends `: ping` heartbeats at ?heartbeat=ms, clamped to 1 s..60 s; a bad value or Last-Event-ID is 400', async () => {
    const session = await open();
    const fast = await EventStream.open(session, { query: 'heartbeat=1' });
    await sleep(2_300);
    expect(fast.comments.filter((c) => c === 'ping').length).toBeGreaterThanOrEqual(1);
    expect(fast.comments.filter((c) => c === 'ping').length).toBeLessThanOrEqual(3);
    fast.close();

    expect((await EventStream.open(session, { query: 'heartbeat=soon' })).status).toBe(400);
    const badResume = await fetch(`${base}/events`, { headers: { 'BAP-Session-Id': session, 'Last-Event-ID': 'yesterday' } });
    expect(badResume.status).toBe(400);
    expect(((await badResume.json()) as Body).error?.message).toContain('Last-Event-ID');
  });

  it('two sessions do not see each other’s events', async () => {
    const [a, b] = [await open(), await open()];
    const [streamA, streamB] = [await EventStream.open(a), await EventStream.open(b)];
    const pageA = await call(a, 'page/create', { url: h.url('console.html') });
    const pageB = await call(b, 'page/create', { url: h.url('list.html') });
    await expect.poll(() => streamA.of('events/console').length).toBeGreaterThanOrEqual(5);
    await expect.poll(() => streamB.of('events/page').map((e) => e.type)).toContain('load');
    await sleep(QUIET_MS);
    expect(streamB.of('events/console')).toEqual([]);
    expect(streamA.messages.every((m) => m.params.pageId === pageA.id)).toBe(true);
    expect(streamB.messages.every((m) => m.params.pageId === pageB.id)).toBe(true);
    expect((await call(b, 'page/list')).pages?.map((p) => p.id)).toEqual([pageB.id]);
    streamA.close();
    streamB.close();
  });
});

describe('with tokens', () => {
  const alice = 'http-rpc-token-alice-0123456789';
  const bob = 'http-rpc-token-bob-0123456789';
  let server: RunningServer;

  beforeAll(async () => {
    server = await startServer({
      host: '127.0.0.1',
      port: 0,
      logger: false,
      headless: true,
      tokens: { [alice]: { name: 'alice', scopes: ['privileged'] }, [bob]: { name: 'bob', scopes: ['privileged'] } },
    });
  });

  afterAll(async () => {
    await server?.close();
  });

  it('a session belongs to the token that opened it', async () => {
    const noToken = await post(initialize(), { server: server.httpUrl });
    expect(noToken.status).toBe(401);
    expect(noToken.body.error?.code).toBe(ErrorCodes.Unauthorized);

    const session = await open({ server: server.httpUrl, token: alice });
    expect((await call(session, 'page/list', {}, { server: server.httpUrl, token: alice })).pages).toEqual([]);

    expect((await post(request('page/list'), { server: server.httpUrl, token: bob, session })).status).toBe(404);
    expect((await EventStream.open(session, { server: server.httpUrl, token: bob })).status).toBe(404);
    const bobDelete = await fetch(`${server.httpUrl}/rpc`, { method: 'DELETE', headers: { 'BAP-Session-Id': session, authorization: `Bearer ${bob}` } });
    expect(bobDelete.status).toBe(404);
    expect((await post(request('page/list'), { server: server.httpUrl, session })).status).toBe(401);

    const stream = await EventStream.open(session, { server: server.httpUrl, token: alice });
    expect(stream.status).toBe(200);
    stream.close();
    expect((await call(session, 'page/list', {}, { server: server.httpUrl, token: alice })).pages).toEqual([]);
  });
});

describe("docs/http.md's JSON-RPC over HTTP section", () => {
  const run = promisify(execFile);

  it('its curl examples run as shown', async () => {
    try {
      execFileSync('curl', ['--version'], { stdio: 'ignore' });
    } catch {
      throw new Error('curl is not installed: the docs examples are curl commands and this test runs them.');
    }
    const whole = readFileSync(new URL('../docs/http.md', import.meta.url), 'utf8');
    const doc = whole.slice(whole.indexOf('## JSON-RPC over HTTP'));
    const blocks = [...doc.matchAll(/```bash\n([\s\S]*?)```/g)].map((m) => m[1]!);
    expect(blocks.length).toBeGreaterThanOrEqual(5);
    const env: NodeJS.ProcessEnv = { ...process.env, BAP: base };
    const streams: { output: () => string; stop: () => void }[] = [];
    const outputs: string[] = [];
    try {
      for (const block of blocks) {
        if (block.includes('/events')) {
          const stream = background(block, env);
          streams.push(stream);
          await expect.poll(() => stream.output()).toContain(': connected');
          continue;
        }
        if (block.includes('DELETE')) {
          for (const stream of streams) await expect.poll(() => stream.output()).toMatch(/^id: \d+\ndata: \{"jsonrpc":"2\.0","method":"events\/page","params":\{"type":"load"/m);
        }
        const { stdout } = await run('bash', ['-euo', 'pipefail', '-c', block], { env, timeout: 30_000 });
        outputs.push(stdout);
        const session = /^BAP-Session-Id: (\S+)/im.exec(stdout)?.[1];
        if (session) env.SESSION = session;
      }
      expect(env.SESSION, 'the first example prints the BAP-Session-Id header').toBeTruthy();
      expect(streams.length, 'the examples follow /events').toBeGreaterThanOrEqual(2);
    } finally {
      for (const stream of streams) stream.stop();
    }
    const json = outputs.flatMap((o) => o.split('\n')).filter((line) => line.startsWith('{') || line.startsWith('['));
    expect(json.length).toBeGreaterThanOrEqual(3);
    for (const line of json) expect(line).not.toContain('"error"');
    expect(outputs.some((o) => /^HTTP\/1\.1 204/m.test(o)), 'the DELETE example ends the session').toBe(true);
  });
});

/** Runs a never-ending shell block (a `curl -N` stream) in its own process group until stop(). */
function background(block: string, env: NodeJS.ProcessEnv): { output: () => string; stop: () => void } {
  const child = spawn('bash', ['-c', block], { env, detached: true, stdio: ['ignore', 'pipe', 'inherit'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return {
    output: () => output,
    stop: () => {
      if (child.exitCode === null && child.pid !== undefined) process.kill(-child.pid, 'SIGTERM');
    },
  };
}
