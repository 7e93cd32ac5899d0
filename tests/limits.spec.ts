import { BAPClient, BAPClientError, type BAPStream } from '@browseragentprotocol/client';
import { BAPError, ErrorCodes, type ApprovalRequired } from '@browseragentprotocol/protocol';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import { expectBAPError, expectErrorReply } from './support/expectations.js';
import { startHarness, type Harness, type HarnessOptions } from './support/harness.js';
import { RawSocket } from './support/rawSocket.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const css = (value: string) => ({ type: 'css' as const, value });
/** A settled call as a call again, for `expectLimit`. */
const replay = (outcome: PromiseSettledResult<unknown>) => () => (outcome.status === 'rejected' ? Promise.reject(outcome.reason) : Promise.resolve(outcome.value));

/** Starts a harness for the describe block it is called in, stopped after it. */
function harness(options: HarnessOptions): () => Harness {
  let h: Harness | undefined;
  beforeAll(async () => {
    h = await startHarness(options);
  });
  afterAll(async () => {
    await h?.stop();
  });
  return () => h!;
}

/** Runs `call`, expects -32024 for `resource`, and checks what an agent reads in it. */
async function expectLimit(call: () => Promise<unknown>, resource: string, limit: number, current?: number): Promise<BAPError> {
  const { error } = await expectBAPError(call, ErrorCodes.ResourceLimitExceeded);
  expect(error.data.details).toMatchObject({ resource, limit, ...(current === undefined ? {} : { current }) });
  expect(error.message).toMatch(new RegExp(`^Limit reached: at most ${limit} \\S`));
  expect(error.message).not.toMatch(/undefined|NaN|\[object/);
  expect(error.data.recoveryHint).toMatch(/\w{3,}/);
  return error;
}

/**
 * The harness's own client, a bystander in every test, navigates its page and reads it: one
 * client's limit is nobody else's.
 */
async function expectOthersServed(h: Harness): Promise<void> {
  const { pages } = await h.client.call('page/list', {});
  const pageId = pages[0]?.id ?? (await h.client.call('page/create', {})).id;
  await h.client.call('page/navigate', { pageId, url: h.url(`list.html?visit=${Date.now()}`) });
  expect((await h.client.call('observe/content', { pageId })).content).toContain('Groceries');
}

/** Opens a WebSocket: 'open' (then closed), or the HTTP status and body it was refused with. */
function upgrade(url: string, options: WebSocket.ClientOptions = {}): Promise<'open' | { status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, options);
    ws.once('open', () => {
      ws.close();
      resolve('open');
    });
    ws.once('unexpected-response', (_req, res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    ws.once('error', reject);
  });
}

describe('requests per second, per connection without tokens', () => {
  const h = harness({ server: { requestsPerSecond: 5 } });

  it('refuses requests beyond a burst of twice the rate with retryAfterMs; the same client goes on after waiting, others are unaffected', async () => {
    const client = await h().newClient();
    const outcomes = await Promise.allSettled(Array.from({ length: 16 }, () => client.call('page/list', {})));
    const served = outcomes.filter((o) => o.status === 'fulfilled').length;
    // A bucket of 10, less the handshake's initialize and events/subscribe, plus what refilled since.
    expect(served).toBeGreaterThanOrEqual(8);
    expect(served).toBeLessThanOrEqual(10);
    const error = await expectLimit(replay(outcomes.find((o) => o.status === 'rejected')!), 'requestsPerSecond', 5);
    expect(error.data.retryable).toBe(true);
    expect(error.data.retryAfterMs).toBeGreaterThan(0);
    expect(error.data.retryAfterMs).toBeLessThanOrEqual(200);
    expect(error.data.recoveryHint).toBe('Slow down: this client may send 5 requests per second, in bursts of up to 10.');

    await expectOthersServed(h());
    await sleep(error.data.retryAfterMs!);
    expect((await client.call('page/list', {})).pages).toEqual([]);
    await client.close();
  });

  it('a wall clock set back does not lock a client out', async () => {
    const client = await h().newClient();
    await client.call('page/list', {});
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      vi.setSystemTime(Date.now() - 3_600_000);
      expect((await client.call('page/list', {})).pages).toEqual([]);
    } finally {
      vi.useRealTimers();
    }
    await client.close();
  });

  it('each request of a batch counts against the budget', async () => {
    const client = await h().newClient();
    const results = await client.batch(Array.from({ length: 12 }, () => ({ method: 'page/list' as const, params: {} })));
    const refused = results.filter((r): r is BAPError => r instanceof BAPError);
    expect(refused.length).toBeGreaterThanOrEqual(2);
    expect(refused.every((e) => e.code === ErrorCodes.ResourceLimitExceeded && (e.data.details as { resource: string }).resource === 'requestsPerSecond')).toBe(true);
    await client.close();
  });
});

describe('requests per second, per token', () => {
  const tokens = {
    'alpha-token-0123456789': { name: 'alpha', scopes: ['*'] },
    'beta-token-0123456789ab': { name: 'beta', scopes: ['*'] },
  };
  // A bucket of 4, one back every 500 ms; each handshake (initialize, events/subscribe) takes 2.
  const h = harness({ server: { requestsPerSecond: 2, tokens }, connect: false });
  const clients: BAPClient[] = [];
  const connect = async (token: string) => {
    const client = new BAPClient(h().server.url, { token });
    clients.push(client);
    await client.connect();
    return client;
  };
  afterAll(async () => {
    await Promise.allSettled(clients.map((c) => c.close()));
  });

  it("shares one budget among a token's connections; another token keeps its own", async () => {
    const first = await connect('alpha-token-0123456789');
    const second = await connect('alpha-token-0123456789');
    // Alone, each connection would have 2 requests left.
    await expectLimit(() => second.call('page/list', {}), 'requestsPerSecond', 2);
    const error = await expectLimit(() => first.call('page/list', {}), 'requestsPerSecond', 2);
    const other = await connect('beta-token-0123456789ab');
    const page = await other.call('page/create', { url: h().url('list.html') });
    expect((await other.call('observe/content', { pageId: page.id })).content).toContain('Groceries');
    await sleep(error.data.retryAfterMs!);
    expect((await second.call('page/list', {})).pages).toEqual([]);
  });
});

describe('screenshots per minute', () => {
  // 30 a minute: the budget is spent in about a second, and one more comes back every 2 s.
  const h = harness({ server: { screenshotsPerMinute: 30 } });
  const small = { width: 320, height: 240 };

  it('counts observe/screenshot and agent/observe with a screenshot or marks; refuses the rest with retryAfterMs', async () => {
    const client = await h().newClient();
    const { id: pageId } = await client.call('page/create', { url: h().url('list.html'), viewport: small });
    const { id: bystanderPage } = await h().client.call('page/create', { url: h().url('list.html'), viewport: small });
    const shots = [
      () => client.call('observe/screenshot', { pageId }),
      () => client.call('agent/observe', { pageId, includeScreenshot: true, responseTier: 'minimal' }),
      () => client.call('agent/observe', { pageId, annotateScreenshot: true, responseTier: 'minimal' }),
    ];
    const started = Date.now();
    let taken = 0;
    let refusal: unknown;
    while (taken < 40) {
      try {
        await shots[taken % shots.length]!();
        taken++;
      } catch (error) {
        refusal = error;
        break;
      }
    }
    expect(taken).toBeGreaterThanOrEqual(30);
    expect(taken).toBeLessThanOrEqual(30 + Math.ceil((Date.now() - started) / 2_000));
    const error = await expectLimit(replay({ status: 'rejected', reason: refusal }), 'screenshotsPerMinute', 30);
    expect(error.data.retryAfterMs).toBeGreaterThan(0);
    expect(error.data.retryAfterMs).toBeLessThanOrEqual(2_000);
    for (const shot of shots) await expectLimit(shot, 'screenshotsPerMinute', 30);
    // agent/act's observations go through the same budget.
    const last = await expectLimit(
      () => client.call('agent/act', { pageId, steps: [{ action: 'page/list', params: {} }], postObserve: { includeScreenshot: true } }),
      'screenshotsPerMinute',
      30,
    );

    // Observing without a screenshot is not a screenshot; the bystander has a budget of its own.
    expect((await client.call('agent/observe', { pageId, responseTier: 'minimal' })).screenshot).toBeUndefined();
    expect((await h().client.call('observe/screenshot', { pageId: bystanderPage })).data.length).toBeGreaterThan(100);

    await sleep(last.data.retryAfterMs!);
    expect((await client.call('observe/screenshot', { pageId })).data.length).toBeGreaterThan(100);
    await client.close();
  });
});

describe('connections per address', () => {
  const h = harness({ server: { maxConnectionsPerIp: 3 } });

  it('refuses the upgrade beyond the limit with 429 and a JSON body; open connections and other addresses go on', async () => {
    // The harness's client is the first of three.
    const second = await h().newClient();
    const third = await h().newClient();
    const refused = await upgrade(h().server.url);
    expect(refused).toMatchObject({ status: 429 });
    const body = JSON.parse((refused as { body: string }).body) as Record<string, unknown>;
    expect(body).toEqual({ error: 'too many connections', message: 'Too many connections from 127.0.0.1: at most 3.', limit: 3 });
    const late = new BAPClient(h().server.url);
    await expect(late.connect()).rejects.toSatisfy((e: unknown) => BAPClientError.is(e, 'ECONNECT') && /429/.test((e as Error).message));

    const page = await h().client.call('page/create', { url: h().url('list.html') });
    expect((await h().client.call('observe/content', { pageId: page.id })).content).toContain('Groceries');
    // 127.0.0.2 is loopback too, and another address with its own count.
    const elsewhere = await RawSocket.open(h().server.url, { localAddress: '127.0.0.2' });
    try {
      await elsewhere.handshake();
      const created = (await elsewhere.request('page/create', { url: h().url('list.html') })) as { result: { id: string } };
      const content = (await elsewhere.request('observe/content', { pageId: created.result.id })) as { result: { content: string } };
      expect(content.result.content).toContain('Groceries');
    } finally {
      await elsewhere.close();
    }

    await third.close();
    const replacement = await eventually(() => upgrade(h().server.url), (outcome) => outcome === 'open');
    expect(replacement).toBe('open');
    await second.close();
  });
});

/** Calls `probe` until `done` accepts its outcome (up to 3 s): the server learns of a close a moment after it. */
async function eventually<T>(probe: () => Promise<T>, done: (outcome: T) => boolean): Promise<T> {
  const deadline = Date.now() + 3_000;
  for (;;) {
    const outcome = await probe();
    if (done(outcome) || Date.now() > deadline) return outcome;
    await sleep(50);
  }
}

describe('session resources', () => {
  const h = harness({
    server: {
      maxMessageBytes: 64 * 1024,
      maxContexts: 3,
      maxPages: 3,
      maxPagesPerContext: 2,
      maxRefs: 30,
      maxStreams: 1,
      maxSubscriptions: 2,
      maxEventsPerSecond: 50,
    },
  });

  it('answers a message over the size limit with -32600 and keeps the connection; beyond four times the limit it closes with 1009', async () => {
    const raw = await h().rawSocket();
    await raw.handshake();
    const url = (bytes: number) => `${h().url('list.html')}#${'x'.repeat(bytes)}`;
    await raw.sendJson({ jsonrpc: '2.0', id: 7, method: 'page/navigate', params: { url: url(70 * 1024) } });
    const reply = (await raw.next()) as { error: { message: string } };
    expectErrorReply(reply, ErrorCodes.InvalidRequest, null);
    expect(reply.error.message).toMatch(/^Message of 7\d{4} bytes exceeds the limit of 65536 bytes\.$/);

    // Exactly at the limit is accepted.
    const envelope = JSON.stringify({ jsonrpc: '2.0', id: 8, method: 'page/navigate', params: { url: url(0) } });
    await raw.send(JSON.stringify({ jsonrpc: '2.0', id: 8, method: 'page/navigate', params: { url: url(64 * 1024 - envelope.length) } }));
    const atLimit = (await raw.reply(8, 15_000)) as { result?: unknown; error?: { code: number } };
    expect(atLimit.error?.code).not.toBe(ErrorCodes.InvalidRequest);
    expect(await raw.request('page/list', {})).toHaveProperty('result.pages');

    await raw.sendJson({ jsonrpc: '2.0', id: 10, method: 'page/navigate', params: { url: url(300 * 1024) } });
    expect((await raw.closed).code).toBe(1009);
    await expectOthersServed(h());

    // The TS client knows the limit from initialize and refuses such a call without sending it.
    const client = await h().newClient();
    const refused = await client.call('page/navigate', { url: url(70 * 1024) }).catch((e: unknown) => e);
    expect(refused).toMatchObject({ code: 'ETOOLARGE', message: expect.stringMatching(/over the server's limit of 65536 bytes; it was not sent\.$/) });
    expect(await client.call('page/list', {})).toHaveProperty('pages');
    await client.close();
  });

  it('refuses a context beyond the limit, the default context included, until one is destroyed', async () => {
    const client = await h().newClient();
    await client.call('page/create', { url: h().url('list.html') });
    await client.call('context/create', { contextId: 'a' });
    await client.call('context/create', { contextId: 'b' });
    const error = await expectLimit(() => client.call('context/create', { contextId: 'c' }), 'contexts', 3, 3);
    expect(error.message).toBe('Limit reached: at most 3 contexts (now 3).');
    expect(error.data.retryable).toBe(false);
    expect(error.data.retryAfterMs).toBeUndefined();
    await expectOthersServed(h());
    await client.call('context/destroy', { contextId: 'a' });
    expect((await client.call('context/create', { contextId: 'c' })).contextId).toBe('c');
    await client.close();
  });

  it('refuses a page beyond the per-session limit, across contexts, until one is closed', async () => {
    const client = await h().newClient();
    await client.call('context/create', { contextId: 'other' });
    const first = await client.call('page/create', { url: h().url('list.html') });
    await client.call('page/create', {});
    await client.call('page/create', { contextId: 'other' });
    const error = await expectLimit(() => client.call('page/create', { contextId: 'other', url: h().url('list.html') }), 'pages', 3, 3);
    expect(error.message).toBe('Limit reached: at most 3 pages (now 3).');
    expect(error.data.retryAfterMs).toBeUndefined();
    expect((await client.call('page/list', {})).pages).toHaveLength(3);
    await expectOthersServed(h());
    await client.call('page/close', { pageId: first.id });
    expect((await client.call('page/create', { contextId: 'other' })).contextId).toBe('other');
    await client.close();
  });

  it('refuses a page beyond the per-context limit while another context still takes one', async () => {
    const client = await h().newClient();
    await client.call('context/create', { contextId: 'full' });
    await client.call('page/create', { contextId: 'full' });
    await client.call('page/create', { contextId: 'full' });
    const error = await expectLimit(() => client.call('page/create', { contextId: 'full' }), 'pagesPerContext', 2, 2);
    expect(error.message).toBe('Limit reached: at most 2 pages per context (now 2).');
    expect(error.data.recoveryHint).toContain('"full"');
    expect((await client.call('page/create', { url: h().url('list.html') })).contextId).not.toBe('full');
    await expectOthersServed(h());
    await client.close();
  });

  it('fails an observation whose snapshot holds more refs than the limit; the page observes again once it holds fewer', async () => {
    const client = await h().newClient();
    const { id: pageId } = await client.call('page/create', { url: h().url('limits-many-buttons.html') });
    const error = await expectLimit(() => client.call('observe/ariaSnapshot', { pageId }), 'refs', 30);
    const current = (error.data.details as { current: number }).current;
    expect(current).toBeGreaterThanOrEqual(62);
    expect(error.message).toBe(`Limit reached: at most 30 element refs per snapshot (now ${current}).`);
    expect(error.data.recoveryHint).toContain('selector');
    await expectLimit(() => client.call('agent/observe', { pageId }), 'refs', 30);
    // Part of the page, as the hint says, is within the limit.
    expect((await client.call('observe/ariaSnapshot', { pageId, selector: { type: 'css', value: '#small' } })).snapshot).toContain('Only button');

    // Observations without refs still work, and the page observes again once it holds fewer.
    expect((await client.call('observe/content', { pageId })).content).toContain('Button 59');
    await client.call('page/navigate', { pageId, url: h().url('list.html') });
    expect((await client.call('observe/ariaSnapshot', { pageId })).snapshot).toContain('Remove cherry');
    await expectOthersServed(h());
    await client.close();
  });

  it('refuses a stream beyond the per-connection limit with retryAfterMs; another connection streams meanwhile', async () => {
    const client = await h().newClient();
    const { id: pageId } = await client.call('page/create', { url: h().url('list.html') });
    // The first takes its place as it arrives, before its method runs: the second finds it taken.
    const [running, refused] = await Promise.allSettled([
      client.stream('observe/dom', { pageId, chunkSize: 1024 }),
      client.stream('observe/dom', { pageId }),
    ]);
    const error = await expectLimit(replay(refused), 'streams', 1, 1);
    expect(error.message).toBe('Limit reached: at most 1 stream at once (1 running).');
    expect(error.data.retryAfterMs).toBe(1_000);
    expect(error.data.retryable).toBe(true);

    const { pages } = await h().client.call('page/list', {});
    const bystanderPage = pages[0]?.id ?? (await h().client.call('page/create', { url: h().url('list.html') })).id;
    expect((await (await h().client.stream('observe/dom', { pageId: bystanderPage })).text()).length).toBeGreaterThan(0);

    expect(running.status).toBe('fulfilled');
    expect(await (running as PromiseFulfilledResult<BAPStream>).value.text()).toContain('Groceries');
    expect(await (await client.stream('observe/dom', { pageId })).text()).toContain('Groceries');
    await client.close();
  });

  it('refuses an intercept rule beyond the per-context limit; other contexts and removed rules make room', async () => {
    const client = await h().newClient();
    const { id: pageId } = await client.call('page/create', { url: h().url('list.html') });
    const rule = (n: number) => ({ pageId, patterns: [{ urlPattern: `**/blocked-${n}` }], handler: 'abort' as const });
    expect((await client.call('network/intercept', rule(1))).active).toBe(1);
    expect((await client.call('network/intercept', rule(2))).active).toBe(2);
    const error = await expectLimit(() => client.call('network/intercept', rule(3)), 'interceptRules', 2, 2);
    expect(error.message).toBe('Limit reached: at most 2 network/intercept rules per context (now 2).');
    expect(error.data.recoveryHint).toContain('patterns: []');

    await client.call('context/create', { contextId: 'spare' });
    const spare = await client.call('page/create', { contextId: 'spare' });
    expect((await client.call('network/intercept', { ...rule(3), pageId: spare.id })).active).toBe(1);
    await expectOthersServed(h());
    expect(await client.call('network/intercept', { pageId, patterns: [] })).toEqual({ interceptId: null, active: 0 });
    expect((await client.call('network/intercept', rule(3))).active).toBe(1);
    await client.close();
  });

  it('sends at most the per-page event budget in a second, then reports the rest with limit/eventsDropped', async () => {
    const client = new BAPClient(h().server.url, { events: ['console'] });
    await client.connect();
    try {
      const burst: string[] = [];
      const dropped: { pageId: string; dropped: number; limit: number; timestamp: number }[] = [];
      client.on('events/console', (e) => burst.push(e.text));
      client.on('limit/eventsDropped', (e) => dropped.push(e));
      const { id: pageId } = await client.call('page/create', { url: h().url('console-burst.html?n=200') });
      await client.call('action/click', { pageId, selector: css('#burst') });
      await client.call('page/waitFor', { pageId, text: 'logged 200', timeout: 5_000 });
      await eventually(async () => dropped.length, (n) => n > 0);

      expect(burst.filter((t) => t.startsWith('burst '))).toHaveLength(50);
      expect(dropped).toEqual([{ pageId, dropped: 150, limit: 50, timestamp: expect.any(Number) }]);
      // Sent as that second ends.
      expect(Math.abs(((dropped[0]!.timestamp + 500) % 1000) - 500)).toBeLessThan(200);

      await expectOthersServed(h());
      // The next second has a fresh budget.
      await client.call('action/click', { pageId, selector: css('#one') });
      await eventually(async () => burst.includes('after the burst'), Boolean);
      expect(burst).toContain('after the burst');
    } finally {
      await client.close();
    }
  });
});

describe('pending approvals', () => {
  const h = harness({
    server: {
      approval: { mode: 'required', rules: [{ name: 'all-clicks', match: { actions: ['action/click'] }, action: 'require', timeout: 5000 }] },
      maxPendingApprovals: 1,
    },
  });

  it('refuses a second approval while one waits, with retryAfterMs; other sessions wait for their own', async () => {
    const client = await h().newClient();
    const asked: ApprovalRequired[] = [];
    client.on('approval/required', (r) => asked.push(r));
    const first = await client.call('page/create', { url: h().url('limits-many-buttons.html') });
    const second = await client.call('page/create', { url: h().url('limits-many-buttons.html') });
    const held = client.call('action/click', { pageId: first.id, selector: css('#only') });
    await eventually(async () => asked.length, (n) => n > 0);
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({ rule: 'all-clicks', originalRequest: { method: 'action/click' } });

    const error = await expectLimit(() => client.call('action/click', { pageId: second.id, selector: css('#only') }), 'pendingApprovals', 1, 1);
    expect(error.data.retryAfterMs).toBe(1_000);
    expect(error.data.recoveryHint).toContain('approval/respond');
    expect(asked).toHaveLength(1);

    const other = await h().newClient();
    const theirs: ApprovalRequired[] = [];
    other.on('approval/required', (r) => theirs.push(r));
    const page = await other.call('page/create', { url: h().url('limits-many-buttons.html') });
    const otherClick = other.call('action/click', { pageId: page.id, selector: css('#only') });
    await eventually(async () => theirs.length, (n) => n > 0);
    expect(theirs).toHaveLength(1);
    await other.respondToApproval(theirs[0]!.requestId, 'approve');
    await otherClick;
    await other.close();

    expect(await client.respondToApproval(asked[0]!.requestId, 'approve')).toEqual({ acknowledged: true });
    await held;
    const retried = client.call('action/click', { pageId: second.id, selector: css('#only') });
    await eventually(async () => asked.length, (n) => n > 1);
    expect(asked).toHaveLength(2);
    await client.respondToApproval(asked[1]!.requestId, 'approve');
    await retried;
    expect((await client.call('observe/element', { pageId: second.id, selector: css('#clicked'), properties: ['text'] })).text).toBe('Only button');
    await client.close();
  });
});
