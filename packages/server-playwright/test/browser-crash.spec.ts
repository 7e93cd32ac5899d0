import { execFileSync } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { BAPClient } from '@browseragentprotocol/client';
import { BAPError, ErrorCodes } from '@browseragentprotocol/protocol';
import { startServer, type RunningServer } from '../src/index.js';

let server: RunningServer;
/** Serves `/?html=…` (data: URLs are refused by the domain policy). */
let site: Server;

beforeAll(async () => {
  server = await startServer({ port: 0, logger: false, validateResults: true });
  site = createServer((req, res) => res.end(new URL(req.url ?? '/', 'http://x').searchParams.get('html') ?? '')).listen(0, '127.0.0.1');
  await new Promise((resolve) => site.once('listening', resolve));
});

afterAll(async () => {
  await server.close();
  site.close();
});

const html = (body: string) => `http://127.0.0.1:${(site.address() as AddressInfo).port}/?html=${encodeURIComponent(body)}`;

/** Chromium processes this test process started (the server runs in-process). */
function chromiumChildren(): number[] {
  const out = execFileSync('ps', ['-o', 'pid=,comm=', '--ppid', String(process.pid)], { encoding: 'utf8' });
  return out
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .filter(([, comm]) => comm && /chrom/i.test(comm))
    .map(([pid]) => Number(pid));
}

test('the server survives a browser crash: the next call relaunches', async () => {
  const client = new BAPClient(server.url);
  await client.connect();
  await client.call('page/navigate', { url: html('<h1>before</h1>') });
  const pids = chromiumChildren();
  expect(pids.length).toBeGreaterThan(0);
  for (const pid of pids) process.kill(pid, 'SIGKILL');
  await expect.poll(() => chromiumChildren().filter((p) => pids.includes(p)).length, { timeout: 10_000 }).toBe(0);

  const stale = await client.call('action/click', { pageId: 'page-1', selector: { type: 'css', value: 'h1' } }).catch((e) => e);
  expect(stale).toBeInstanceOf(BAPError);
  expect([ErrorCodes.PageNotFound, ErrorCodes.TargetClosed]).toContain((stale as BAPError).code);

  const after = await client.call('page/navigate', { url: html('<title>after</title><h1>after</h1>') });
  expect(after.status).toBe(200);
  const content = await client.call('observe/content', {});
  expect(content.content).toContain('after');
  await client.close();
});

test('a client that disconnects leaves the server serving others, its pages closed', async () => {
  const first = new BAPClient(server.url);
  await first.connect();
  await first.call('page/create', { url: html('<h1>one</h1>') });
  await first.call('page/create', { url: html('<h1>two</h1>') });
  expect((await first.call('page/list', {})).pages).toHaveLength(2);
  await first.close();

  const second = new BAPClient(server.url);
  await second.connect();
  expect((await second.call('page/list', {})).pages).toHaveLength(0);
  await second.call('page/navigate', { url: html('<h1>three</h1>') });
  expect((await second.call('page/list', {})).pages).toHaveLength(1);
  await second.close();
});
