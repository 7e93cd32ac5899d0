import { readFileSync } from 'node:fs';
import type { AgentActResult, MethodParams } from '@browseragentprotocol/protocol';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startHarness, type Harness } from './support/harness.js';

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

type Steps = MethodParams<'agent/act'>['steps'];

/** The flow bench/load.mjs runs, on the same pages: its navigate step's url is relative to the fixtures. */
function flow(): Steps {
  const { steps } = JSON.parse(readFileSync(new URL('./fixtures/load-flow.json', import.meta.url), 'utf8')) as { steps: Steps };
  return steps.map((step) => (step.action === 'page/navigate' ? { ...step, params: { url: h.url((step.params as { url: string }).url) } } : step));
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
  const steps = flow();
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
