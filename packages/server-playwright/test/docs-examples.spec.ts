import { createReadStream, readdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, test } from 'vitest';
import WebSocket from 'ws';
import { PROTOCOL_VERSION } from '@browseragentprotocol/protocol';
import { startServer, type RunningServer } from '../src/index.js';

const docs = fileURLToPath(new URL('../../../docs/', import.meta.url));
/** `[method, params]`, or `[method, params, {error: code}]` for a request that needs state a static example cannot have. */
type Step = [string, Record<string, unknown>, { error: number }?];

const { examples } = JSON.parse(readFileSync(join(docs, 'protocol-examples.json'), 'utf8')) as { examples: Step[] };

/** Every ```json bap-session block of docs/*.md: [method, params] steps run in order in a fresh session. */
const sessions = readdirSync(docs)
  .filter((f) => f.endsWith('.md'))
  .flatMap((file) =>
    [...readFileSync(join(docs, file), 'utf8').matchAll(/```json bap-session\n([\s\S]*?)```/g)].map((m, i) => ({
      name: `${file} example ${i + 1}`,
      steps: JSON.parse(m[1]!) as Step[],
    })),
  );

let site: Server;
let server: RunningServer;
let siteUrl: string;

beforeAll(async () => {
  site = createServer((req, res) => {
    const file = join(docs, 'example-site', (req.url ?? '/').split(/[?#]/)[0]!.replace(/^\/+/, '') || 'form.html');
    res.setHeader('content-type', 'text/html');
    createReadStream(file).on('error', () => res.writeHead(404).end()).pipe(res);
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
  // Evaluation and upload directories on, for the page/evaluate and action/armFileChooser examples.
  server = await startServer({ port: 0, logger: false, validateResults: true, allowEvaluate: true, uploadDirs: [join(docs, 'example-site')] });
});

afterAll(async () => {
  await server.close();
  site.close();
});

type Reply = { result?: unknown; error?: { code: number; message: string } };

/** Sends each step on one new connection, in order, expecting every one to succeed. */
async function run(steps: Step[]): Promise<void> {
  const ws = new WebSocket(server.url);
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  const replies = new Map<number, (reply: Reply) => void>();
  ws.on('message', (data) => {
    const message = JSON.parse(data.toString());
    if (typeof message.id === 'number') replies.get(message.id)?.(message);
  });
  let id = 0;
  for (const [method, params, expected] of steps) {
    const body = JSON.parse(JSON.stringify(params).replaceAll('SITE', siteUrl));
    const reply = await new Promise<Reply>((resolve) => {
      replies.set(++id, resolve);
      ws.send(JSON.stringify({ jsonrpc: '2.0', id, method, params: body }));
    });
    if (expected) expect(reply.error?.code, `${method} ${JSON.stringify(body)}`).toBe(expected.error);
    else expect(reply.error, `${method} ${JSON.stringify(body)}`).toBeUndefined();
    if (method === 'initialize') ws.send(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
  }
  ws.close();
}

test('every example of docs/protocol.md succeeds against a real server, in order', async () => {
  await run(examples);
});

test('the docs pages have runnable examples', () => {
  expect(sessions.length).toBeGreaterThanOrEqual(8);
});

test.each(sessions)('$name succeeds against a real server', async ({ steps }) => {
  const initialize: Step = ['initialize', { protocolVersion: PROTOCOL_VERSION, clientInfo: { name: 'docs', version: '1' } }];
  await run([initialize, ...steps]);
});
