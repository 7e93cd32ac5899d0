// Observation size: what an agent reads to see a page, through BAP's agent/observe (interactive
// tier, over WebSocket) and through Playwright MCP's browser_snapshot (stdio), in one run on the
// same local catalog pages: 750 and 3,003 interactive elements among headings, text and prices.
// Characters are our JSON result against the text content of their tool result.
import { BAPClient } from '@browseragentprotocol/client';
import { startServer } from '@browseragentprotocol/server-playwright';
import { catalogHtml, mcpText, sample, serveHtml, startPlaywrightMcp, VIEWPORT } from './lib.mjs';

const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 10);
const WARMUP = 2;
const PAGES = [
  { name: '750 elements', query: '' },
  { name: '3,003 elements', query: '?cards=1001' },
];

const site = await serveHtml({ '/catalog.html': catalogHtml() });
const base = site.url('/catalog.html');

const server = await startServer({ port: 0, logger: false });
const bap = new BAPClient(server.url);
await bap.connect();
await bap.call('page/create', { viewport: VIEWPORT });

const mcp = await startPlaywrightMcp();
const measure = async (fn) => {
  const { result, p50 } = await sample(fn, { iterations: ITERATIONS, warmup: WARMUP });
  return { size: result, median: p50 };
};

const rows = [];
for (const { name, query } of PAGES) {
  const url = base + query;
  await bap.call('page/navigate', { url });
  const ours = await measure(async () => JSON.stringify(await bap.call('agent/observe', { responseTier: 'interactive', maxChars: 5_000_000 })).length);
  await mcp.call('browser_navigate', { url });
  const theirs = await measure(async () => mcpText(await mcp.call('browser_snapshot')).length);
  rows.push({ name, ours, theirs });
}

await mcp.close();
await bap.close();
await server.close();
site.close();

const n = (v) => v.toLocaleString('en-US');
console.log(`\nagent/observe (interactive tier) vs Playwright MCP browser_snapshot (median of ${ITERATIONS})\n`);
console.log('| page           | BAP chars | MCP chars | chars ratio | BAP ms  | MCP ms  | time ratio |');
console.log('|----------------|-----------|-----------|-------------|---------|---------|------------|');
for (const { name, ours, theirs } of rows) {
  console.log(
    `| ${name.padEnd(14)} | ${n(ours.size).padStart(9)} | ${n(theirs.size).padStart(9)} | ${(ours.size / theirs.size).toFixed(2).padStart(10)}x | ${ours.median.toFixed(1).padStart(7)} | ${theirs.median.toFixed(1).padStart(7)} | ${(ours.median / theirs.median).toFixed(2).padStart(9)}x |`,
  );
}
