import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AuditLog, type AuditEntry } from '../packages/server-playwright/src/security/audit.js';

let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'bap-audit-'));
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

function entry(overrides: Partial<AuditEntry> = {}): AuditEntry {
  return {
    time: '2025-03-01T12:00:00.000Z',
    client: '127.0.0.1',
    token: 'ci-agent',
    session: 's-1',
    method: 'action/click',
    params: { selector: { type: 'ref', ref: '@e5' } },
    decision: 'allowed',
    outcome: 'ok',
    durationMs: 12,
    ...overrides,
  };
}

function lines(file: string): Record<string, unknown>[] {
  const text = readFileSync(file, 'utf8');
  expect(text.endsWith('\n')).toBe(true);
  return text.slice(0, -1).split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
}

const mode = (file: string) => statSync(file).mode & 0o777;

describe('AuditLog', () => {
  it('writes one JSON object per line with every field, in a fixed order, params last', () => {
    const path = join(dir, 'nested', 'audit.log');
    const log = AuditLog.open({ path });
    const full = entry({
      step: 2,
      decision: 'denied',
      rule: 'payments',
      approver: 'alice',
      outcome: 'error',
      error: { code: -32031, message: 'Denied by alice' },
      durationMs: 2500,
    });
    log.record(full);
    log.record({ ...entry({ session: null, method: 'initialize', params: undefined }), extra: 'not part of an entry' } as AuditEntry);
    log.close();

    const [first, second] = lines(path);
    expect(Object.keys(first!)).toEqual(['time', 'client', 'token', 'session', 'method', 'step', 'decision', 'rule', 'approver', 'outcome', 'error', 'durationMs', 'params']);
    expect(first).toEqual(full);
    expect(second).toEqual({ ...entry({ session: null, method: 'initialize' }), params: null });
  });

  it('creates the file with mode 0600 and tightens an existing one', () => {
    const fresh = join(dir, 'fresh.log');
    AuditLog.open({ path: fresh }).close();
    expect(mode(fresh)).toBe(0o600);

    const loose = join(dir, 'loose.log');
    writeFileSync(loose, '');
    chmodSync(loose, 0o644);
    AuditLog.open({ path: loose }).close();
    expect(mode(loose)).toBe(0o600);
  });

  it('rotates at the size limit without losing or splitting a line', () => {
    const path = join(dir, 'audit.log');
    const maxBytes = 2_000;
    const log = AuditLog.open({ path, maxBytes, maxFiles: 100 });
    const total = 300;
    for (let i = 0; i < total; i++) log.record(entry({ step: i, params: { text: 'x'.repeat(i % 50) } }));
    log.close();

    const files = [...Array.from({ length: 100 }, (_, i) => `${path}.${100 - i}`).filter(existsSync), path];
    expect(files.length).toBeGreaterThan(10);
    expect(existsSync(`${path}.101`)).toBe(false);
    for (const file of files) {
      expect(statSync(file).size).toBeLessThanOrEqual(maxBytes);
      expect(mode(file)).toBe(0o600);
    }
    // Oldest file first, every step once, in order.
    expect(files.flatMap(lines).map((line) => line.step)).toEqual(Array.from({ length: total }, (_, i) => i));
  });

  it('keeps maxFiles rotated files, the newest lines, and drops the older ones', () => {
    const path = join(dir, 'audit.log');
    const log = AuditLog.open({ path, maxBytes: 1_000, maxFiles: 3 });
    const total = 200;
    for (let i = 0; i < total; i++) log.record(entry({ step: i }));
    log.close();

    expect([1, 2, 3].map((n) => existsSync(`${path}.${n}`))).toEqual([true, true, true]);
    expect(existsSync(`${path}.4`)).toBe(false);
    const steps = [`${path}.3`, `${path}.2`, `${path}.1`, path].flatMap(lines).map((line) => line.step as number);
    expect(steps.at(-1)).toBe(total - 1);
    expect(steps).toEqual(Array.from({ length: steps.length }, (_, i) => total - steps.length + i));
  });

  it('continues an existing file and counts its size toward the limit', () => {
    const path = join(dir, 'audit.log');
    const line = `${JSON.stringify(entry())}\n`;
    writeFileSync(path, line.repeat(3));
    const log = AuditLog.open({ path, maxBytes: line.length * 4 });
    log.record(entry());
    expect(lines(path)).toHaveLength(4);
    log.record(entry());
    log.close();
    expect(lines(`${path}.1`)).toHaveLength(4);
    expect(lines(path)).toHaveLength(1);
  });

  it('writes a line longer than maxBytes whole, in a file of its own', () => {
    const path = join(dir, 'audit.log');
    const log = AuditLog.open({ path, maxBytes: 100 });
    log.record(entry({ step: 0 }));
    log.record(entry({ step: 1, params: { text: 'x'.repeat(500) } }));
    log.record(entry({ step: 2 }));
    log.close();
    expect([`${path}.2`, `${path}.1`, path].map((file) => lines(file).map((l) => l.step))).toEqual([[0], [1], [2]]);
  });

  it('refuses an unwritable path with a clear error', () => {
    const file = join(dir, 'plain-file');
    writeFileSync(file, '');
    expect(() => AuditLog.open({ path: join(file, 'audit.log') })).toThrow(/^Cannot write the audit log .*plain-file\/audit\.log: .*(ENOTDIR|EEXIST)/);
    expect(() => AuditLog.open({ path: dir })).toThrow(/^Cannot write the audit log .*EISDIR/);
    expect(() => AuditLog.open({ path: join(dir, 'a.log'), maxBytes: 0 })).toThrow('maxBytes must be a positive integer');
    expect(() => AuditLog.open({ path: join(dir, 'a.log'), maxFiles: 0 })).toThrow('maxFiles must be an integer from 1 to 1000');
  });

  it('never throws on a failed write: reports it once and keeps the line for later', () => {
    const path = join(dir, 'full.log');
    symlinkSync('/dev/full', path);
    const errors: Error[] = [];
    const log = AuditLog.open({ path, onError: (error) => errors.push(error) });
    expect(() => {
      log.record(entry());
      log.record(entry());
      log.record(entry());
    }).not.toThrow();
    log.close();
    expect(errors.map((error) => (error as NodeJS.ErrnoException).code)).toEqual(['ENOSPC']);
  });

  it('when rotation fails, reports once, writes into the current file, and rotates once it can', () => {
    const path = join(dir, 'audit.log');
    mkdirSync(`${path}.1`);
    writeFileSync(join(`${path}.1`, 'in-the-way'), '');
    const errors: Error[] = [];
    const log = AuditLog.open({ path, maxBytes: 300, maxFiles: 1, onError: (error) => errors.push(error) });
    for (let i = 0; i < 5; i++) log.record(entry({ step: i }));
    expect(errors).toHaveLength(1);
    expect(lines(path).map((line) => line.step)).toEqual([0, 1, 2, 3, 4]);

    rmSync(`${path}.1`, { recursive: true });
    log.record(entry({ step: 5 }));
    expect(lines(`${path}.1`).map((line) => line.step)).toEqual([0, 1, 2, 3, 4]);
    log.record(entry({ step: 6 }));
    log.close();
    expect(errors).toHaveLength(1);
    expect([`${path}.1`, path].flatMap(lines).map((line) => line.step)).toEqual([5, 6]);
  });

  it('reports a record after close instead of throwing', () => {
    const errors: Error[] = [];
    const log = AuditLog.open({ path: join(dir, 'audit.log'), onError: (error) => errors.push(error) });
    log.close();
    expect(() => log.record(entry())).not.toThrow();
    expect(errors[0]?.message).toMatch(/is closed/);
  });
});
