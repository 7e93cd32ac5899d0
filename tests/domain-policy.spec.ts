import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { BAPClient } from '@browseragentprotocol/client';
import { ErrorCodes, type NetworkEvent } from '@browseragentprotocol/protocol';
import { startServer } from '@browseragentprotocol/server-playwright';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Recorder } from './fixtures/policy/recorder.js';
import { VECTORS } from './fixtures/policy/vectors.js';
import { expectBAPError } from './support/expectations.js';

/**
 * The domain policy against real Chromium: every way a page or an agent can reach a host is
 * tried against a denied server that records every contact (TCP connections, requests,
 * WebSocket upgrades, CONNECTs, malformed requests, UDP datagrams) and must record none, while
 * an allowed server keeps working. The same in-page vectors aimed at a permitted host show that
 * each of them really makes a request.
 */

/** A connected client subscribed to network events. */
interface Session {
  client: BAPClient;
  events: NetworkEvent[];
}

let allowed: Recorder;
let denied: Recorder;
let nextRun = 1;

const PLAIN_TOKEN = 'plain-token-0123456789abcdef';
const NARROW_TOKEN = 'narrow-token-0123456789abcdef';
const baseOptions = { host: '127.0.0.1', port: 0, validateResults: true, logger: false as const, headless: true };
let servers: Awaited<ReturnType<typeof startServer>>[] = [];
let allowList: Session;
let denyList: Session;
let narrowed: Session;
let open: Session;

async function session(url: string): Promise<Session> {
  const client = new BAPClient(url);
  await client.connect();
  await client.call('events/subscribe', { events: ['network'] });
  const events: NetworkEvent[] = [];
  client.on('events/network', (event) => events.push(event));
  return { client, events };
}

beforeAll(async () => {
  [allowed, denied] = await Promise.all([Recorder.start(), Recorder.start()]);
  servers = await Promise.all([
    startServer({ ...baseOptions, allowedDomains: ['allowed.localhost'] }),
    startServer({
      ...baseOptions,
      blockedDomains: ['denied.localhost', '*.denied.localhost', 'bücher.localhost', 'xn--caf-dma.localhost'],
      tokens: {
        [PLAIN_TOKEN]: { name: 'plain', scopes: ['privileged'] },
        [NARROW_TOKEN]: { name: 'narrow', scopes: ['privileged'], allowedDomains: ['allowed.localhost', 'denied.localhost'] },
      },
    }),
    startServer(baseOptions),
  ]);
  const [allowServer, denyServer, openServer] = servers;
  [allowList, denyList, narrowed, open] = await Promise.all([
    session(allowServer!.url),
    session(`${denyServer!.url}/?token=${PLAIN_TOKEN}`),
    session(`${denyServer!.url}/?token=${NARROW_TOKEN}`),
    session(openServer!.url),
  ]);
});

afterEach(() => {
  expect(denied.hits, 'the denied server was contacted').toEqual([]);
});

afterAll(async () => {
  await Promise.allSettled([allowList, denyList, narrowed, open].map((s) => s?.client.close()));
  await Promise.allSettled(servers.map((s) => s.close()));
  await Promise.allSettled([allowed?.close(), denied?.close()]);
});

const d = (host = 'denied.localhost', path = '/hit/nav') => `http://${host}:${denied.port}${path}`;
const a = (path: string, host = 'allowed.localhost') => `http://${host}:${allowed.port}${path}`;
const redirect = (status: number, to: string) => a(`/redirect?status=${status}&to=${encodeURIComponent(to)}`);

/** Each URL must fail with -32041 naming `host` and a reason matching `reason`. */
async function expectRefused(s: Session, cases: [url: string, host: string | null, reason: RegExp][]): Promise<void> {
  for (const [url, host, reason] of cases) {
    const { error } = await expectBAPError(() => s.client.call('page/navigate', { url }), ErrorCodes.DomainNotAllowed);
    const details = error.data.details as { url: string; host: string | null; reason: string };
    expect(details.host, url).toBe(host);
    expect(details.reason, url).toMatch(reason);
    expect(error.message).toBe(`Domain not allowed: ${details.reason}.`);
  }
}

/** The allowed server's control page loads, with its stylesheet, script, image and frame. */
async function expectControlLoads(s: Session, host = 'allowed.localhost'): Promise<void> {
  const paths = ['/control.css', '/control.js', '/control.png', '/control-frame'];
  const before = paths.map((path) => allowed.requests(path).length);
  const nav = await s.client.call('page/navigate', { url: a('/control', host) });
  expect(nav).toMatchObject({ status: 200, url: a('/control', host) });
  await expect.poll(() => paths.filter((path, i) => allowed.requests(path).length === before[i]), { timeout: 5_000 }).toEqual([]);
}

/** Loads the corpus aimed at `host:port` and waits for every vector page; returns the run id every target URL carries. */
async function runCorpus(s: Session, host: string, port: number): Promise<string> {
  const run = String(nextRun++);
  await s.client.call('page/navigate', { url: a(`/corpus?${new URLSearchParams({ host, port: String(port), run })}`), waitUntil: 'domcontentloaded' });
  await expect.poll(() => allowed.requests('/vector/').filter((p) => p.endsWith(`run=${run}`)).length, { timeout: 10_000 }).toBe(VECTORS.length);
  return run;
}

/**
 * The corpus aimed at a denied host: nothing reaches it, what Chromium reports is marked blocked,
 * and service workers and WebRTC are off.
 */
async function expectCorpusRefused(s: Session, host: string): Promise<void> {
  const run = await runCorpus(s, host, denied.port);
  const blockedUrls = () => s.events.filter((e) => e.type === 'failed' && e.blocked && e.url.endsWith(`run=${run}`)).map((e) => new URL(e.url).pathname);
  const visible = ['img', 'script', 'stylesheet', 'iframe', 'fetch', 'xhr', 'https-fetch', 'img-redirect', 'fetch-redirect', 'js-location', 'websocket', 'websocket-secure'];
  await expect.poll(() => visible.filter((v) => !blockedUrls().includes(`/hit/${v}`)), { timeout: 10_000 }).toEqual([]);
  const failed = s.events.find((e) => e.type === 'failed' && e.url.endsWith(`/hit/img?run=${run}`));
  expect(failed).toMatchObject({ blocked: true, error: expect.stringMatching(/^Blocked by the domain policy: /) });
  const reports = [`/report/service-worker?registered=false&run=${run}`, `/report/webrtc?available=undefined&run=${run}`];
  await expect.poll(() => reports.filter((r) => !allowed.requests('/report/').includes(r)), { timeout: 5_000 }).toEqual([]);
  // Give timers, workers, beacons and ICE gathering time to try.
  await new Promise((resolve) => setTimeout(resolve, 500));
}

describe('an allow list (allowedDomains: ["allowed.localhost"])', () => {
  it('lets the allowed server work: its page and its own subresources load', async () => {
    await expectControlLoads(allowList);
  });

  it('refuses every spelling of a denied host with -32041 before anything is sent', async () => {
    const notAllowed = /is not on the allowed list$/;
    const P = denied.port;
    await expectRefused(allowList, [
      [d(), 'denied.localhost', notAllowed],
      [`HTTP://DENIED.LOCALHOST:${P}/`, 'denied.localhost', notAllowed],
      [`http://denied.localhost.:${P}/`, 'denied.localhost', notAllowed],
      [`http://user:secret@denied.localhost:${P}/`, 'denied.localhost', notAllowed],
      [`http://allowed.localhost:${allowed.port}@denied.localhost:${P}/`, 'denied.localhost', notAllowed],
      [`http://%64enied.localhost:${P}/`, 'denied.localhost', notAllowed],
      [`http://ｄｅｎｉｅｄ.localhost:${P}/`, 'denied.localhost', notAllowed],
      [`http:\\\\denied.localhost:${P}\\x`, 'denied.localhost', notAllowed],
      [`http://allowed.localhost.denied.localhost:${P}/`, 'allowed.localhost.denied.localhost', notAllowed],
      [`http://dеnied.localhost:${P}/`, new URL('http://dеnied.localhost/').hostname, notAllowed],
      [`denied.localhost:${P}/typed`, 'denied.localhost', notAllowed],
      [`https://denied.localhost:${P}/`, 'denied.localhost', notAllowed],
      [`http://localhost:${P}/`, 'localhost', notAllowed],
      [`http://127.0.0.1:${P}/`, '127.0.0.1', notAllowed],
      [`http://2130706433:${P}/`, '127.0.0.1', notAllowed],
      [`http://0x7f000001:${P}/`, '127.0.0.1', notAllowed],
      [`http://0177.0.0.1:${P}/`, '127.0.0.1', notAllowed],
      [`http://127.1:${P}/`, '127.0.0.1', notAllowed],
      [`http://0x7f.0.0.1:${P}/`, '127.0.0.1', notAllowed],
      [`http://[::ffff:127.0.0.1]:${P}/`, '127.0.0.1', notAllowed],
      [`http://[::ffff:7f00:1]:${P}/`, '127.0.0.1', notAllowed],
    ]);
  });

  it('refuses a redirect (301, 302, 307, 308, to http and https) from the allowed server to a denied host', async () => {
    for (const [status, to] of [[301, d()], [302, d()], [307, d()], [308, d()], [302, d('denied.localhost', '/hit/nav').replace('http:', 'https:')], [302, d('2130706433')]] as const) {
      const { error } = await expectBAPError(() => allowList.client.call('page/navigate', { url: redirect(status, to) }), ErrorCodes.DomainNotAllowed);
      expect(error.data.details, `${status} → ${to}`).toMatchObject({ url: new URL(to).href, host: new URL(to).hostname, reason: expect.stringMatching(/is not on the allowed list$/) });
    }
    expect(allowList.events).toContainEqual(expect.objectContaining({ type: 'failed', url: new URL(d()).href, blocked: true }));
  });

  it('refuses page/create at a denied URL, and a reload or goBack that lands on one', async () => {
    const { error } = await expectBAPError(() => allowList.client.call('page/create', { url: d() }), ErrorCodes.DomainNotAllowed);
    expect(error.data.details).toMatchObject({ host: 'denied.localhost' });

    // A script sends the page to the denied host: the proxy's 403 page is what it lands on.
    const { pageId } = await allowList.client.call('page/navigate', { url: a(`/go?to=${encodeURIComponent(d())}`) });
    await expect.poll(async () => (await allowList.client.call('page/list', {})).pages.find((p) => p.id === pageId)?.url, { timeout: 5_000 }).toBe(new URL(d()).href);
    await expectBAPError(() => allowList.client.call('page/reload', { pageId }), ErrorCodes.DomainNotAllowed);
    await allowList.client.call('page/navigate', { pageId, url: a('/control') });
    const back = await expectBAPError(() => allowList.client.call('page/goBack', { pageId }), ErrorCodes.DomainNotAllowed);
    expect(back.error.data.details).toMatchObject({ url: new URL(d()).href, host: 'denied.localhost' });
  });

  it(`aimed at the allowed host, each of the ${VECTORS.length} in-page vectors makes its request (the corpus works)`, async () => {
    const run = await runCorpus(allowList, 'allowed.localhost', allowed.port);
    const expected = VECTORS.filter((v) => v.control !== false).map((v) => `/hit/${v.name}`);
    const missing = () => expected.filter((path) => !allowed.requests(path).some((p) => p.endsWith(`run=${run}`)));
    await expect.poll(missing, { timeout: 10_000 }).toEqual([]);
  });

  it(`aimed at a denied host, none of the ${VECTORS.length} in-page vectors reaches it; service workers and WebRTC are off`, async () => {
    await expectCorpusRefused(allowList, 'denied.localhost');
  });
});

describe('a block list (blockedDomains, deny wins)', () => {
  it('lets every other host through: the allowed server works under any name', async () => {
    await expectControlLoads(denyList);
    await expectControlLoads(denyList, 'elsewhere.localhost');
  });

  it('refuses the blocked hosts in every spelling, IDN both ways, and the metadata defaults', async () => {
    const blocked = /matches the blocked pattern "(denied\.localhost|\*\.denied\.localhost|xn--bcher-kva\.localhost|xn--caf-dma\.localhost)"$/;
    const P = denied.port;
    await expectRefused(denyList, [
      [d(), 'denied.localhost', blocked],
      [`HTTP://Denied.LocalHost.:${P}/`, 'denied.localhost', blocked],
      [`http://user@denied.localhost:${P}/`, 'denied.localhost', blocked],
      [`http://%64enied.localhost:${P}/`, 'denied.localhost', blocked],
      [`http://ｄｅｎｉｅｄ.localhost:${P}/`, 'denied.localhost', blocked],
      [`http://sub.denied.localhost:${P}/`, 'sub.denied.localhost', blocked],
      [`http://a.b.DENIED.localhost.:${P}/`, 'a.b.denied.localhost', blocked],
      [`https://sub.denied.localhost:${P}/`, 'sub.denied.localhost', blocked],
      [`http://xn--bcher-kva.localhost:${P}/`, 'xn--bcher-kva.localhost', blocked],
      [`http://bücher.localhost:${P}/`, 'xn--bcher-kva.localhost', blocked],
      [`http://café.localhost:${P}/`, 'xn--caf-dma.localhost', blocked],
      [redirect(302, d()), 'denied.localhost', blocked],
      [redirect(307, d('sub.denied.localhost').replace('http:', 'https:')), 'sub.denied.localhost', blocked],
      ['http://169.254.169.254/latest/meta-data/', '169.254.169.254', /cloud metadata/],
      ['http://metadata.google.internal/computeMetadata/v1/', 'metadata.google.internal', /cloud metadata/],
    ]);
    await expectBAPError(() => denyList.client.call('page/create', { url: d('sub.denied.localhost') }), ErrorCodes.DomainNotAllowed);
  });

  it(`none of the ${VECTORS.length} in-page vectors reaches a blocked host`, async () => {
    await expectCorpusRefused(denyList, 'sub.denied.localhost');
  });
});

describe("a token's allowedDomains narrowing the server's block list", () => {
  it('lets the hosts on both lists through', async () => {
    await expectControlLoads(narrowed);
  });

  it("refuses hosts off the token's list, and blocked hosts the token lists (deny wins)", async () => {
    const offList = /is not on the token's allowed list$/;
    const P = denied.port;
    await expectRefused(narrowed, [
      [d('elsewhere.localhost'), 'elsewhere.localhost', offList],
      [d(), 'denied.localhost', /matches the blocked pattern "denied\.localhost"$/],
      [`http://127.0.0.1:${P}/`, '127.0.0.1', offList],
      [`http://2130706433:${P}/`, '127.0.0.1', offList],
      [`http://[::ffff:7f00:1]:${P}/`, '127.0.0.1', offList],
      [`https://elsewhere.localhost:${P}/`, 'elsewhere.localhost', offList],
      [redirect(302, d('elsewhere.localhost')), 'elsewhere.localhost', offList],
    ]);
  });

  it(`none of the ${VECTORS.length} in-page vectors reaches a host off the token's list`, async () => {
    await expectCorpusRefused(narrowed, 'elsewhere.localhost');
  });
});

describe('defaults, without any user policy', () => {
  it('refuses file:, data:, javascript: and other non-http navigations, and cloud metadata addresses', async () => {
    const scheme = /URLs cannot be opened/;
    const metadata = /cloud metadata/;
    await expectRefused(open, [
      ['file:///etc/passwd', null, scheme],
      ['  FILE:///etc/hosts', null, scheme],
      ['data:text/html,<h1>hi</h1>', null, scheme],
      ['javascript:alert(1)', null, scheme],
      ['JavaScript:void(0)', null, scheme],
      [`view-source:${a('/control')}`, null, scheme],
      ['http://169.254.169.254/latest/meta-data/', '169.254.169.254', metadata],
      ['http://169.254.170.2/v2/credentials', '169.254.170.2', metadata],
      ['http://2852039166/', '169.254.169.254', metadata],
      ['http://[::ffff:a9fe:a9fe]/', '169.254.169.254', metadata],
      ['http://[fd00:ec2::254]/', 'fd00:ec2::254', metadata],
      ['http://100.100.100.200/', '100.100.100.200', metadata],
      ['http://metadata.google.internal/', 'metadata.google.internal', metadata],
      ['http://Metadata.Goog./', 'metadata.goog', metadata],
    ]);
    await expectBAPError(() => open.client.call('page/create', { url: 'data:text/html,hi' }), ErrorCodes.DomainNotAllowed);
  });

  it('lets about:blank and every other host through, service workers included', async () => {
    expect(await open.client.call('page/navigate', { url: 'about:blank' })).toMatchObject({ url: 'about:blank' });
    await expectControlLoads(open, '127.0.0.1');
    const run = String(nextRun++);
    for (const vector of ['webrtc', 'service-worker']) {
      await open.client.call('page/navigate', { url: a(`/vector/${vector}?${new URLSearchParams({ host: 'allowed.localhost', port: String(allowed.port), run })}`) });
    }
    await expect.poll(() => allowed.requests('/report/'), { timeout: 5_000 }).toEqual(expect.arrayContaining([`/report/service-worker?registered=true&run=${run}`, `/report/webrtc?available=function&run=${run}`]));
    await expect.poll(() => allowed.requests(`/hit/service-worker?run=${run}`).length, { timeout: 5_000 }).toBe(1);
  });

  it('reaches a localhost server listening on IPv6 loopback only, as Chromium itself would', async () => {
    const v6 = createServer((_req, res) => res.end('<title>on ::1</title>'));
    await new Promise<void>((resolve) => v6.listen(0, '::1', resolve));
    try {
      const nav = await open.client.call('page/navigate', { url: `http://localhost:${(v6.address() as AddressInfo).port}/` });
      expect(nav.status).toBe(200);
    } finally {
      v6.close();
    }
  });
});
