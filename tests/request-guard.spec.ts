import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startHarness, type Harness } from './support/harness.js';

let h: Harness;
let port: number;

beforeAll(async () => {
  h = await startHarness({ server: { allowedOrigins: ['http://trusted.test:8080'] } });
  port = h.server.port;
});

afterAll(async () => {
  await h?.stop();
});

/** Opens a WebSocket with these headers: 'open', or the HTTP status it was refused with. */
function upgrade(headers: Record<string, string>): Promise<'open' | number> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}`, { headers });
    ws.once('open', () => {
      ws.close();
      resolve('open');
    });
    ws.once('unexpected-response', (_req, res) => {
      resolve(res.statusCode ?? 0);
      res.resume();
    });
    ws.once('error', (error) => reject(error));
  });
}

function health(headers: Record<string, string>): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: '/health', headers }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('Origin and Host checks', () => {
  it('agents, which send no Origin, connect; a page of an unknown origin is refused with 403', async () => {
    expect(await upgrade({})).toBe('open');
    expect(await upgrade({ Origin: 'http://evil.test' })).toBe(403);
    expect(await upgrade({ Origin: 'null' })).toBe(403);
    expect(await upgrade({ Origin: 'http://trusted.test:8080' })).toBe('open');
    expect(await upgrade({ Origin: 'http://TRUSTED.test:8080/' })).toBe('open');
    expect(await upgrade({ Origin: 'http://trusted.test:8081' })).toBe(403);
    const refused = await health({ Origin: 'http://evil.test' });
    expect(refused.status).toBe(403);
    expect(JSON.parse(refused.body).message).toContain('Origin "http://evil.test" is not allowed');
  });

  it('refuses a Host that is not the server (DNS rebinding)', async () => {
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `LOCALHOST.:${port}`, `[::1]:${port}`]) {
      expect(await upgrade({ Host: host }), host).toBe('open');
      expect((await health({ Host: host })).status, host).toBe(200);
    }
    for (const host of [`attacker.test:${port}`, `127.0.0.1.attacker.test:${port}`, 'not a host']) {
      expect(await upgrade({ Host: host }), host).toBe(403);
      const refused = await health({ Host: host });
      expect(refused.status, host).toBe(403);
    }
  });

  it('a real page in Chromium cannot open a WebSocket to the server', async () => {
    const target = `ws://127.0.0.1:${port}`;
    const { id: pageId } = await h.client.call('page/create', { url: h.url(`guard-probe.html?target=${encodeURIComponent(target)}`) });
    await h.client.call('page/waitFor', { pageId, text: 'ws: refused', timeout: 10_000 });
    await h.client.call('page/waitFor', { pageId, textGone: 'fetch: pending', timeout: 10_000 });
    const { content } = await h.client.call('observe/content', { pageId });
    expect(content).toContain('ws: refused 1006');
    expect(content).not.toContain('ws: opened');
  });

  it('allowed hosts replace the defaults', async () => {
    const other = await startHarness({ server: { allowedHosts: ['bap.internal'] }, connect: false });
    try {
      const url = new URL(other.server.url);
      const open = (host: string) =>
        new Promise<'open' | number>((resolve, reject) => {
          const ws = new WebSocket(url, { headers: { Host: host } });
          ws.once('open', () => (ws.close(), resolve('open')));
          ws.once('unexpected-response', (_req, res) => (res.resume(), resolve(res.statusCode ?? 0)));
          ws.once('error', reject);
        });
      expect(await open(`bap.internal:${url.port}`)).toBe('open');
      expect(await open(`127.0.0.1:${url.port}`)).toBe(403);
    } finally {
      await other.stop();
    }
  });
});
