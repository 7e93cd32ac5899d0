import { spawn, type ChildProcess } from 'node:child_process';
import { request } from 'node:http';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startServer, type RunningServer } from '@browseragentprotocol/server-playwright';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { serveMcpHttp, type RunningMcpHttp } from '../src/index.js';
import { call, loginFlow, multiTabFlow } from './flows.js';
import { startSite } from './site.js';

const bap = fileURLToPath(new URL('../../cli/dist/bin.js', import.meta.url));

let site: Awaited<ReturnType<typeof startSite>>;
let child: ChildProcess;
let endpoint: string;

async function connect(url: string): Promise<Client> {
  const client = new Client({ name: 'mcp-http-test', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

beforeAll(async () => {
  site = await startSite();
  child = spawn(process.execPath, [bap, 'mcp', '--port', '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const [line] = await new Promise<string[]>((resolve) => createInterface({ input: child.stdout! }).once('line', (l) => resolve([l])));
  endpoint = line!.match(/ready on (\S+)/)![1]!;
});

afterAll(async () => {
  child?.kill('SIGTERM');
  await site?.close();
});

test('bap mcp --port prints its endpoint and serves a login flow over Streamable HTTP', async () => {
  expect(endpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
  const client = await connect(endpoint);
  await loginFlow(client, site.url);
  await client.close();
});

test('a multi-tab flow over Streamable HTTP', async () => {
  const client = await connect(endpoint);
  await loginFlow(client, site.url);
  await multiTabFlow(client, site.url);
  await client.close();
});

test('each HTTP client has its own session: its own tabs and cookies', async () => {
  const [a, b] = [await connect(endpoint), await connect(endpoint)];
  await call(a, 'navigate', { url: `${site.url}/orders` });
  expect((await call(b, 'tabs', { action: 'list' })).text).toBe('No tabs open: navigate opens one.');
  await loginFlow(a, site.url);
  const other = await call(b, 'navigate', { url: `${site.url}/account` });
  expect(other.text).toContain('"Sign in"');
  await Promise.all([a.close(), b.close()]);
});

test('refuses a foreign Host or Origin before any MCP handling (DNS rebinding, cross-site pages)', async () => {
  const init = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } } };
  // fetch cannot set Host: a raw request can, as a rebinding page's browser would send it.
  const post = (headers: Record<string, string>) =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(endpoint, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers } }, (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on('error', reject);
      req.end(JSON.stringify(init));
    });
  const host = await post({ host: 'attacker.example' });
  expect(host.status).toBe(403);
  expect(host.body).toContain('attacker.example');
  const origin = await post({ origin: 'https://attacker.example' });
  expect(origin.status).toBe(403);
  const unknown = await fetch(endpoint, { method: 'POST', headers: { 'content-type': 'application/json', 'mcp-session-id': 'nope' }, body: '{}' });
  expect(unknown.status).toBe(404);
  const notJson = await fetch(endpoint, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{' });
  expect(notJson.status).toBe(400);
});

test('backed by a running BAP server (--url): the same flow through the WebSocket client', async () => {
  let server: RunningServer | undefined;
  let mcp: RunningMcpHttp | undefined;
  try {
    server = await startServer({ port: 0, logger: false });
    mcp = await serveMcpHttp({ port: 0, url: server.url });
    const client = await connect(mcp.url);
    await loginFlow(client, site.url);
    expect((await server.stats()).pages).toBe(1);
    await client.close();
  } finally {
    await mcp?.close();
    await server?.close();
  }
});
