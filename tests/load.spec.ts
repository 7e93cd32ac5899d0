import type { AgentActResult, MethodParams } from '@browseragentprotocol/protocol';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startHarness, type Harness } from './support/harness.js';
import { css } from './support/observe.js';

// A bounded run of bench/load.mjs: every connection on a context of its own, flows at once.
const CONNECTIONS = 10;
const FLOWS_PER_CONNECTION = 2;

let h: Harness;

beforeAll(async () => {
  h = await startHarness({ connect: false });
});

afterAll(async () => {
  await h?.stop();
});

const DETAILS = `<!doctype html><title>Order details</title><h1>Order details</h1>
<label>Comment <input id="comment"></label> <button type="button" id="like" onclick="this.textContent = 'Liked'">Like</button>`;

const order = (detailsUrl: string) => `<!doctype html><title>Order</title><h1>Order</h1>
<form id="order">
  <label>Name <input id="name"></label> <label>Email <input id="email" type="email"></label>
  <label>Size <select id="size"><option>S</option><option>M</option><option>L</option></select></label>
  <label>Coupon <input id="coupon"></label> <label>Notes <textarea id="notes"></textarea></label>
  <label><input type="checkbox" id="terms"> I accept the terms</label>
  <output id="count" data-n="0">0</output>
  <button type="button" id="add">Add item</button> <button type="button" id="remove">Remove item</button>
  <button type="submit" id="submit" disabled>Place order</button>
</form>
<p id="coupon-status"></p><p id="done" hidden>Order placed</p>
<a href="${detailsUrl}">Order details</a>
<script>
  const count = document.getElementById('count');
  const bump = (by) => () => { count.dataset.n = count.value = Math.max(0, Number(count.dataset.n) + by); };
  document.getElementById('add').onclick = bump(1);
  document.getElementById('remove').onclick = bump(-1);
  document.getElementById('terms').onchange = (e) => { document.getElementById('submit').disabled = !e.target.checked; };
  document.getElementById('coupon').onkeydown = (e) => {
    if (e.key !== 'Enter') return;
    e.preventDefault();
    document.getElementById('coupon-status').textContent = 'Coupon applied';
  };
  document.getElementById('order').onsubmit = (e) => { e.preventDefault(); document.getElementById('done').hidden = false; };
</script>`;

type Steps = MethodParams<'agent/act'>['steps'];

function flow(orderUrl: string): Steps {
  const steps: Steps = [
    { action: 'page/navigate', params: { url: orderUrl } },
    { action: 'action/fill', params: { selector: css('#name'), value: 'Ada Lovelace' }, condition: { selector: css('#name'), state: 'visible' } },
    { action: 'action/fill', params: { selector: css('#email'), value: 'ada@example.com' } },
    { action: 'action/select', params: { selector: css('#size'), values: 'M' } },
    { action: 'action/fill', params: { selector: css('#notes'), value: 'Leave it at the door, please.' } },
    { action: 'action/check', params: { selector: css('#terms') } },
    { action: 'action/click', params: { selector: css('#add') } },
    { action: 'action/click', params: { selector: { type: 'role', role: 'button', name: 'Add item' } } },
    { action: 'action/click', params: { selector: css('#remove') } },
    { action: 'page/waitFor', params: { selector: css('#count[data-n="1"]'), state: 'attached' } },
    { action: 'action/fill', params: { selector: css('#coupon'), value: 'SAVE10' } },
    { action: 'action/press', params: { key: 'Enter', selector: css('#coupon') } },
    { action: 'page/waitFor', params: { text: 'Coupon applied' } },
    { action: 'action/click', params: { selector: css('#submit') }, condition: { selector: css('#submit'), state: 'enabled' } },
    { action: 'page/waitFor', params: { selector: css('#done'), state: 'visible' } },
    { action: 'action/click', params: { selector: { type: 'text', value: 'Order details' } } },
    { action: 'action/fill', params: { selector: css('#comment'), value: 'Thanks!' }, condition: { selector: css('#comment'), state: 'visible' } },
    { action: 'action/click', params: { selector: css('#like') } },
    { action: 'page/waitFor', params: { text: 'Liked' } },
    { action: 'page/goBack', params: {} },
  ];
  return steps.map((step, i) => ({ ...step, label: `step ${i + 1}` }));
}

/** One agent: its own connection, context and page; flows one after another; then it leaves. */
async function agent(index: number, steps: Steps): Promise<AgentActResult[]> {
  const client = await h.newClient();
  const { contextId } = await client.call('context/create', { contextId: `load-${index}` });
  const { id: pageId } = await client.call('page/create', { contextId });
  const results: AgentActResult[] = [];
  for (let n = 0; n < FLOWS_PER_CONNECTION; n++) results.push(await client.call('agent/act', { pageId, steps }));
  await client.close();
  return results;
}

it(`${CONNECTIONS} connections running 20-step agent/act flows at once: every step succeeds, and nothing stays open after they leave`, async () => {
  const detailsUrl = h.url(`inline?html=${encodeURIComponent(DETAILS)}`);
  const steps = flow(h.url(`inline?html=${encodeURIComponent(order(detailsUrl))}`));
  expect(steps).toHaveLength(20);

  const flows = (await Promise.all(Array.from({ length: CONNECTIONS }, (_, i) => agent(i, steps)))).flat();

  expect(flows).toHaveLength(CONNECTIONS * FLOWS_PER_CONNECTION);
  const failures = flows.flatMap((f) => f.results.filter((r) => !r.success).map((r) => `${r.label}: ${r.error?.message ?? 'skipped'}`));
  expect(failures).toEqual([]);
  for (const f of flows) {
    expect(f).toMatchObject({ success: true, completed: 20, total: 20 });
    expect(f.results.map((r) => r.success)).toEqual(Array(20).fill(true));
    expect(f.results[3]?.result).toEqual({ selected: ['M'] });
  }
  await expect.poll(() => h.server.stats(), { timeout: 15_000 }).toMatchObject({ connections: 0, contexts: 0, pages: 0 });
}, 120_000);
