import { closeSync, fchmodSync, fstatSync, mkdirSync, openSync, renameSync, writeSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { AuditEntry } from '@browseragentprotocol/protocol';

export type { AuditEntry } from '@browseragentprotocol/protocol';

export interface AuditLogOptions {
  path: string;
  /** Size at which the file is rotated (default 10 MiB). A single longer line is still written whole. */
  maxBytes?: number;
  /** Rotated files kept, `path.1` (newest) to `path.N` (default 5). */
  maxFiles?: number;
  /** Told of a failure to write once, until a write succeeds again; record() itself never throws. */
  onError?: (error: Error) => void;
}

const DEFAULT_MAX_BYTES = 10 * 1024 * 1024;
const DEFAULT_MAX_FILES = 5;
/** Lines held while the disk refuses them; beyond this the oldest are dropped (and counted). */
const MAX_PENDING = 10_000;
const NEWLINE = 0x0a;

/**
 * An append-only JSON-lines file. Each line is written with one synchronous write as it is
 * recorded, so a crash loses nothing already recorded; a line that cannot be written is kept and
 * written before the next one.
 */
export class AuditLog {
  private fd: number | null;
  private size: number;
  private readonly pending: Buffer[] = [];
  private dropped = 0;
  /** The file ends in part of a line (a write that failed midway): the next write ends it first. */
  private torn = false;
  /** An error was reported and nothing has been written cleanly since. */
  private failing = false;
  private closed = false;

  private constructor(
    readonly path: string,
    private readonly maxBytes: number,
    private readonly maxFiles: number,
    private readonly onError: ((error: Error) => void) | undefined,
    fd: number,
  ) {
    this.fd = fd;
    this.size = fstatSync(fd).size;
  }

  /** Opens (creating it and its directory) or continues the log; throws when it cannot be written. */
  static open(options: AuditLogOptions): AuditLog {
    const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
    const maxFiles = options.maxFiles ?? DEFAULT_MAX_FILES;
    if (!Number.isSafeInteger(maxBytes) || maxBytes < 1) throw new Error(`Audit log maxBytes must be a positive integer, not ${maxBytes}`);
    if (!Number.isSafeInteger(maxFiles) || maxFiles < 1 || maxFiles > 1000) {
      throw new Error(`Audit log maxFiles must be an integer from 1 to 1000, not ${maxFiles}`);
    }
    const path = resolve(options.path);
    let fd: number | undefined;
    try {
      mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
      fd = openSync(path, 'a', 0o600);
      // The mode given to open only applies to a new file; a log left readable by others is tightened.
      const stat = fstatSync(fd);
      if (stat.isFile() && (stat.mode & 0o077) !== 0) fchmodSync(fd, 0o600);
      return new AuditLog(path, maxBytes, maxFiles, options.onError, fd);
    } catch (error) {
      if (fd !== undefined) closeSync(fd);
      throw new Error(`Cannot write the audit log ${path}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    }
  }

  record(entry: AuditEntry): void {
    if (this.closed) {
      this.fail(new Error(`The audit log ${this.path} is closed`));
      return;
    }
    let line: Buffer;
    try {
      line = serialize(entry);
    } catch (error) {
      // Params come off the wire as JSON, so this is a caller's bug; the entry is still logged.
      this.fail(error);
      line = serialize({ ...entry, params: '[unserializable]' });
    }
    this.pending.push(line);
    if (this.pending.length > MAX_PENDING) {
      this.pending.shift();
      this.dropped++;
    }
    this.flush();
  }

  /** Writes what is pending, if it can, and closes the file. */
  close(): void {
    if (this.closed) return;
    this.flush();
    this.closed = true;
    if (this.fd !== null) {
      try {
        closeSync(this.fd);
      } catch {}
      this.fd = null;
    }
  }

  private flush(): void {
    let clean = true;
    try {
      while (this.pending.length > 0) {
        const line = this.pending[0]!;
        this.fd ??= this.openCurrent();
        if (this.size > 0 && this.size + line.length > this.maxBytes && !this.rotate()) clean = false;
        this.append(line);
        this.pending.shift();
      }
    } catch (error) {
      this.fail(error);
      return;
    }
    if (!clean || !this.failing) return;
    this.failing = false;
    if (this.dropped > 0) {
      this.report(new Error(`${this.dropped} audit log lines were dropped while ${this.path} could not be written`));
      this.dropped = 0;
    }
  }

  private openCurrent(): number {
    const fd = openSync(this.path, 'a', 0o600);
    this.size = fstatSync(fd).size;
    return fd;
  }

  /**
   * `path.N-1` → `path.N` … `path` → `path.1`, then a fresh `path`. When a rename fails the
   * error is reported and false returned: the line then goes into the current file, not nowhere.
   */
  private rotate(): boolean {
    try {
      for (let i = this.maxFiles - 1; i >= 1; i--) renameIfPresent(`${this.path}.${i}`, `${this.path}.${i + 1}`);
      renameSync(this.path, `${this.path}.1`);
    } catch (error) {
      this.fail(error);
      return false;
    }
    try {
      closeSync(this.fd!);
    } catch {}
    this.fd = null;
    this.torn = false;
    this.fd = this.openCurrent();
    return true;
  }

  private append(line: Buffer): void {
    const data = this.torn ? Buffer.concat([Buffer.of(NEWLINE), line]) : line;
    let written = 0;
    try {
      while (written < data.length) written += writeSync(this.fd!, data, written);
    } catch (error) {
      this.size += written;
      if (written > 0) this.torn = data[written - 1] !== NEWLINE;
      throw error;
    }
    this.size += data.length;
    this.torn = false;
  }

  private fail(error: unknown): void {
    if (this.failing) return;
    this.failing = true;
    this.report(error);
  }

  /** The callback is the caller's code: what it throws must not escape record() either. */
  private report(error: unknown): void {
    try {
      this.onError?.(error instanceof Error ? error : new Error(String(error)));
    } catch {}
  }
}

function renameIfPresent(from: string, to: string): void {
  try {
    renameSync(from, to);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}

/** A fixed key order, params last (the long part), and nothing the caller added beyond the entry. */
function serialize(entry: AuditEntry): Buffer {
  const { time, client, token, session, method, step, decision, rule, approver, outcome, error, durationMs, params } = entry;
  const ordered = {
    time,
    client,
    token,
    session,
    method,
    step,
    decision,
    rule,
    approver,
    outcome,
    error: error && { code: error.code, message: error.message },
    durationMs,
    params: params === undefined ? null : params,
  };
  return Buffer.from(`${JSON.stringify(ordered)}\n`);
}
