import { words } from './names.js';
import type { JsonSchema, SchemaType } from './schema.js';

export type Coerced = { ok: true; value: unknown } | { ok: false; reason: string };

const URI_FORMATS = new Set(['uri', 'uri-reference', 'iri', 'iri-reference', 'url']);
const TRUE_WORDS = /^(yes|y|true|on|checked|enabled|available|in stock|✓|✔|1)$/i;
const FALSE_WORDS = /^(no|n|false|off|unchecked|disabled|unavailable|out of stock|sold out|✗|✘|0)$/i;

export interface RawValue {
  /** Text, a checked state, or what JSON-LD holds (numbers, objects, arrays). */
  value: unknown;
  /** The link the value was read from, when there is one. */
  url?: string | undefined;
}

/**
 * Turns what the page shows into the type the schema asks for, or says why it cannot: numbers
 * from "$1,299.00" or "4.5 stars", booleans from a checked state or yes/no, URLs made absolute.
 * Nothing is made up: text that holds no number is not a number.
 */
export function coerce(type: SchemaType, schema: JsonSchema, raw: RawValue, baseUrl: string, urlLike: boolean): Coerced {
  const value = Array.isArray(raw.value) ? raw.value[0] : raw.value;
  if (value === undefined || value === null) return fail('no value');
  switch (type) {
    case 'number':
    case 'integer':
      return toNumber(value, type === 'integer');
    case 'boolean':
      return toBoolean(value);
    case 'string':
    case 'any':
      return toText(type, schema, { value, url: raw.url }, baseUrl, urlLike);
    default:
      return fail(`cannot be read as ${type}`);
  }
}

function toNumber(value: unknown, integer: boolean): Coerced {
  const n = typeof value === 'number' ? value : typeof value === 'string' ? parseNumber(value) : undefined;
  if (n === undefined) return fail(`"${preview(value)}" is not a number`);
  if (integer && !Number.isInteger(n)) return fail(`${n} is not an integer`);
  return { ok: true, value: n };
}

function toBoolean(value: unknown): Coerced {
  if (typeof value === 'boolean') return { ok: true, value };
  const text = typeof value === 'string' || typeof value === 'number' ? String(value).trim() : '';
  if (TRUE_WORDS.test(text)) return { ok: true, value: true };
  if (FALSE_WORDS.test(text)) return { ok: true, value: false };
  return fail(`"${preview(value)}" is not a yes/no value`);
}

function toText(type: SchemaType, schema: JsonSchema, raw: RawValue, baseUrl: string, urlLike: boolean): Coerced {
  const { value } = raw;
  if (typeof value === 'boolean') return type === 'any' ? { ok: true, value } : fail('is a checked state, not text');
  const format = typeof schema.format === 'string' ? schema.format : undefined;
  const wantsUrl = (format !== undefined && URI_FORMATS.has(format)) || (format === undefined && urlLike);
  let text = wantsUrl && raw.url ? raw.url : textOfJson(value, wantsUrl);
  if (text === undefined || !text) return fail('is empty');
  if (wantsUrl) {
    const url = absolute(text, baseUrl);
    if (!url) return fail(`"${preview(text)}" is not a URL`);
    text = url;
  }
  return Array.isArray(schema.enum) ? toEnum(schema.enum, text) : { ok: true, value: text };
}

/** Text of a page value, or of a JSON-LD value (`{"@type": "Brand", "name": "Acme"}` reads as "Acme"). */
function textOfJson(value: unknown, wantsUrl: boolean): string | undefined {
  if (typeof value === 'string') return value.replace(/\s+/g, ' ').trim();
  if (typeof value === 'number') return String(value);
  if (typeof value === 'object' && value !== null) {
    const o = value as Record<string, unknown>;
    const pick = wantsUrl ? (o.url ?? o['@id'] ?? o.contentUrl) : (o.name ?? o['@value'] ?? o.value);
    return typeof pick === 'string' || typeof pick === 'number' ? String(pick) : undefined;
  }
  return undefined;
}

function toEnum(members: readonly unknown[], text: string): Coerced {
  const exact = members.find((m) => m === text);
  if (exact !== undefined) return { ok: true, value: exact };
  // schema.org states enumerations as URLs: "https://schema.org/InStock" is InStock.
  const wanted = [words(text).join(' '), words(/^https?:\/\/\S+\/([^/]+)$/.exec(text)?.[1] ?? '').join(' ')].filter(Boolean);
  const loose = members.find((m) => typeof m === 'string' && wanted.includes(words(m).join(' ')));
  return loose !== undefined ? { ok: true, value: loose } : fail(`"${preview(text)}" is not one of the schema's enum values`);
}

function absolute(text: string, baseUrl: string): string | undefined {
  try {
    return new URL(text, baseUrl || undefined).href;
  } catch {
    return undefined;
  }
}

/**
 * The first number in a text. Thousands may be grouped with `,` `.` `'` or spaces; the decimal
 * mark is whichever of `.` and `,` comes last. A lone `,` before exactly three digits groups
 * thousands ("1,299"); a lone `.` is always decimal ("1.299" is 1.299).
 */
export function parseNumber(text: string): number | undefined {
  const match = /([-+−]?)(\d[\d.,'’\s\u00a0\u202f]*)/.exec(text);
  if (!match) return undefined;
  let body = match[2]!.replace(/(\d)[\s\u00a0\u202f'’](?=\d{3}(?!\d))/g, '$1');
  body = body.split(/[\s'’]/)[0]!.replace(/[.,]+$/, '');
  const lastDot = body.lastIndexOf('.');
  const lastComma = body.lastIndexOf(',');
  if (lastDot >= 0 && lastComma >= 0) {
    const [decimal, group] = lastDot > lastComma ? ['.', ','] : [',', '.'];
    const [whole = '', fraction = ''] = splitLast(body, decimal);
    body = `${whole.replaceAll(group, '')}.${fraction}`;
  } else if (lastComma >= 0) {
    body = /^\d{1,3}(,\d{3})+$/.test(body) ? body.replaceAll(',', '') : firstTwo(body, ',');
  } else if (lastDot >= 0) {
    body = /^\d{1,3}(\.\d{3}){2,}$/.test(body) ? body.replaceAll('.', '') : firstTwo(body, '.');
  }
  const n = Number(body);
  if (!Number.isFinite(n) || /[.,]/.test(body.replace('.', ''))) return undefined;
  return match[1] === '-' || match[1] === '−' ? -n : n;
}

function splitLast(text: string, mark: string): [string, string] {
  const at = text.lastIndexOf(mark);
  return [text.slice(0, at), text.slice(at + 1)];
}

/** `1,5` → `1.5`; `1.2.3` → `1.2` (the number ends at the second mark). */
function firstTwo(text: string, mark: string): string {
  const [whole, fraction] = text.split(mark);
  return fraction === undefined ? whole! : `${whole}.${fraction}`;
}

function preview(value: unknown): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value) ?? '';
  return text.length > 40 ? `${text.slice(0, 39)}…` : text;
}

function fail(reason: string): Coerced {
  return { ok: false, reason };
}
