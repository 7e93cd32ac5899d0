import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { selectTools } from '../src/index.js';
import { call, loginFlow, multiTabFlow } from './flows.js';
import { startSite } from './site.js';

const bap = fileURLToPath(new URL('../../cli/dist/bin.js', import.meta.url));
const inspector = fileURLToPath(new URL('../../../node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js', import.meta.url));
const run = promisify(execFile);

let site: Awaited<ReturnType<typeof startSite>>;
let client: Client;

beforeAll(async () => {
  site = await startSite();
  client = new Client({ name: 'mcp-stdio-test', version: '1' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [bap, 'mcp'], stderr: 'inherit' }));
});

afterAll(async () => {
  await client?.close();
  await site?.close();
});

test('tools/list of the default set stays under 1,500 tokens (characters / 4)', async () => {
  const list = await client.listTools();
  const tokens = JSON.stringify(list).length / 4;
  expect(tokens).toBeLessThan(1_500);
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { name: string; version: string };
  expect(client.getServerVersion()).toMatchObject({ name: pkg.name, version: pkg.version });
  expect(list.tools.map((t) => t.name)).toEqual([
    'navigate', 'observe', 'click', 'fill', 'type', 'press', 'select', 'hover', 'scroll', 'upload',
    'act', 'extract', 'screenshot', 'tabs', 'wait_for', 'dialog', 'console', 'pdf',
  ]);
  // Every capability on still stays within reach of the budget.
  const all = selectTools({ caps: ['evaluate', 'storage', 'network'] }).map((t) => t.name);
  expect(all).toEqual(expect.arrayContaining(['evaluate', 'storage', 'network']));
});

test('signs in over stdio, with refs from each result', async () => {
  await loginFlow(client, site.url);
});

test('works across two tabs over stdio, by tab id', async () => {
  await multiTabFlow(client, site.url);
});

test('a tool error is a result the model reads, not a protocol failure', async () => {
  const stale = await call(client, 'click', { target: '@e999' });
  expect(stale.isError).toBe(true);
  expect(stale.text).toContain('Unknown ref @e999');
  const invalid = await call(client, 'navigate', { url: 'back', go: 'back' });
  expect(invalid.isError).toBe(true);
  expect(invalid.text).toContain('give url or go');
});

/** The shell lines of docs/mcp.md's block that runs the Inspector, and its host configs. */
const docs = readFileSync(fileURLToPath(new URL('../../../docs/mcp.md', import.meta.url)), 'utf8');
const repo = fileURLToPath(new URL('../../../', import.meta.url));
const inspectorLines = docs.split('\n').filter((l) => l.startsWith('npx mcp-inspector --cli'));
const configs = [...docs.matchAll(/```json mcp-config\n([\s\S]*?)```/g)].map((m) => JSON.parse(m[1]!) as Record<string, Record<string, { command: string; args: string[] }>>);

test('the MCP Inspector CLI lists the tools and calls navigate, as docs/mcp.md shows', async () => {
  expect(inspectorLines).toHaveLength(2);
  const runLine = async (line: string) => {
    // The docs' page is on the internet; this machine has none, so the test site stands in.
    const args = line.replace(/^npx mcp-inspector /, '').replace('./bap', join(repo, 'bap')).replace('https://example.com', `${site.url}/login`).split(' ');
    return JSON.parse((await run(process.execPath, [inspector, ...args], { timeout: 60_000 })).stdout);
  };
  const list = (await runLine(inspectorLines[0]!)) as { tools: { name: string }[] };
  expect(list.tools.map((t) => t.name)).toContain('navigate');
  const result = (await runLine(inspectorLines[1]!)) as { content: { text: string }[]; isError?: boolean };
  expect(result.isError ?? false).toBe(false);
  expect(result.content[0]!.text).toContain('button "Sign in"');
}, 120_000);

test('the host configs in docs/mcp.md start a server that lists the tools', async () => {
  expect(configs).toHaveLength(2);
  for (const config of configs) {
    const entry = (config.mcpServers ?? config.servers)!.bap!;
    const hostClient = new Client({ name: 'docs-config', version: '1' });
    await hostClient.connect(new StdioClientTransport({ command: entry.command.replace('/path/to/bap', repo.replace(/\/$/, '')), args: entry.args, stderr: 'ignore' }));
    expect((await hostClient.listTools()).tools.length).toBeGreaterThan(10);
    await hostClient.close();
  }
}, 60_000);
