/** Values shorter than this are masked where they are known to be (fields), not searched for in text. */
const MIN_LENGTH = 4;
/** Learned values kept; the oldest are forgotten beyond this. */
const MAX_VALUES = 10_000;
/** Long pure-base64 strings are binary payloads (images, PDFs, zips): searching them only breaks them. */
const BINARY = /^[A-Za-z0-9+/]{1024,}={0,2}$/;

/**
 * Everything that must never leave the server as text: secret values (shown as
 * `{{secret:NAME}}`), values typed into password and card fields, tokens, and configured
 * patterns. Replies, notifications, logs, audit lines, approval requests and traces all pass
 * through `scrub` on their way out.
 */
export class Redactor {
  private readonly values = new Map<string, string>();
  private readonly patterns: RegExp[];
  /** Longest first, so a value containing another is replaced whole. */
  private ordered: [string, string][] | null = null;

  constructor(patterns: readonly string[] = []) {
    this.patterns = patterns.map((source) => new RegExp(source, 'g'));
  }

  /** Registers a value never to be shown again; `replacement` is what appears instead. */
  add(value: string, replacement = '[REDACTED]'): void {
    if (value.length < MIN_LENGTH || this.values.get(value) === replacement) return;
    this.values.delete(value);
    this.values.set(value, replacement);
    if (this.values.size > MAX_VALUES) this.values.delete(this.values.keys().next().value!);
    this.ordered = null;
  }

  get empty(): boolean {
    return this.values.size === 0 && this.patterns.length === 0;
  }

  scrub(text: string): string {
    if (this.empty) return text;
    this.ordered ??= [...this.values].sort((a, b) => b[0].length - a[0].length);
    let out = text;
    for (const [value, replacement] of this.ordered) if (out.includes(value)) out = out.replaceAll(value, replacement);
    for (const pattern of this.patterns) out = out.replace(pattern, '[REDACTED]');
    return out;
  }

  /** A copy of `value` with every string scrubbed (object keys too); binary payloads are left alone. */
  scrubValue<T>(value: T): T {
    if (this.empty) return value;
    return this.walk(value) as T;
  }

  private walk(value: unknown): unknown {
    if (typeof value === 'string') return BINARY.test(value) ? value : this.scrub(value);
    if (Array.isArray(value)) return value.map((v) => this.walk(v));
    if (value && typeof value === 'object' && !(value instanceof Uint8Array)) {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(value)) out[this.scrub(k)] = this.walk(v);
      return out;
    }
    return value;
  }
}
