// Observation size: what an agent reads to see a page, through BAP's agent/observe (interactive
// tier, over WebSocket) and through Playwright MCP's browser_snapshot (stdio), in one run on the
// same local catalog pages: 750 and 3,003 interactive elements among headings, text and prices.
// Characters are our JSON result against the text content of their tool result.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { BAPClient } from '@browseragentprotocol/client';
import { findChromium, startServer } from '@browseragentprotocol/server-playwright';

const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 10);
const WARMUP = 2;
const VIEWPORT = { width: 1280, height: 720 };
const PAGES = [
  { name: '750 elements', query: '' },
  { name: '3,003 elements', query: '?cards=1001' },
];

const catalog = readFileSync(new URL('../tests/fixtures/observe-catalog.html', import.meta.url));
const site = createServer((_req, res) => {
  res.writeHead(200, { 'content-type': 'text/html' });
  res.end(catalog);
});
await new Promise((resolve) => site.listen(0, '127.0.0.1', resolve));
const base = `http://127.0.0.1:${site.address().port}/catalog.html`;

const server = await startServer({ port: 0, logger: false });
const bap = new BAPClient(server.url);
await bap.connect();
await bap.call('page/create', { viewport: VIEWPORT });

// Playwright MCP writes snapshot files next to its working directory: give it a throwaway one.
const scratch = mkdtempSync(join(tmpdir(), 'bap-bench-mcp-'));
const mcpArgs = [
  fileURLToPath(new URL('../node_modules/@playwright/mcp/cli.js', import.meta.url)),
  '--headless',
  '--isolated',
  '--executable-path',
  findChromium(),
  '--viewport-size',
  `${VIEWPORT.width}x${VIEWPORT.height}`,
  '--output-dir',
  scratch,
];
if (process.getuid?.() === 0) mcpArgs.push('--no-sandbox');
const mcp = new Client({ name: 'bap-bench', version: '1' });
await mcp.connect(new StdioClientTransport({ command: process.execPath, args: mcpArgs, cwd: scratch, stderr: 'ignore' }));

const textOf = (result) => result.content.filter((c) => c.type === 'text').map((c) => c.text).join('\n');

async function sample(fn) {
  const times = [];
  let size = 0;
  for (let i = 0; i < WARMUP + ITERATIONS; i++) {
    const start = performance.now();
    size = await fn();
    if (i >= WARMUP) times.push(performance.now() - start);
  }
  return { size, median: times.sort((a, b) => a - b)[Math.floor(times.length / 2)] };
}

const rows = [];
for (const { name, query } of PAGES) {
  const url = base + query;
  await bap.call('page/navigate', { url });
  const ours = await sample(async () => JSON.stringify(await bap.call('agent/observe', { responseTier: 'interactive', maxChars: 5_000_000 })).length);
  await mcp.callTool({ name: 'browser_navigate', arguments: { url } });
  const theirs = await sample(async () => textOf(await mcp.callTool({ name: 'browser_snapshot', arguments: {} })).length);
  rows.push({ name, ours, theirs });
}

await mcp.close();
await bap.close();
await server.close();
site.close();
rmSync(scratch, { recursive: true, force: true });

const n = (v) => v.toLocaleString('en-US');
console.log(`\nagent/observe (interactive tier) vs Playwright MCP browser_snapshot (median of ${ITERATIONS})\n`);
console.log('| page           | BAP chars | MCP chars | chars ratio | BAP ms  | MCP ms  | time ratio |');
console.log('|----------------|-----------|-----------|-------------|---------|---------|------------|');
for (const { name, ours, theirs } of rows) {
  console.log(
    `| ${name.padEnd(14)} | ${n(ours.size).padStart(9)} | ${n(theirs.size).padStart(9)} | ${(ours.size / theirs.size).toFixed(2).padStart(10)}x | ${ours.median.toFixed(1).padStart(7)} | ${theirs.median.toFixed(1).padStart(7)} | ${(ours.median / theirs.median).toFixed(2).padStart(9)}x |`,
  );
}
