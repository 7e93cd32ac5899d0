// Helpers the benches share: timing and quantiles, pages served from memory, Chromium launched
// with the server's own flags, Playwright MCP over stdio, a BAP server in a child process, and
// the memory of a process tree read from /proc.
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { chromium } from 'playwright-core';
import { findChromium } from '@browseragentprotocol/server-playwright';
// Not exported by the package: imported from its build so the peer runs with exactly the server's flags.
import { chromiumArgs } from '../packages/server-playwright/dist/engine/chromium.js';

export const REPO = fileURLToPath(new URL('..', import.meta.url));
export const VIEWPORT = { width: 1280, height: 720 };
export const catalogHtml = () => readFileSync(new URL('../tests/fixtures/observe-catalog.html', import.meta.url), 'utf8');

export const quantile = (values, q) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
};

/** Times with their p50, p95 and p99. */
export const stats = (times) => ({ times, p50: quantile(times, 0.5), p95: quantile(times, 0.95), p99: quantile(times, 0.99) });

/** Runs fn warmup + iterations times: the times of the last `iterations` runs, their quantiles and the last result. */
export async function sample(fn, { iterations, warmup }) {
  const times = [];
  let result;
  for (let i = 0; i < warmup + iterations; i++) {
    const start = performance.now();
    result = await fn();
    if (i >= warmup) times.push(performance.now() - start);
  }
  return { ...stats(times), result };
}

/** An HTTP server on 127.0.0.1:0 answering each path of `pages` (path → HTML) from memory. */
export async function serveHtml(pages) {
  const site = createServer((req, res) => {
    const html = pages[new URL(req.url, 'http://x').pathname];
    res.writeHead(html === undefined ? 404 : 200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
    res.end(html ?? 'not found');
  });
  await new Promise((resolve) => site.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${site.address().port}`;
  return {
    url: (path) => origin + path,
    close: () => {
      site.closeAllConnections();
      site.close();
    },
  };
}

/** In-process Chromium launched like the server launches it. */
export function launchChromium() {
  return chromium.launch({ executablePath: findChromium(), args: chromiumArgs() });
}

/** Playwright MCP over stdio, in a throwaway working directory (it writes snapshots and screenshots there). */
export async function startPlaywrightMcp() {
  const scratch = mkdtempSync(join(tmpdir(), 'bap-bench-mcp-'));
  const args = [join(REPO, 'node_modules/@playwright/mcp/cli.js'), '--headless', '--isolated', '--executable-path', findChromium(), '--viewport-size', `${VIEWPORT.width}x${VIEWPORT.height}`, '--output-dir', scratch];
  if (process.getuid?.() === 0) args.push('--no-sandbox');
  const client = new Client({ name: 'bap-bench', version: '1' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args, cwd: scratch, stderr: 'ignore' }));
  return {
    /** A tool call; a tool error (isError) throws. */
    call: async (name, args = {}) => {
      const result = await client.callTool({ name, arguments: args });
      if (result.isError) throw new Error(`${name}: ${mcpText(result)}`);
      return result;
    },
    close: async () => {
      await client.close();
      rmSync(scratch, { recursive: true, force: true });
    },
  };
}

export const mcpText = (result) => result.content.filter((c) => c.type === 'text').map((c) => c.text).join('\n');

// The child: a BAP server with these options, answering `stats`, `memory` (after a full GC if asked) and `close` over IPC.
const SERVER_CHILD = `
import { startServer } from '@browseragentprotocol/server-playwright';
const server = await startServer(JSON.parse(process.env.BAP_BENCH_SERVER_OPTIONS));
const ops = {
  stats: () => server.stats(),
  memory: (gc) => { if (gc) globalThis.gc(); const { rss, heapUsed } = process.memoryUsage(); return { rss, heapUsed }; },
  close: () => server.close(),
};
process.on('message', async ({ id, op, arg }) => process.send({ id, value: await ops[op](arg) }));
process.on('disconnect', () => process.exit(0));
process.send({ url: server.url });
`;

/**
 * `startServer(options)` in a child Node process (run with --expose-gc), so that its memory and
 * its Chromium's are measured apart from the bench's own.
 */
export async function startServerChild(options) {
  const child = spawn(process.execPath, ['--expose-gc', '--input-type=module', '-e', SERVER_CHILD], {
    cwd: REPO,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    env: { ...process.env, BAP_BENCH_SERVER_OPTIONS: JSON.stringify(options) },
  });
  const { url } = await new Promise((resolve, reject) => {
    child.once('message', resolve);
    child.once('exit', (code) => reject(new Error(`server child exited with ${code}`)));
  });
  let nextId = 1;
  const ask = (op, arg) =>
    new Promise((resolve) => {
      const id = nextId++;
      const onMessage = (message) => {
        if (message.id !== id) return;
        child.off('message', onMessage);
        resolve(message.value);
      };
      child.on('message', onMessage);
      child.send({ id, op, arg });
    });
  return {
    url,
    pid: child.pid,
    stats: () => ask('stats'),
    /**
     * Node RSS and heap of the server process (after a full GC unless `gc` is false), and the
     * summed RSS and PSS of the browser processes under it.
     */
    memory: async ({ gc = true } = {}) => ({ node: await ask('memory', gc), chromium: treeMemory(child.pid) }),
    close: async () => {
      await ask('close');
      child.disconnect();
      await new Promise((resolve) => (child.exitCode === null ? child.once('exit', resolve) : resolve()));
    },
  };
}

/** Every process below `root` (not root itself), found through the ppid of each /proc/<pid>/stat. */
function descendants(root) {
  const children = new Map();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (!children.has(ppid)) children.set(ppid, []);
      children.get(ppid).push(Number(name));
    } catch {}
  }
  const found = [];
  for (let queue = [root]; queue.length; ) {
    for (const pid of children.get(queue.shift()) ?? []) {
      found.push(pid);
      queue.push(pid);
    }
  }
  return found;
}

/** CPU time (user + system) of each process in `pids`, in ms; those gone are left out. */
function cpuTimes(pids) {
  const times = new Map();
  for (const pid of pids) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const [utime, stime] = stat.slice(stat.lastIndexOf(')') + 2).split(' ').slice(11, 13).map(Number);
      times.set(pid, ((utime + stime) * 1000) / CLOCK_TICKS);
    } catch {}
  }
  return times;
}
// USER_HZ: 100 on every Linux architecture Node runs on.
const CLOCK_TICKS = 100;

/**
 * CPU time a process tree uses from now on, in ms: `own` of root, `below` of its descendants. Call
 * sample() every so often: a process that exits keeps the time it had at the last sample.
 */
export function cpuMeter(root) {
  const read = () => cpuTimes([root, ...descendants(root)]);
  const atStart = read();
  const seen = new Map(atStart);
  return {
    sample: () => {
      for (const [pid, time] of read()) seen.set(pid, time);
    },
    used: () => {
      const used = { own: 0, below: 0 };
      for (const [pid, time] of seen) used[pid === root ? 'own' : 'below'] += time - (atStart.get(pid) ?? 0);
      return used;
    },
  };
}

/** kB of the first `field:` line of a /proc file, 0 when the process is gone. */
function procKb(path, field) {
  try {
    const line = readFileSync(path, 'utf8').split('\n').find((l) => l.startsWith(`${field}:`));
    return Number(line?.split(/\s+/)[1] ?? 0);
  } catch {
    return 0;
  }
}

/** Summed RSS (counts shared pages once per process) and PSS (shares them out) of the processes below root, in bytes. */
export function treeMemory(root) {
  const pids = descendants(root);
  const sum = (file, field) => pids.reduce((n, pid) => n + procKb(`/proc/${pid}/${file}`, field), 0) * 1024;
  return { processes: pids.length, rss: sum('status', 'VmRSS'), pss: sum('smaps_rollup', 'Pss') };
}

/** The machine, for reading numbers taken on a box others may share: cores and the 1-minute load average. */
export const machine = () => `${cpus().length} cores, load average ${loadavg()[0].toFixed(1)}, Node ${process.version}`;

export const mb = (bytes) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
export const ms = (value) => (value === undefined ? '—' : value < 10 ? value.toFixed(2) : value.toFixed(1));
export const pad = (value, width) => String(value).padStart(width);

/** A markdown table: header row, then rows, columns right-aligned but the first. */
export function table(header, rows) {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i]).length)));
  const line = (cells) => `| ${cells.map((c, i) => (i === 0 ? String(c).padEnd(widths[i]) : pad(c, widths[i]))).join(' | ')} |`;
  return [line(header), `|${widths.map((w, i) => '-'.repeat(w + 1) + (i === 0 ? '-' : ':')).join('|')}|`, ...rows.map(line)].join('\n');
}
