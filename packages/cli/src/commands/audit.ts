import { closeSync, fstatSync, openSync, readdirSync, readSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { InvalidArgumentError, Option, type Command } from 'commander';
import { AuditEntrySchema, type AuditEntry } from '@browseragentprotocol/protocol';
import { errorMessage, integerIn } from '../options.js';

interface AuditFlags {
  method?: string;
  token?: string;
  decision?: string[];
  outcome?: 'ok' | 'error';
  since?: number;
  limit?: number;
  follow?: boolean;
  json?: boolean;
}

const DECISIONS = ['allowed', 'refused', 'approved', 'denied', 'timeout', 'flagged', 'limited'];
const UNIT_MS = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
const ISO_DATE = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/i;
const POLL_MS = 250;
const CHUNK_BYTES = 64 * 1024;

function sinceTime(value: string): number {
  const duration = /^(\d+)([smhd])$/.exec(value.trim());
  if (duration) return Date.now() - Number(duration[1]) * UNIT_MS[duration[2] as keyof typeof UNIT_MS];
  const time = ISO_DATE.test(value.trim()) ? Date.parse(value) : NaN;
  if (Number.isNaN(time)) throw new InvalidArgumentError('expected an ISO 8601 date (2025-03-01, 2025-03-01T12:00:00Z) or a duration such as 30s, 15m, 2h, 1d');
  return time;
}

function decisionList(value: string, previous: string[] = []): string[] {
  const names = value.split(',').map((name) => name.trim());
  const unknown = names.find((name) => !DECISIONS.includes(name));
  if (unknown !== undefined) throw new InvalidArgumentError(`"${unknown}" is not one of ${DECISIONS.join(', ')}`);
  return [...previous, ...names];
}

/** `action/*` → /^action\/.*$/: `*` is any run of characters, `?` one. */
function globPattern(glob: string): RegExp {
  const source = glob.replace(/[.+^${}()|[\]\\/]/g, '\\$&').replaceAll('*', '.*').replaceAll('?', '.');
  return new RegExp(`^${source}$`);
}

/** The parsed entry, or null when the line is not one the server could have written. */
function parseLine(text: string): AuditEntry | null {
  try {
    const parsed = AuditEntrySchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

function matcher(flags: AuditFlags): (entry: AuditEntry) => boolean {
  const method = flags.method === undefined ? null : globPattern(flags.method);
  return (e) =>
    (method === null || method.test(e.method)) &&
    (flags.token === undefined || e.token === flags.token) &&
    (flags.decision === undefined || flags.decision.includes(e.decision)) &&
    (flags.outcome === undefined || e.outcome === flags.outcome) &&
    (flags.since === undefined || Date.parse(e.time) >= flags.since);
}

/** `time  token  method[#step]  decision  outcome  durationMs  error-code` */
function formatEntry(e: AuditEntry): string {
  const method = e.step === undefined ? e.method : `${e.method}#${e.step}`;
  const code = typeof e.error?.code === 'number' ? String(e.error.code) : '';
  return [e.time, e.token.padEnd(12), method.padEnd(24), e.decision.padEnd(8), e.outcome.padEnd(5), `${e.durationMs}ms`.padStart(8), code]
    .join('  ')
    .trimEnd();
}

/** The lines of one open file, from where the last read stopped; the unfinished last line waits. */
class LineSource {
  private position = 0;
  private rest = '';
  private readonly decoder = new StringDecoder('utf8');

  constructor(
    readonly fd: number,
    readonly ino: number,
  ) {}

  static open(path: string): LineSource {
    const fd = openSync(path, 'r');
    return new LineSource(fd, fstatSync(fd).ino);
  }

  read(onLine: (text: string) => void): void {
    const buffer = Buffer.alloc(CHUNK_BYTES);
    for (let n; (n = readSync(this.fd, buffer, 0, buffer.length, this.position)) > 0; ) {
      this.position += n;
      const parts = (this.rest + this.decoder.write(buffer.subarray(0, n))).split('\n');
      this.rest = parts.pop()!;
      for (const part of parts) onLine(part);
    }
  }

  /** Starts over when the file was cut shorter than what was read. */
  rewindIfTruncated(size: number): void {
    if (size >= this.position) return;
    this.position = 0;
    this.rest = '';
  }

  /** Delivers a last line without a newline (a torn write, or one being written), then closes. */
  close(onLine: (text: string) => void): void {
    const rest = this.rest + this.decoder.end();
    if (rest !== '') onLine(rest);
    closeSync(this.fd);
  }
}

/** `path.N` … `path.1`, oldest first. */
function rotatedFiles(path: string): string[] {
  const prefix = `${basename(path)}.`;
  let names: string[];
  try {
    names = readdirSync(dirname(path));
  } catch {
    return [];
  }
  return names
    .filter((name) => name.startsWith(prefix) && /^\d+$/.test(name.slice(prefix.length)))
    .map((name) => Number(name.slice(prefix.length)))
    .sort((a, b) => b - a)
    .map((n) => join(dirname(path), `${prefix}${n}`));
}

function openIfPresent(path: string): LineSource | null {
  try {
    return LineSource.open(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

/** Filters and prints lines; with --limit, holds the last n matches until release(). */
class Output {
  malformed = 0;
  private held: string[] | null;
  private readonly matches: (entry: AuditEntry) => boolean;

  constructor(private readonly flags: AuditFlags) {
    this.matches = matcher(flags);
    this.held = flags.limit === undefined ? null : [];
  }

  readonly line = (text: string): void => {
    if (text.trim() === '') return;
    const entry = parseLine(text);
    if (entry === null) {
      this.malformed++;
      return;
    }
    if (!this.matches(entry)) return;
    const out = this.flags.json ? text.trim() : formatEntry(entry);
    if (this.held === null) process.stdout.write(`${out}\n`);
    else {
      this.held.push(out);
      // Trimmed in bulk: shifting one at a time is quadratic on a long log.
      if (this.held.length >= 2 * this.flags.limit!) this.held = this.held.slice(-this.flags.limit!);
    }
  };

  /** Prints what --limit held back; from here on lines print as they come (--follow). */
  release(): void {
    if (this.held === null) return;
    const last = this.held.slice(-this.flags.limit!);
    this.held = null;
    if (last.length > 0) process.stdout.write(`${last.join('\n')}\n`);
  }
}

/** Reads what is appended to `path`, moving to the new file when the server rotates it, until SIGINT or SIGTERM. */
function follow(path: string, current: LineSource | null, output: Output): Promise<void> {
  let source = current;
  const poll = () => {
    let ino: number | undefined;
    let size = 0;
    try {
      ({ ino, size } = statSync(path));
    } catch {}
    // Drained before moving on: lines written just before the rename are still in the old file.
    source?.read(output.line);
    if (ino !== undefined && ino !== source?.ino) {
      source?.close(output.line);
      source = openIfPresent(path);
      source?.read(output.line);
    } else if (source !== null) {
      source.rewindIfTruncated(size);
    }
  };
  return new Promise((resolve, reject) => {
    const stop = (error?: unknown) => {
      clearInterval(timer);
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      if (error instanceof Error) reject(error);
      else resolve();
    };
    const timer = setInterval(() => {
      try {
        poll();
      } catch (error) {
        stop(error);
      }
    }, POLL_MS);
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}

async function audit(file: string | undefined, flags: AuditFlags): Promise<void> {
  const path = file ?? (process.env.BAP_AUDIT_LOG || './bap-audit.log');
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    // `bap audit | head` closes the pipe early; that is not a failure.
    if (error.code === 'EPIPE') process.exit(0);
    throw error;
  });
  const output = new Output(flags);
  let reading = path;
  try {
    const rotated = rotatedFiles(path);
    for (const name of rotated) {
      reading = name;
      // The server may have deleted the oldest since the listing.
      const source = openIfPresent(name);
      source?.read(output.line);
      source?.close(output.line);
    }
    reading = path;
    const current = openIfPresent(path);
    if (current === null && rotated.length === 0 && !flags.follow) {
      process.stderr.write(`bap audit: no audit log at ${path} (start the server with --audit-log, or name the file)\n`);
      process.exitCode = 1;
      return;
    }
    current?.read(output.line);
    if (!flags.follow) current?.close(output.line);
    output.release();
    if (flags.follow) await follow(path, current, output);
  } catch (error) {
    process.stderr.write(`bap audit: cannot read ${reading}: ${errorMessage(error)}\n`);
    process.exitCode = 1;
  }
  if (output.malformed > 0) process.stderr.write(`bap audit: skipped ${output.malformed} malformed line${output.malformed === 1 ? '' : 's'}\n`);
}

export function registerAudit(program: Command): void {
  program
    .command('audit')
    .description('Print the audit log a server writes with --audit-log: rotated files oldest first, then the current one.')
    .argument('[file]', 'the log (default: $BAP_AUDIT_LOG or ./bap-audit.log)')
    .option('--method <glob>', 'methods matching a pattern, e.g. action/* or page/navigate')
    .option('--token <name>', 'entries of one token name (local: a server without tokens)')
    .option('--decision <list>', `decisions to show, comma-separated or repeated: ${DECISIONS.join(', ')}`, decisionList)
    .addOption(new Option('--outcome <outcome>', 'entries that succeeded or failed').choices(['ok', 'error']))
    .option('--since <when>', 'entries from an ISO 8601 date (2025-03-01T12:00:00Z) or a duration ago (30s, 15m, 2h, 1d)', sinceTime)
    .option('--limit <n>', 'only the last n matching entries', integerIn(1, 1_000_000_000))
    .option('-f, --follow', 'keep printing entries as they are appended, across rotations, until interrupted')
    .option('--json', 'print the matching lines as they are in the file')
    .addHelpText(
      'after',
      [
        '',
        'Each entry prints as: time  token  method[#step]  decision  outcome  duration  error-code',
        '',
        'Examples:',
        '  bap audit /var/log/bap/audit.log --since 2h --decision denied,timeout',
        '  bap audit --method "action/*" --outcome error --limit 20',
        '  bap audit -f --token ci-agent --json',
        '',
        'A bad option value exits with code 2; a log that cannot be read, with 1.',
      ].join('\n'),
    )
    // A usage error exits 2 (as grep's do), so a script can tell it from a log it cannot read (1).
    .exitOverride((error) => process.exit(error.exitCode === 0 ? 0 : 2))
    .action(audit);
}
