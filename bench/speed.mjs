// Speed: click, fill, navigate, screenshot and observe through BAP (BAPClient over WebSocket to a
// server in a child process), through in-process Playwright and through Playwright MCP (stdio),
// in one run on the same pages, with p50/p95, ratios and issue 8's targets; then the server's
// memory idle and per context. Each peer runs all its calls in a block of its own, with only its
// own browser busy: interleaving browsers skews their animation-frame phase, most of a click.
import { performance } from 'node:perf_hooks';
import { BAPClient } from '@browseragentprotocol/client';
import { catalogHtml, launchChromium, machine, mb, mcpText, ms, sample, serveHtml, startPlaywrightMcp, startServerChild, stats, table, VIEWPORT } from './lib.mjs';

const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 20);
const WARMUP = 3;
// Observing a page just loaded costs a navigation per call: fewer of them.
const FRESH_ITERATIONS = Number(process.env.BENCH_FRESH_ITERATIONS ?? 5);
const MEMORY_CONTEXTS = 10;

// The catalog fixture (250 cards of a link, a button and a checkbox) with a search form on top,
// so that fill has a field: 752 interactive elements.
const SEARCH_FORM = `<form role="search" onsubmit="return false">
    <label>Search <input id="search" name="q" autocomplete="off"></label> <button type="submit">Search</button>
  </form>
  <main`;
const catalog = catalogHtml();
const site = await serveHtml({ '/catalog.html': catalog, '/shop.html': catalog.replace('<main', SEARCH_FORM) });
const shop = site.url('/shop.html');
const OBSERVED = [
  { name: '750', url: site.url('/catalog.html') },
  { name: '3,003', url: site.url('/catalog.html?cards=1001') },
  { name: '10,002', url: site.url('/catalog.html?cards=3334') },
];
const CLICK = '#grid > article:first-child button';
const FILL = '#search';
const TEXT = 'trail runner';
const OBSERVE = { responseTier: 'interactive', maxChars: 5_000_000 };

// Limits raised for the bench: a session holds the default context and MEMORY_CONTEXTS more
// (default maxContexts 10), and takes more screenshots than 120 a minute.
const SERVER_OPTIONS = { port: 0, logger: false, maxContexts: MEMORY_CONTEXTS + 2, screenshotsPerMinute: 100_000 };
const server = await startServerChild(SERVER_OPTIONS);
const client = new BAPClient(server.url, { requestTimeout: 120_000 });
await client.connect();

const settle = () => new Promise((resolve) => setTimeout(resolve, 1_000));

/** Server memory idle, with the bench's page, and with MEMORY_CONTEXTS more contexts of one page each (destroyed after). */
async function measureMemory() {
  const idle = await server.memory();
  const { id: pageId } = await client.call('page/create', { url: shop });
  await settle();
  const onePage = await server.memory();
  const contexts = [];
  for (let i = 0; i < MEMORY_CONTEXTS; i++) {
    const { contextId } = await client.call('context/create', {});
    await client.call('page/create', { contextId, url: OBSERVED[0].url });
    contexts.push(contextId);
  }
  await settle();
  const many = await server.memory();
  for (const contextId of contexts) await client.call('context/destroy', { contextId });
  return { pageId, idle, onePage, many };
}

function bapPeer(pageId) {
  return {
    name: 'BAP',
    goto: (url) => client.call('page/navigate', { pageId, url }),
    click: () => client.call('action/click', { pageId, selector: { type: 'css', value: CLICK } }),
    fill: () => client.call('action/fill', { pageId, selector: { type: 'css', value: FILL }, value: TEXT }),
    screenshot: (jpeg) => client.call('observe/screenshot', { pageId, ...(jpeg ? { options: { format: 'jpeg', quality: 70 } } : {}) }),
    observe: async () => JSON.stringify(await client.call('agent/observe', { pageId, ...OBSERVE })).length,
    close: async () => {},
  };
}

async function playwrightPeer() {
  const browser = await launchChromium();
  const page = await (await browser.newContext({ viewport: VIEWPORT })).newPage();
  return {
    name: 'PW',
    goto: (url) => page.goto(url),
    click: () => page.locator(CLICK).click(),
    fill: () => page.locator(FILL).fill(TEXT),
    screenshot: (jpeg) => page.screenshot(jpeg ? { type: 'jpeg', quality: 70 } : {}),
    observe: async () => (await page.ariaSnapshot({ mode: 'ai' })).length,
    close: () => browser.close(),
  };
}

async function mcpPeer() {
  const mcp = await startPlaywrightMcp();
  const refs = {};
  // Refs come from the snapshot text: `- button "Added" [active] [ref=e2009]`, the first line naming the target.
  const refOf = async (role, name) => {
    const text = mcpText(await mcp.call('browser_snapshot'));
    const ref = text.match(new RegExp(`- ${role} "${name}"(?: \\[[^\\]]*\\])*? \\[ref=([a-z0-9]+)\\]`))?.[1];
    if (!ref) throw new Error(`Playwright MCP snapshot has no ${role} "${name}"`);
    return ref;
  };
  return {
    name: 'MCP',
    goto: (url) => mcp.call('browser_navigate', { url }),
    // The first card's button says "Added" once clicked: click it once, then take its new ref.
    prepare: async () => {
      refs.search = await refOf('textbox', 'Search');
      await mcp.call('browser_click', { element: 'Add to cart', target: await refOf('button', 'Add to cart') });
      refs.added = await refOf('button', 'Added');
    },
    click: () => mcp.call('browser_click', { element: 'Added', target: refs.added }),
    fill: () => mcp.call('browser_type', { element: 'Search', target: refs.search, text: TEXT }),
    screenshot: (jpeg) => mcp.call('browser_take_screenshot', { type: jpeg ? 'jpeg' : 'png', scale: 'css' }),
    observe: async () => mcpText(await mcp.call('browser_snapshot')).length,
    close: () => mcp.close(),
  };
}

/** A page seen for the first time: navigate, then observe; both timed, and the observe alone. */
async function afterLoad(peer, name, url) {
  const [observe, both] = [[], []];
  for (let i = 0; i < 1 + FRESH_ITERATIONS; i++) {
    const start = performance.now();
    await peer.goto(url);
    const loaded = performance.now();
    await peer.observe();
    if (i === 0) continue;
    observe.push(performance.now() - loaded);
    both.push(performance.now() - start);
  }
  return { [`observe ${name} after load`]: stats(observe), [`navigate + observe ${name}`]: stats(both) };
}

async function run(peer) {
  const options = { iterations: ITERATIONS, warmup: WARMUP };
  const results = {};
  await peer.goto(shop);
  results.navigate = await sample(() => peer.goto(shop), options);
  await peer.prepare?.();
  results.click = await sample(() => peer.click(), options);
  results.fill = await sample(() => peer.fill(), options);
  results['screenshot png'] = await sample(() => peer.screenshot(false), options);
  results['screenshot jpeg'] = await sample(() => peer.screenshot(true), options);
  for (const { name, url } of OBSERVED) {
    await peer.goto(url);
    results[`observe ${name}`] = await sample(() => peer.observe(), options);
  }
  for (const { name, url } of OBSERVED.slice(1)) Object.assign(results, await afterLoad(peer, name, url));
  await peer.close();
  process.stderr.write(`${peer.name} done\n`);
  return results;
}

const machineAtStart = machine();
const memory = await measureMemory();
const bap = await run(bapPeer(memory.pageId));
const pw = await run(await playwrightPeer());
const mcp = await run(await mcpPeer());
await client.close();
await server.close();
site.close();

const ratio = (a, b) => `${(a.p50 / b.p50).toFixed(3)}x`;
const OPERATIONS = [
  ...['click', 'fill', 'navigate', 'screenshot png', 'screenshot jpeg'],
  ...OBSERVED.map((p) => `observe ${p.name}`),
  ...OBSERVED.slice(1).flatMap((p) => [`observe ${p.name} after load`, `navigate + observe ${p.name}`]),
];
console.log(`\nSpeed: BAP (WebSocket, server in a child process) vs Playwright in-process (PW) vs Playwright MCP (stdio)`);
console.log(`${ITERATIONS} iterations after ${WARMUP} warm-up, ms; click/fill/navigate/screenshot on the catalog with a search form (752 interactive elements)`);
console.log(`Machine at start: ${machineAtStart}; at end: ${machine()}\n`);
console.log(
  table(
    ['operation', 'BAP p50', 'BAP p95', 'PW p50', 'PW p95', 'MCP p50', 'MCP p95', 'BAP/PW p50', 'BAP/MCP p50'],
    OPERATIONS.map((op) => [op, ms(bap[op].p50), ms(bap[op].p95), ms(pw[op].p50), ms(pw[op].p95), ms(mcp[op].p50), ms(mcp[op].p95), ratio(bap[op], pw[op]), ratio(bap[op], mcp[op])]),
  ),
);
console.log(`
  click:      BAP action/click {css "${CLICK}"} · PW locator.click() · MCP browser_click {element, target: ref}
  fill:       BAP action/fill {css "${FILL}"} · PW locator.fill() · MCP browser_type {element, target: ref, text}
  navigate:   BAP page/navigate · PW page.goto() · MCP browser_navigate
  screenshot: BAP observe/screenshot (png; jpeg quality 70) · PW page.screenshot() (png; jpeg quality 70) · MCP browser_take_screenshot (png; jpeg at its default quality)
  observe N:  catalog with N interactive elements; BAP agent/observe ${JSON.stringify(OBSERVE)} · PW page.ariaSnapshot({mode: 'ai'}) · MCP browser_snapshot;
              repeated on the unchanged page (BAP may skip re-walking a page where nothing changed since its last observation)
  after load: the same, once on a page just navigated to: what an agent pays to see a new page, ${FRESH_ITERATIONS} times after 1 warm-up;
              MCP's browser_navigate already snapshots the page (into a file), so its browser_snapshot is not the page's first\n`);

const chars = (r) => r.result.toLocaleString('en-US');
console.log('Observation size in characters: BAP JSON result, PW snapshot string, MCP tool text\n');
console.log(
  table(
    ['page', 'BAP chars', 'PW chars', 'MCP chars', 'BAP/MCP chars'],
    OBSERVED.map(({ name }) => {
      const [b, p, m] = [bap, pw, mcp].map((peer) => peer[`observe ${name}`]);
      return [`${name} elements`, chars(b), chars(p), chars(m), `${(b.result / m.result).toFixed(2)}x`];
    }),
  ),
);

const versus = (op) => [bap[op].p50 / mcp[op].p50, 0.5, 'x'];
const targets = [
  ['action/click p50 ≤ 0.3× PW locator.click', bap.click.p50 / pw.click.p50, 0.3, 'x'],
  ['action/click p50 ≤ 0.05× MCP browser_click', bap.click.p50 / mcp.click.p50, 0.05, 'x'],
  ['action/fill p50 ≤ 0.5× PW locator.fill', bap.fill.p50 / pw.fill.p50, 0.5, 'x'],
  ['observe 3,003 p50 ≤ 0.5× MCP browser_snapshot: repeated', ...versus('observe 3,003')],
  ['observe 3,003 p50 ≤ 0.5× MCP browser_snapshot: after load', ...versus('observe 3,003 after load')],
  ['navigate + observe 3,003 p50 ≤ 0.5× MCP (same target, whole cost)', ...versus('navigate + observe 3,003')],
  ['observe 10,002 p50 ≤ 1 s: repeated', bap['observe 10,002'].p50, 1000, ' ms'],
  ['observe 10,002 p50 ≤ 1 s: after load', bap['observe 10,002 after load'].p50, 1000, ' ms'],
];
console.log(`\nIssue 8 targets (this run)\n`);
console.log(table(['target', 'measured', 'limit', 'met'], targets.map(([name, value, limit, unit]) => [name, `${value.toFixed(unit === 'x' ? 3 : 1)}${unit}`, `${limit}${unit}`, value <= limit ? 'yes' : 'NO'])));

const { idle, onePage, many } = memory;
const memoryRow = (name, m) => [name, mb(m.node.rss), mb(m.node.heapUsed), m.chromium.processes, mb(m.chromium.rss), mb(m.chromium.pss)];
const perContext = (pick) => (pick(many) - pick(onePage)) / MEMORY_CONTEXTS;
console.log(`\nServer memory: Node process of startServer (child process, after a full GC) and its Chromium (sum over the process tree)\n`);
console.log(
  table(['state', 'Node RSS', 'Node heap', 'Chromium procs', 'Chromium RSS', 'Chromium PSS'], [
    memoryRow('idle: 1 connection, no pages', idle),
    memoryRow('1 page (browser launched)', onePage),
    memoryRow(`+${MEMORY_CONTEXTS} contexts, 1 catalog page each`, many),
    [
      `per context (delta / ${MEMORY_CONTEXTS})`,
      mb(perContext((m) => m.node.rss)),
      mb(perContext((m) => m.node.heapUsed)),
      perContext((m) => m.chromium.processes),
      mb(perContext((m) => m.chromium.rss)),
      mb(perContext((m) => m.chromium.pss)),
    ],
  ]),
);
console.log(`
  RSS sums count pages shared between Chromium's processes once per process; PSS shares them out.
  Server options: ${JSON.stringify(SERVER_OPTIONS)} (maxContexts and screenshotsPerMinute raised for the bench).`);
