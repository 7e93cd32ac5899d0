// The same 10-step shop task (navigate, observe, fills, clicks, extract) driven through our MCP
// server (`bap mcp`, stdio) and through Playwright MCP (stdio) the way a model would: each target's
// ref is read from the text the previous results returned. Prints median time and characters per
// step and in total, the ratios against the targets (≤ 0.5× chars, ≤ 0.5× time) and tools/list sizes.
// BENCH_ITERATIONS (default 5) counted runs per server, after one warm-up run each, servers taking
// turns going first; BENCH_DEBUG=1 prints every tool result. A step whose call errors or whose page
// state is wrong ends the bench. Both sign-in fields are `required`: step 5 reaching the catalog
// also proves steps 3 and 4 on both servers.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { findChromium } from '@browseragentprotocol/server-playwright';
import { REPO, VIEWPORT, quantile, serveHtml, table } from './lib.mjs';

const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 5);
const DEBUG = process.env.BENCH_DEBUG === '1';
const CHROMIUM = findChromium();
const PW_VERSION = JSON.parse(readFileSync(join(REPO, 'node_modules/@playwright/mcp/package.json'), 'utf8')).version;

// ── The shop: a sign-in form that posts to the catalog; 250 product cards, a client-side search, a cart link and an orders table.
const KINDS = ['Trail Runner', 'Down Jacket', 'Camp Stove', 'Rain Shell', 'Day Pack', 'Head Torch', 'Sleeping Bag', 'Water Filter'];
const ORDERS = [...Array(8)].map((_, i) => ({ id: `A-${1041 + i}`, item: `${KINDS[(i * 3) % 8]} ${10 + i * 17}`, total: `$${(23 + i * 19.5).toFixed(2)}` }));
const QUERY = 'Head Torch 13'; // matches "Head Torch 13" and "Head Torch 133"
const signIn = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Sign in · Outdoor shop</title></head><body>
<header><a href="/">Outdoor shop</a> <a href="/help">Help</a></header>
<main><h1>Sign in</h1><form method="post" action="/catalog">
<p><label>Email <input type="email" name="email" required></label></p>
<p><label>Password <input type="password" name="password" required></label></p>
<p><label><input type="checkbox" name="remember"> Remember me</label></p>
<button type="submit">Sign in</button> <a href="/reset">Forgot password?</a></form></main></body></html>`;
const catalog = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Outdoor catalog</title>
<style>body{font-family:sans-serif;margin:16px}.grid{display:grid;grid-template-columns:repeat(4,1fr);gap:12px}article{border:1px solid #ccc;padding:8px}</style></head><body>
<header><a href="/">Outdoor shop</a> <a href="#cart" id="cart">Cart (0 items)</a>
<form role="search" onsubmit="event.preventDefault(); search()"><label>Search products <input id="q" type="search"></label> <button type="submit">Search</button></form></header>
<h1>Outdoor catalog</h1><p>Gear for trails, camps and cold mornings. Prices include VAT; delivery is free over $50.</p>
<main class="grid" id="grid"></main>
<section><h2>Your orders</h2><table id="orders"><thead><tr><th>Order ID</th><th>Item</th><th>Total</th></tr></thead><tbody>
${ORDERS.map((o) => `<tr><td>${o.id}</td><td>${o.item}</td><td>${o.total}</td></tr>`).join('\n')}</tbody></table></section>
<script>
const kinds = ${JSON.stringify(KINDS)};
const blurbs = ['Lightweight and breathable, with a grippy outsole that holds on wet rock.', 'Packs down to the size of a water bottle and keeps you warm.', 'Boils a litre of water in under four minutes, even in a breeze.', 'Fully taped seams, pit zips and a hood that moves with your head.'];
let items = 0;
document.getElementById('grid').innerHTML = Array.from({ length: 250 }, (_, k) => { const i = k + 1; return \`<article>
  <h2><a href="#product-\${i}">\${kinds[i % 8]} \${i}</a></h2><p>\${blurbs[i % 4]}</p><p class="price">$\${(19 + (i * 7) % 180).toFixed(2)}</p>
  <button type="button" onclick="add(this)">Add to cart</button> <label><input type="checkbox"> Compare</label></article>\`; }).join('');
function add(button) { items++; button.textContent = 'Added'; document.getElementById('cart').textContent = 'Cart (' + items + ' item' + (items === 1 ? '' : 's') + ')'; }
function search() { const q = document.getElementById('q').value.trim().toLowerCase();
  for (const card of document.querySelectorAll('article')) card.hidden = !card.querySelector('h2').textContent.toLowerCase().includes(q); }
</script></body></html>`;
const site = await serveHtml({ '/signin': signIn, '/catalog': catalog, '/favicon.ico': '' });

// ── MCP clients over stdio; every call is timed and its returned characters counted.
async function connect(name, command, args, cwd) {
  const client = new Client({ name: 'bap-bench', version: '1' });
  await client.connect(new StdioClientTransport({ command, args, cwd, stderr: 'ignore' }));
  const { tools } = await client.listTools();
  return { name, client, toolCount: tools.length, toolsChars: JSON.stringify(tools).length };
}

async function call(server, record, tool, args) {
  const start = performance.now();
  const result = await server.client.callTool({ name: tool, arguments: args });
  const ms = performance.now() - start;
  const text = result.content.filter((c) => c.type === 'text').map((c) => c.text).join('\n');
  const image = result.content.filter((c) => c.type === 'image').reduce((n, c) => n + c.data.length, 0);
  if (DEBUG) console.log(`\n── ${server.name} ${tool} ${JSON.stringify(args)} (${ms.toFixed(0)} ms, ${text.length} chars)\n${text}`);
  if (result.isError) throw new Error(`${server.name} ${tool} ${JSON.stringify(args)} failed: ${text}`);
  record.push({ ms, chars: text.length, image });
  return text;
}

function check(server, step, ok, text) {
  if (!ok) throw new Error(`${server.name}, step ${step}: page state is not as expected. The result was:\n${text.slice(0, 3000)}`);
}

/** The ref on the first line naming `name` (with `role`) after the line holding `after`: @eN in ours, [ref=eN] in Playwright MCP's. */
function refOf(text, role, name, after) {
  const lines = text.split('\n');
  const from = after ? lines.findIndex((l) => l.includes(after)) : 0;
  const line = lines.slice(Math.max(from, 0)).find((l) => l.includes(role) && l.includes(`"${name}`));
  const ref = line?.match(/\[ref=([a-z0-9]+)\]/)?.[1] ?? line?.match(/(@[a-z0-9]+)/)?.[1];
  if (!ref || from < 0) throw new Error(`no ref for ${role} "${name}"${after ? ` after "${after}"` : ''} in:\n${text.slice(0, 3000)}`);
  return ref;
}

const STEPS = ['1 navigate sign-in', '2 observe', '3 fill email', '4 fill password', '5 click Sign in', '6 observe catalog', '7 fill search', '8 click Search', '9 click Add to cart', '10 extract orders'];
const ordersSchema = {
  type: 'object',
  properties: { orders: { type: 'array', items: { type: 'object', properties: { id: { type: 'string' }, item: { type: 'string' }, total: { type: 'string' } } } } },
};
const sameOrders = (data) => JSON.stringify(data?.orders) === JSON.stringify(ORDERS);

/** Ours: observe for refs, fill and click them; extract the orders with a JSON Schema. */
async function runBap(s) {
  const r = [];
  let t = await call(s, r, 'navigate', { url: site.url('/signin') });
  check(s, 1, t.includes('/signin'), t);
  t = await call(s, r, 'observe', {});
  const [email, password, signInButton] = [refOf(t, 'textbox', 'Email'), refOf(t, 'textbox', 'Password'), refOf(t, 'button', 'Sign in')];
  t = await call(s, r, 'fill', { target: email, value: 'ada@example.com' });
  check(s, 3, t.startsWith('✓ fill'), t);
  await call(s, r, 'fill', { target: password, value: 'correct horse' });
  t = await call(s, r, 'click', { target: signInButton });
  check(s, 5, t.includes('/catalog'), t);
  const observed = (t = await call(s, r, 'observe', {}));
  check(s, 6, t.includes('Head Torch 13'), t);
  const search = refOf(t, 'button', 'Search');
  t = await call(s, r, 'fill', { target: refOf(t, 'searchbox', 'Search products'), value: QUERY });
  check(s, 7, t.startsWith('✓ fill'), t);
  t = await call(s, r, 'click', { target: search });
  check(s, 8, /- removed \(3\d\d\): /.test(t), t); // the cards that do not match are gone
  // The first result's Add to cart: not in the changes (it did not change), so its ref from step 6.
  t = await call(s, r, 'click', { target: refOf(observed, 'button', 'Add to cart', `"${QUERY}"`) });
  check(s, 9, t.includes('Cart (1 item)'), t);
  t = await call(s, r, 'extract', { schema: ordersSchema, instruction: 'the orders in the table' });
  check(s, 10, sameOrders(JSON.parse(t)), t);
  return r;
}

/** Playwright MCP: browser_snapshot for refs, browser_type / browser_click on them; no extract tool, so step 10 reads the orders from browser_snapshot. */
async function runPlaywright(s) {
  const r = [];
  let t = await call(s, r, 'browser_navigate', { url: site.url('/signin') });
  check(s, 1, t.includes('/signin'), t);
  t = await call(s, r, 'browser_snapshot', {});
  const [email, password, signInButton] = [refOf(t, 'textbox', 'Email'), refOf(t, 'textbox', 'Password'), refOf(t, 'button', 'Sign in')];
  await call(s, r, 'browser_type', { element: 'Email textbox', target: email, text: 'ada@example.com' });
  await call(s, r, 'browser_type', { element: 'Password textbox', target: password, text: 'correct horse' });
  t = await call(s, r, 'browser_click', { element: 'Sign in button', target: signInButton });
  check(s, 5, t.includes('/catalog'), t);
  const observed = (t = await call(s, r, 'browser_snapshot', {}));
  check(s, 6, t.includes('Head Torch 13'), t);
  await call(s, r, 'browser_type', { element: 'Search products searchbox', target: refOf(t, 'searchbox', 'Search products'), text: QUERY });
  await call(s, r, 'browser_click', { element: 'Search button', target: refOf(t, 'button', 'Search') });
  // Its action results link their snapshot to a file instead of showing it: the button's ref comes from step 6, as for ours.
  await call(s, r, 'browser_click', { element: 'Add to cart button', target: refOf(observed, 'button', 'Add to cart', `"${QUERY}"`) });
  t = await call(s, r, 'browser_snapshot', {});
  check(s, 8, !t.includes('"Down Jacket 1"'), t); // steps 8 and 9 show only here: the filtered list and the cart count
  check(s, 9, t.includes('Cart (1 item)'), t);
  check(s, 10, ORDERS.every((o) => t.includes(o.id) && t.includes(o.item) && t.includes(o.total)), t);
  return r;
}

const scratch = mkdtempSync(join(tmpdir(), 'bap-bench-mcp-'));
const pwArgs = [join(REPO, 'node_modules/@playwright/mcp/cli.js'), '--headless', '--isolated', '--executable-path', CHROMIUM, '--viewport-size', `${VIEWPORT.width}x${VIEWPORT.height}`, '--output-dir', scratch];
if (process.getuid?.() === 0) pwArgs.push('--no-sandbox');
const bap = await connect('BAP MCP', process.execPath, [join(REPO, 'packages/cli/dist/bin.js'), 'mcp', '--browser-path', CHROMIUM], REPO);
const pw = await connect('Playwright MCP', process.execPath, pwArgs, scratch);
const servers = [
  { server: bap, run: runBap, runs: [] },
  { server: pw, run: runPlaywright, runs: [] },
];

try {
  for (const s of servers) await s.run(s.server); // warm-up, not counted
  for (let i = 0; i < ITERATIONS; i++) {
    for (const s of i % 2 ? [...servers].reverse() : servers) s.runs.push(await s.run(s.server));
  }
} finally {
  await bap.client.close();
  await pw.client.close();
  site.close();
  rmSync(scratch, { recursive: true, force: true });
}

// ── Report: medians per step, then per-run totals (median total time; characters are the same every run).
const median = (values) => quantile(values, 0.5);
const sum = (values) => values.reduce((a, b) => a + b, 0);
const n = (v) => Math.round(v).toLocaleString('en-US');
const stats = servers.map(({ runs }) => ({
  steps: STEPS.map((_, k) => ({ ms: median(runs.map((r) => r[k].ms)), chars: median(runs.map((r) => r[k].chars)) })),
  ms: median(runs.map((r) => sum(r.map((c) => c.ms)))),
  chars: median(runs.map((r) => sum(r.map((c) => c.chars)))),
  image: median(runs.map((r) => sum(r.map((c) => c.image)))),
}));
const [ours, theirs] = stats;
console.log(`\nThe 10-step shop task through BAP MCP and Playwright MCP ${PW_VERSION} (median of ${ITERATIONS} runs each, 1 warm-up)\n`);
console.log(
  table(
    ['step', 'BAP ms', 'PW MCP ms', 'BAP chars', 'PW MCP chars'],
    STEPS.map((name, k) => [name, ours.steps[k].ms.toFixed(1), theirs.steps[k].ms.toFixed(1), n(ours.steps[k].chars), n(theirs.steps[k].chars)]).concat([
      ['total', ours.ms.toFixed(1), theirs.ms.toFixed(1), n(ours.chars), n(theirs.chars)],
    ]),
  ),
);
console.log('\nStep 10 on Playwright MCP is browser_snapshot: it has no extract tool, so a model reads the orders from the snapshot.');
console.log('Playwright MCP action results (type, click) show the code run and a link to a snapshot file, not the snapshot; ours show what changed.');
console.log(`Image content (base64 chars): BAP ${n(ours.image)}, Playwright MCP ${n(theirs.image)}.`);
const verdict = (ratio) => `${ratio.toFixed(2)}× (target ≤ 0.5×: ${ratio <= 0.5 ? 'met' : 'NOT met'})`;
console.log(`\nCharacters returned to the model, BAP / Playwright MCP: ${verdict(ours.chars / theirs.chars)}`);
console.log(`Total wall time, BAP / Playwright MCP:                 ${verdict(ours.ms / theirs.ms)}`);
console.log(`\ntools/list: BAP MCP ${bap.toolCount} tools, ${n(bap.toolsChars)} chars (~${n(bap.toolsChars / 4)} tokens); Playwright MCP ${pw.toolCount} tools, ${n(pw.toolsChars)} chars (~${n(pw.toolsChars / 4)} tokens)`);
