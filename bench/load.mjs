// Load: LOAD_CONNECTIONS BAPClient connections at once, each on a context of its own, running
// 20-step agent/act flows (an order form, then a details page and back) for LOAD_SECONDS against
// a server in a child process; then the same flows, step for step, through in-process Playwright
// with as many contexts, as the peer. Prints throughput, flow latency, CPU per step, every error,
// the server's memory at baseline, at peak and after the clients are gone, and server.stats().
// Exits 1 on any BAP error or when contexts and pages are not back to 0.
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { BAPClient } from '@browseragentprotocol/client';
import { cpuMeter, launchChromium, machine, mb, ms, quantile, serveHtml, startServerChild, table, VIEWPORT } from './lib.mjs';

const CONNECTIONS = Number(process.env.LOAD_CONNECTIONS ?? 50);
const SECONDS = Number(process.env.LOAD_SECONDS ?? 30);
const RAMP_SECONDS = Number(process.env.LOAD_RAMP_SECONDS ?? 10);
const SETTLE_MS = 10_000;

// The flow and its pages are the bounded load test's (tests/load.spec.ts): tests/fixtures/load-*.
const fixture = (name) => readFileSync(new URL(`../tests/fixtures/${name}`, import.meta.url), 'utf8');
const site = await serveHtml({ '/load-order.html': fixture('load-order.html'), '/load-details.html': fixture('load-details.html') });
const STEPS = JSON.parse(fixture('load-flow.json')).steps.map((step) =>
  step.action === 'page/navigate' ? { ...step, params: { url: site.url(`/${step.params.url}`) } } : step,
);

// Raised for the run: every client is on 127.0.0.1, and the default allows 32 connections per address;
// on 2 cores, 50 browsers at once make a step wait for CPU far beyond the 10 s default, so actions may wait a minute.
const ACTION_TIMEOUT_MS = 60_000;
const SERVER_OPTIONS = { port: 0, logger: false, maxConnectionsPerIp: CONNECTIONS + 8, actionTimeout: ACTION_TIMEOUT_MS };
const firstLine = (error) => String(error?.message ?? error).split('\n')[0];

/** A BAP agent: its own connection, context and page; a flow is one agent/act call. */
async function bapAgent(url, index) {
  const client = new BAPClient(url, { requestTimeout: 180_000 });
  await client.connect();
  const { contextId } = await client.call('context/create', { contextId: `agent-${index}` });
  const { id: pageId } = await client.call('page/create', { contextId });
  return {
    flow: async () => {
      const result = await client.call('agent/act', { pageId, steps: STEPS });
      const failed = result.results.find((r) => !r.success && !r.skipped) ?? result.results.find((r) => !r.success);
      const ok = result.success && !failed && result.completed === STEPS.length;
      const failure = `${failed?.label} (${failed?.action}) failed, ${STEPS.length - result.completed} steps not done: ${firstLine(failed?.error?.message ?? 'no error given')}`;
      return { stepMs: result.results.map((r) => r.duration), ...(ok ? {} : { failure }) };
    },
    close: () => client.close(),
  };
}

/** The peer: a Playwright context and page, the same steps as Playwright calls, with the same timeouts. */
async function playwrightAgent(browser) {
  const context = await browser.newContext({ viewport: VIEWPORT });
  context.setDefaultTimeout(ACTION_TIMEOUT_MS);
  context.setDefaultNavigationTimeout(30_000);
  const page = await context.newPage();
  const locate = (s) => (s.type === 'css' ? page.locator(s.value) : s.type === 'role' ? page.getByRole(s.role, { name: s.name }) : page.getByText(s.value));
  const run = ({ action, params: p, condition }) => {
    if (condition) {
      const target = locate(condition.selector);
      const met = condition.state === 'enabled' ? target.and(page.locator(':enabled')).waitFor() : target.waitFor({ state: condition.state });
      return met.then(() => run({ action, params: p }));
    }
    if (action === 'page/navigate') return page.goto(p.url);
    if (action === 'page/goBack') return page.goBack();
    if (action === 'page/waitFor') return p.text ? page.getByText(p.text).waitFor() : locate(p.selector).waitFor({ state: p.state });
    const target = locate(p.selector);
    return { 'action/fill': () => target.fill(p.value), 'action/select': () => target.selectOption(p.values), 'action/check': () => target.check(), 'action/click': () => target.click(), 'action/press': () => target.press(p.key) }[action]();
  };
  return {
    flow: async () => {
      const stepMs = [];
      for (const step of STEPS) {
        const start = performance.now();
        try {
          await run(step);
        } catch (error) {
          return { stepMs, failure: `${step.label} (${step.action}) failed: ${firstLine(error)}` };
        }
        stepMs.push(performance.now() - start);
      }
      return { stepMs };
    },
    close: () => context.close(),
  };
}

/**
 * CONNECTIONS agents opened over the ramp, each running flows until the deadline (at least one),
 * then closed; `sample` runs each second. Failed flows are errors, and so are failed calls.
 */
async function load(open, sample) {
  const run = { flows: [], errors: [], setup: [] };
  const sampler = setInterval(sample, 1_000);
  const start = performance.now();
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async (_, i) => {
      await new Promise((resolve) => setTimeout(resolve, (RAMP_SECONDS * 1_000 * i) / CONNECTIONS));
      let agent;
      try {
        const opening = performance.now();
        agent = await open(i);
        run.setup.push(performance.now() - opening);
        for (let n = 0; n === 0 || performance.now() < start + SECONDS * 1_000; n++) {
          const begun = performance.now();
          const { stepMs, failure } = await agent.flow();
          if (failure) run.errors.push(failure);
          else run.flows.push({ ms: performance.now() - begun, stepMs });
        }
      } catch (error) {
        run.errors.push(firstLine(error));
      } finally {
        await agent?.close().catch((error) => run.errors.push(`close: ${firstLine(error)}`));
      }
    }),
  );
  run.elapsed = (performance.now() - start) / 1_000;
  clearInterval(sampler);
  await sample();
  return run;
}

/** Polls until no connection, context or page is left and Chromium is down to `baseline`'s processes, up to SETTLE_MS. */
async function settled(server, baseline) {
  const until = performance.now() + SETTLE_MS;
  let stats;
  do {
    await new Promise((resolve) => setTimeout(resolve, 500));
    stats = await server.stats();
    const gone = stats.contexts === 0 && stats.pages === 0 && stats.connections === 0;
    if (gone && (!baseline || (await server.memory()).chromium.processes <= baseline.chromium.processes)) break;
  } while (performance.now() < until);
  return { stats, memory: await server.memory() };
}

const machineAtStart = machine();
const server = await startServerChild(SERVER_OPTIONS);
// Warm-up: one flow launches the browser, which stays up between sessions; baseline is that state.
const warmUp = await bapAgent(server.url, 'warm-up');
const warmUpFailure = (await warmUp.flow()).failure;
await warmUp.close();
const baseline = (await settled(server)).memory;
let peak = baseline;
const total = (m) => m.node.rss + m.chromium.pss;
const serverCpu = cpuMeter(server.pid);
const clientCpu = process.cpuUsage();
const bap = await load(
  (i) => bapAgent(server.url, i),
  async () => {
    serverCpu.sample();
    const now = await server.memory({ gc: false });
    if (total(now) > total(peak)) peak = now;
  },
);
const { user, system } = process.cpuUsage(clientCpu);
bap.cpu = { node: serverCpu.used().own, chromium: serverCpu.used().below, clients: (user + system) / 1_000 };
if (warmUpFailure) bap.errors.push(`warm-up: ${warmUpFailure}`);
const after = await settled(server, baseline);
await server.close();

const browser = await launchChromium();
const peerWarmUp = await playwrightAgent(browser);
await peerWarmUp.flow();
await peerWarmUp.close();
const peerCpu = cpuMeter(process.pid);
const pw = await load(() => playwrightAgent(browser), () => peerCpu.sample());
pw.cpu = { node: peerCpu.used().own, chromium: peerCpu.used().below };
await browser.close();
site.close();

const steps = (run) => run.flows.length * STEPS.length;
console.log(`\nLoad: ${CONNECTIONS} connections (started over ${RAMP_SECONDS} s), each with its own context and page, ${STEPS.length}-step flows for ${SECONDS} s`);
console.log(`Machine at start: ${machineAtStart}; at end: ${machine()} (the runs' own Chromium processes count in it)`);
console.log(`BAP: agent/act over WebSocket to a server in a child process with ${JSON.stringify(SERVER_OPTIONS)} (maxConnectionsPerIp: connections + 8; its default, 32, would refuse the rest)`);
console.log(`PW: the same steps as in-process Playwright calls, one context each, after the BAP run; the same timeouts (actions ${ACTION_TIMEOUT_MS / 1000} s, navigations 30 s)\n`);
console.log(
  table(['peer', 'flows ok', 'failed', 'steps', 'wall s', 'steps/s', 'flow p50 ms', 'flow p95 ms', 'flow p99 ms', 'setup p50 ms'], [bap, pw].map((run, i) => {
    const latencies = run.flows.map((f) => f.ms);
    const q = (p) => ms(quantile(latencies, p));
    return [i ? 'PW' : 'BAP', run.flows.length, run.errors.length, steps(run), run.elapsed.toFixed(1), (steps(run) / run.elapsed).toFixed(1), q(0.5), q(0.95), q(0.99), ms(quantile(run.setup, 0.5))];
  })),
);
for (const [name, run] of [['BAP', bap], ['PW', pw]]) {
  const slowest = STEPS.map((step, i) => [step, quantile(run.flows.map((f) => f.stepMs[i]), 0.5)]).sort((a, b) => b[1] - a[1]).slice(0, 5);
  console.log(`\n${name} slowest steps of completed flows (p50 ms): ${slowest.map(([step, t]) => `${step.label} ${step.action} ${ms(t)}`).join(' · ')}`);
}
console.log(`\nCPU time during each run, ms per completed step (Node: BAP's server process; PW's bench process, its client)\n`);
console.log(
  table(['peer', 'Node', 'Chromium', 'bench clients', 'total', 'cores busy (avg)'], [bap, pw].map((run, i) => {
    const all = run.cpu.node + run.cpu.chromium + (run.cpu.clients ?? 0);
    const per = (t) => (t / steps(run)).toFixed(1);
    return [i ? 'PW' : 'BAP', per(run.cpu.node), per(run.cpu.chromium), run.cpu.clients === undefined ? '—' : per(run.cpu.clients), per(all), (all / 1_000 / run.elapsed).toFixed(2)];
  })),
);
const memoryRow = (name, m) => [name, mb(m.node.rss), mb(m.node.heapUsed), m.chromium.processes, mb(m.chromium.rss), mb(m.chromium.pss)];
const signed = (d) => `${d < 0 ? '−' : '+'}${mb(Math.abs(d))}`;
console.log(`\nBAP server memory (Node: the startServer process, after a full GC except at peak; Chromium: sum over its process tree)\n`);
console.log(
  table(['state', 'Node RSS', 'Node heap', 'Chromium procs', 'Chromium RSS', 'Chromium PSS'], [
    memoryRow('baseline: browser up, no contexts', baseline),
    memoryRow('peak (sampled each second, by Node RSS + Chromium PSS)', peak),
    memoryRow('after disconnect', after.memory),
    ['after − baseline', signed(after.memory.node.rss - baseline.node.rss), signed(after.memory.node.heapUsed - baseline.node.heapUsed),
      after.memory.chromium.processes - baseline.chromium.processes, signed(after.memory.chromium.rss - baseline.chromium.rss), signed(after.memory.chromium.pss - baseline.chromium.pss)],
  ]),
);
console.log(`\nBAP server.stats() after disconnect: ${JSON.stringify(after.stats)}`);
for (const [name, run] of [['BAP', bap], ['PW', pw]]) {
  if (!run.errors.length) continue;
  const counts = new Map();
  for (const e of run.errors) counts.set(e, (counts.get(e) ?? 0) + 1);
  console.log(`\n${name} errors (failed flows and calls, by message):\n${[...counts].map(([e, n]) => `  ${n} × ${e}`).join('\n')}`);
}
const leaked = after.stats.contexts !== 0 || after.stats.pages !== 0;
if (leaked) console.log('\nContexts or pages were still open after every client disconnected.');
process.exitCode = bap.errors.length || leaked ? 1 : 0;
