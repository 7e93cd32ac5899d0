import type { Frame } from 'playwright-core';
import { RANK, type Field } from './fields.js';
import { matchScore, overlap, words } from './names.js';

/** What the page says about itself outside its visible content. */
export interface PageMetadata {
  title: string;
  /** `document.baseURI`, against which relative links resolve. */
  baseUrl: string;
  /** `[name or property, content]` of each `<meta>`, plus `canonical` from `<link rel=canonical>`. */
  meta: [string, string][];
  /** Each `<script type="application/ld+json">` that parses. */
  jsonLd: unknown[];
}

const MAX_JSON_LD_CHARS = 1_000_000;
const MAX_SCRIPTS = 20;
const MAX_META = 300;
/** `<meta>` that carry credentials (Rails' csrf-token and the like) are never read. */
const CREDENTIAL_META = /csrf|xsrf|token|nonce|secret|api[-_]?key|password/i;
const MAX_DEPTH = 3;

/** One in-page read of what the accessibility tree lacks: the title, `<meta>` tags and JSON-LD. */
export async function readMetadata(frame: Frame): Promise<PageMetadata> {
  const raw = await frame.evaluate(
    ([maxChars, maxScripts, maxMeta]) => {
      const meta: [string, string][] = [];
      for (const m of [...document.querySelectorAll('meta[content]')].slice(0, maxMeta)) {
        const key = m.getAttribute('property') ?? m.getAttribute('name') ?? m.getAttribute('itemprop');
        if (key) meta.push([key, m.getAttribute('content') ?? '']);
      }
      const canonical = document.querySelector<HTMLLinkElement>('link[rel~="canonical" i]')?.href;
      if (canonical) meta.push(['canonical', canonical]);
      const scripts = [...document.querySelectorAll('script[type="application/ld+json" i]')].slice(0, maxScripts);
      return { title: document.title, baseUrl: document.baseURI, meta, scripts: scripts.map((s) => (s.textContent ?? '').slice(0, maxChars)) };
    },
    [MAX_JSON_LD_CHARS, MAX_SCRIPTS, MAX_META] as const,
  );
  // The page's own scripts run in the same world and could have patched what we called.
  const text = (v: unknown) => (typeof v === 'string' ? v : '');
  const meta = (Array.isArray(raw.meta) ? raw.meta : [])
    .map(([key, content]): [string, string] => [text(key), text(content)])
    .filter(([key]) => key && !CREDENTIAL_META.test(key));
  const jsonLd = (Array.isArray(raw.scripts) ? raw.scripts : []).map(text).flatMap((text) => {
    try {
      return [JSON.parse(text) as unknown];
    } catch {
      return [];
    }
  });
  return { title: text(raw.title), baseUrl: text(raw.baseUrl), meta, jsonLd };
}

/** `<title>`, `<meta name=description>` and friends (`metadata`), and `og:*` (`opengraph`). */
export function metaFields(metadata: PageMetadata): Field[] {
  const fields: Field[] = [];
  if (metadata.title) fields.push({ words: ['title'], value: metadata.title, from: 'metadata', rank: RANK.metadata, order: 0 });
  metadata.meta.forEach(([key, content], i) => {
    if (!content.trim()) return;
    const og = /^og:(.+)$/i.exec(key);
    const label = og ? og[1]! : key.replace(/^(twitter|article|product|book|profile|music|video):/i, '$1 ');
    const url = /(^|:)(url|image|video|audio)(:url)?$|^canonical$/i.test(key) ? content : undefined;
    fields.push({
      words: words(label.replaceAll(':', ' ')),
      value: content,
      url,
      from: og ? 'opengraph' : 'metadata',
      rank: og ? RANK.openGraph : RANK.metadata,
      order: i + 1,
    });
  });
  return fields;
}

type JsonObject = Record<string, unknown>;

const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The one JSON-LD object that best fits the schema: the most property names among its keys
 * (nested ones count too), then its `@type` named by the context words; none if nothing fits.
 */
export function pickJsonLd(jsonLd: readonly unknown[], propertyNames: readonly string[][], context: readonly string[]): JsonObject | undefined {
  let best: { object: JsonObject; score: number } | undefined;
  for (const object of jsonLd.flatMap(topObjects)) {
    const keys = deepKeys(object, 0).map(words);
    const fits = propertyNames.filter((name) => keys.some((k) => matchScore([name], k) >= 2)).length;
    if (!fits) continue;
    const type = Array.isArray(object['@type']) ? object['@type'].join(' ') : String(object['@type'] ?? '');
    const score = fits + 0.5 * overlap(context, words(type));
    if (!best || score > best.score) best = { object, score };
  }
  return best?.object;
}

function topObjects(value: unknown): JsonObject[] {
  if (Array.isArray(value)) return value.flatMap(topObjects);
  if (!isObject(value)) return [];
  return Array.isArray(value['@graph']) ? value['@graph'].flatMap(topObjects) : [value];
}

function deepKeys(object: JsonObject, depth: number): string[] {
  return Object.entries(object).flatMap(([key, value]) => {
    const nested = Array.isArray(value) ? value[0] : value;
    return [key, ...(isObject(nested) && depth < MAX_DEPTH ? deepKeys(nested, depth + 1) : [])];
  });
}

/**
 * Fields of a JSON-LD object: its own keys first, then (ranked lower) the keys of the objects
 * inside it, so `price` finds `offers.price` when the schema is flat.
 */
export function jsonLdFields(object: JsonObject, depth = 0, into: Field[] = []): Field[] {
  for (const [key, value] of Object.entries(object)) {
    if (key === '@context') continue;
    into.push({ words: words(key.replace(/^@/, '')), value, from: 'json-ld', rank: RANK.jsonLd + depth / 10, order: into.length });
  }
  if (depth < MAX_DEPTH) {
    for (const value of Object.values(object)) {
      const nested = Array.isArray(value) ? value[0] : value;
      if (isObject(nested)) jsonLdFields(nested, depth + 1, into);
    }
  }
  return into;
}
