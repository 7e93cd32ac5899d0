// Protocol overhead: the same calls through BAPClient over WebSocket and through Playwright
// in-process, in one run on the same local page. Prints p50/p95 and the difference. Each side
// runs its calls in a block of its own: interleaving two browsers skews their animation-frame
// phase, which is most of a click's time.
import { BAPClient } from '@browseragentprotocol/client';
import { startServer } from '@browseragentprotocol/server-playwright';
import { launchChromium, quantile, sample, serveHtml, VIEWPORT } from './lib.mjs';

const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 60);
const WARMUP = 5;

const PAGE = `<!doctype html><title>Bench</title>
<form onsubmit="return false"><label>Name <input id="name"></label>
<button id="go" type="button" onclick="this.dataset.n = (+this.dataset.n || 0) + 1">Go</button></form>
<ul>${Array.from({ length: 50 }, (_, i) => `<li><a href="#i${i}">Item ${i}</a> <button>Buy ${i}</button></li>`).join('')}</ul>`;

const fixture = await serveHtml({ '/': PAGE });
const url = fixture.url('/');

const server = await startServer({ port: 0, logger: false });
const client = new BAPClient(server.url);
await client.connect();

const browser = await launchChromium();
const page = await (await browser.newContext({ viewport: VIEWPORT })).newPage();

const css = (value) => ({ type: 'css', value });
const ops = {
  navigate: [() => client.call('page/navigate', { url }), () => page.goto(url)],
  click: [() => client.call('action/click', { selector: css('#go') }), () => page.locator('#go').click()],
  fill: [() => client.call('action/fill', { selector: css('#name'), value: 'Ada Lovelace' }), () => page.locator('#name').fill('Ada Lovelace')],
  ariaSnapshot: [() => client.call('observe/ariaSnapshot', {}), () => page.ariaSnapshot({ mode: 'ai' })],
};

const times = async (fn) => (await sample(fn, { iterations: ITERATIONS, warmup: WARMUP })).times;

await ops.navigate[0]();
await ops.navigate[1]();
const rows = [];
for (const [name, [viaBap, inProcess]] of Object.entries(ops)) {
  rows.push({ name, bap: await times(viaBap), pw: await times(inProcess) });
}

const fmt = (n) => n.toFixed(2).padStart(8);
console.log(`\nBAP over WebSocket vs Playwright in-process (${ITERATIONS} iterations each, ms)\n`);
console.log('| operation    | BAP p50 | BAP p95 | PW p50  | PW p95  | overhead p50 | ratio p50 |');
console.log('|--------------|---------|---------|---------|---------|--------------|-----------|');
for (const { name, bap, pw } of rows) {
  const b50 = quantile(bap, 0.5);
  const p50 = quantile(pw, 0.5);
  console.log(
    `| ${name.padEnd(12)} |${fmt(b50)} |${fmt(quantile(bap, 0.95))} |${fmt(p50)} |${fmt(quantile(pw, 0.95))} | ${fmt(b50 - p50)}     | ${(b50 / p50).toFixed(2).padStart(8)}x |`,
  );
}

await client.close();
await browser.close();
await server.close();
fixture.close();
