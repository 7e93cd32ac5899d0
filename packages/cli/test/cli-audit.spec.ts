import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { appendFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AuditLog, type AuditEntry } from '../../server-playwright/src/security/audit.js';
import { BIN, runCli } from './runCli.js';

const MINUTE = 60_000;
const docs = readFileSync(new URL('../../../docs/audit.md', import.meta.url), 'utf8');

let dir: string;
let path: string;
/** What the log holds, oldest first: entry i was written 30 - i minutes ago. */
let written: AuditEntry[];

function entry(i: number, fields: Partial<AuditEntry>): AuditEntry {
  return {
    time: new Date(Date.now() - (30 - i) * MINUTE).toISOString(),
    client: '127.0.0.1',
    token: 'ci-agent',
    session: 'session-1',
    method: 'page/navigate',
    params: { url: `https://example.com/${i}` },
    decision: 'allowed',
    outcome: 'ok',
    durationMs: 10 + i,
    ...fields,
  };
}

const FIXTURE: Partial<AuditEntry>[] = [
  { token: 'local', session: null, method: 'initialize' },
  { method: 'page/navigate' },
  { method: 'action/click' },
  { method: 'action/fill', decision: 'denied', rule: 'payments', approver: 'alice', outcome: 'error', error: { code: -32030, message: 'Denied by alice' } },
  { token: 'ops', method: 'agent/act' },
  { token: 'ops', method: 'action/click', step: 0, decision: 'flagged', rule: 'checkout' },
  { token: 'ops', method: 'action/type', step: 1, decision: 'timeout', outcome: 'error', error: { code: -32031, message: 'No decision within 60000 ms' } },
  { method: 'observe/screenshot', decision: 'limited', outcome: 'error', error: { code: -32024, message: 'Rate limit' } },
  { method: 'page/navigate', decision: 'refused', outcome: 'error', error: { code: -32041, message: 'Domain not allowed' } },
  { method: 'action/scroll' },
  { method: 'observe/ariaSnapshot', outcome: 'error', error: { code: -32012, message: 'Element not found' } },
  { token: 'local', method: 'page/close' },
];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'bap-cli-audit-'));
  path = join(dir, 'audit.log');
  written = FIXTURE.map((fields, i) => entry(i, fields));
  // Small files, so the entries are spread over rotated files and the current one.
  const log = AuditLog.open({ path, maxBytes: 800, maxFiles: 20 });
  for (const e of written) log.record(e);
  log.close();
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** The method[#step] column of each printed line. */
function methods(stdout: string): string[] {
  return stdout.trimEnd().split('\n').filter(Boolean).map((line) => line.split(/\s+/)[2]!);
}

const rotatedCount = () => readdirSync(dir).filter((name) => /^audit\.log\.\d+$/.test(name)).length;
const label = (e: AuditEntry) => (e.step === undefined ? e.method : `${e.method}#${e.step}`);

describe('bap audit', () => {
  it('prints every entry, rotated files oldest first, one readable line each', async () => {
    expect(existsSync(`${path}.2`)).toBe(true);
    const { code, stdout, stderr } = await runCli(['audit', path]);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(methods(stdout)).toEqual(written.map(label));
    const denied = stdout.split('\n')[3]!;
    expect(denied).toBe(`${written[3]!.time}  ci-agent      action/fill               denied    error      13ms  -32030`);
    expect(stdout.split('\n')[5]).toBe(`${written[5]!.time}  ops           action/click#0            flagged   ok         15ms`);
  });

  it('reads $BAP_AUDIT_LOG when no file is named', async () => {
    process.env.BAP_AUDIT_LOG = path;
    try {
      const { code, stdout } = await runCli(['audit', '--limit', '1']);
      expect(code).toBe(0);
      expect(methods(stdout)).toEqual(['page/close']);
    } finally {
      delete process.env.BAP_AUDIT_LOG;
    }
  });

  it('filters by method glob, token, decision, outcome, and all at once', async () => {
    const byMethod = await runCli(['audit', path, '--method', 'action/*']);
    expect(methods(byMethod.stdout)).toEqual(['action/click', 'action/fill', 'action/click#0', 'action/type#1', 'action/scroll']);
    expect(methods((await runCli(['audit', path, '--method', `observe/${'?'.repeat(12)}`])).stdout)).toEqual(['observe/ariaSnapshot']);

    expect(methods((await runCli(['audit', path, '--token', 'ops'])).stdout)).toEqual(['agent/act', 'action/click#0', 'action/type#1']);

    const decisions = await runCli(['audit', path, '--decision', 'denied,timeout', '--decision', 'limited']);
    expect(methods(decisions.stdout)).toEqual(['action/fill', 'action/type#1', 'observe/screenshot']);

    const errors = await runCli(['audit', path, '--outcome', 'error']);
    expect(methods(errors.stdout)).toEqual(written.filter((e) => e.outcome === 'error').map(label));

    const all = await runCli(['audit', path, '--method', 'action/*', '--token', 'ops', '--outcome', 'error', '--decision', 'timeout']);
    expect(methods(all.stdout)).toEqual(['action/type#1']);
  });

  it('--limit keeps the last n matching entries', async () => {
    expect(methods((await runCli(['audit', path, '--limit', '3'])).stdout)).toEqual(['action/scroll', 'observe/ariaSnapshot', 'page/close']);
    expect(methods((await runCli(['audit', path, '--limit', '2', '--outcome', 'error'])).stdout)).toEqual(['page/navigate', 'observe/ariaSnapshot']);
    expect(methods((await runCli(['audit', path, '--limit', '100'])).stdout)).toHaveLength(written.length);
  });

  it('--since takes a duration or an ISO date', async () => {
    // Entry i was 30 - i minutes old when written: 26m reaches back to entry 5, not to entry 4.
    const recent = await runCli(['audit', path, '--since', '26m']);
    expect(methods(recent.stdout)).toEqual(written.slice(5).map(label));
    expect((await runCli(['audit', path, '--since', '1d'])).stdout.trimEnd().split('\n')).toHaveLength(written.length);
    expect((await runCli(['audit', path, '--since', '30s'])).stdout).toBe('');

    const fromIso = await runCli(['audit', path, '--since', written[9]!.time]);
    expect(methods(fromIso.stdout)).toEqual(['action/scroll', 'observe/ariaSnapshot', 'page/close']);
  });

  it('--json prints the matching lines as written', async () => {
    const { code, stdout } = await runCli(['audit', path, '--json', '--token', 'ops']);
    expect(code).toBe(0);
    const files = [`${path}.3`, `${path}.2`, `${path}.1`, path].filter(existsSync);
    const fileLines = files.flatMap((file) => readFileSync(file, 'utf8').trimEnd().split('\n'));
    expect(stdout.trimEnd().split('\n')).toEqual(fileLines.filter((line) => (JSON.parse(line) as AuditEntry).token === 'ops'));
    expect(stdout.trimEnd().split('\n').map((line) => JSON.parse(line) as AuditEntry)).toEqual(written.filter((e) => e.token === 'ops'));
  });

  it('skips malformed lines and counts them on stderr', async () => {
    appendFileSync(path, 'not json\n{"time":"2025-03-01T00:00:00Z"}\n\n[1,2]\n');
    appendFileSync(path, `${JSON.stringify(entry(29, { method: 'page/reload' }))}\n{"time":"2025-03-01T00:0`);
    const { code, stdout, stderr } = await runCli(['audit', path, '--limit', '2']);
    expect(code).toBe(0);
    expect(methods(stdout)).toEqual(['page/close', 'page/reload']);
    expect(stderr).toBe('bap audit: skipped 4 malformed lines\n');
  });

  it.each([
    [['--since', 'yesterday'], "option '--since <when>' argument 'yesterday' is invalid. expected an ISO 8601 date"],
    [['--limit', '-1'], "option '--limit <n>' argument '-1' is invalid. expected an integer from 1"],
    [['--limit', '0'], 'expected an integer from 1'],
    [['--decision', 'allowed,maybe'], '"maybe" is not one of allowed, refused, approved, denied, timeout, flagged, limited'],
    [['--outcome', 'fine'], "argument 'fine' is invalid. Allowed choices are ok, error"],
    [['--bogus'], "unknown option '--bogus'"],
  ])('rejects %j with a clear error and exit code 2', async (args, message) => {
    const { code, stdout, stderr } = await runCli(['audit', path, ...args]);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toMatch(/^error: /);
    expect(stderr).toContain(message);
  });

  it('exits 1 when there is no log', async () => {
    const { code, stderr } = await runCli(['audit', join(dir, 'missing.log')]);
    expect(code).toBe(1);
    expect(stderr).toMatch(/^bap audit: no audit log at .*missing\.log/);
  });

  it('--follow prints appended lines, across a rotation, until killed', async () => {
    const child = spawn(process.execPath, [BIN, 'audit', path, '--follow', '--limit', '1', '--method', 'page/*'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const printed = (count: number) =>
      new Promise<void>((resolve, reject) => {
        const check = () => methods(stdout).length >= count && resolve();
        child.stdout.on('data', check);
        check();
        child.once('exit', (code) => reject(new Error(`exited with ${code}: ${stderr}`)));
      });
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    await printed(1);
    expect(methods(stdout)).toEqual(['page/close']);

    const rotatedBefore = rotatedCount();
    const log = AuditLog.open({ path, maxBytes: 800, maxFiles: 20 });
    // Each of these fills most of a file, so each one rotates; the next waits until it is printed.
    for (let i = 0; i < 4; i++) {
      log.record(entry(30 + i, { method: 'page/goBack', params: { text: 'x'.repeat(400) } }));
      await printed(2 + i);
    }
    log.record(entry(34, { method: 'action/click' }));
    appendFileSync(path, 'not json\n');
    log.record(entry(35, { method: 'page/reload' }));
    log.close();
    await printed(6);
    expect(methods(stdout)).toEqual(['page/close', 'page/goBack', 'page/goBack', 'page/goBack', 'page/goBack', 'page/reload']);
    expect(rotatedCount()).toBeGreaterThanOrEqual(rotatedBefore + 4);

    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    const [code] = await exited;
    expect(code).toBe(0);
    expect(stderr).toBe('bap audit: skipped 1 malformed line\n');
  });

  it('writes and prints the example in docs/audit.md as documented', async () => {
    const line = /```json\n(.*)\n```/.exec(docs)![1]!;
    const printed = /```text\n(.*)\n```/.exec(docs)![1]!;
    const example = join(dir, 'example.log');
    const log = AuditLog.open({ path: example });
    log.record(JSON.parse(line) as AuditEntry);
    log.close();
    expect(readFileSync(example, 'utf8')).toBe(`${line}\n`);
    const { code, stdout } = await runCli(['audit', example]);
    expect(code).toBe(0);
    expect(stdout).toBe(`${printed}\n`);
  });
});
