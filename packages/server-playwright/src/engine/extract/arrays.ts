import { findCollections, rowCells, type Collection } from './collections.js';
import { coerce } from './coerce.js';
import { jsonLdFields } from './metadata.js';
import { kindOf, matchScore, overlap } from './names.js';
import { hintOf, type JsonSchema } from './schema.js';
import { hintedValue } from './hints.js';
import { fieldsOf, found, itemScope, notFound, rankFields, source, subScope, type ExtractContext, type Mapped, type Missing, type Scope, type Source } from './scope.js';
import { firstLink, textOf, type TreeNode } from './tree.js';

type MapObject = (ctx: ExtractContext, schema: JsonSchema, path: string, scope: Scope) => Promise<Mapped>;

/** How many items of each candidate collection are tried when ranking them. */
const SAMPLE = 5;

/**
 * An array: the elements of its `x-selector`, an array the page states outright (JSON-LD, a
 * multi-select, a term with several definitions), or else the best collection (objects) or
 * list (scalars) in scope.
 */
export async function mapArray(ctx: ExtractContext, schema: JsonSchema, path: string, names: string[][], scope: Scope, mapObject: MapObject): Promise<Mapped> {
  const itemSchema = ctx.reader.items(schema);
  const limit = Math.min(ctx.maxItems, typeof schema.maxItems === 'number' ? schema.maxItems : Infinity);
  const hint = hintOf(schema);
  if (hint) return hintedArray(ctx, itemSchema, path, scope, hint, limit, mapObject);
  const stated = await statedArray(ctx, itemSchema, path, names, scope, limit, mapObject);
  if (stated) return stated;
  return ctx.reader.typeOf(itemSchema) === 'object'
    ? collectionArray(ctx, itemSchema, path, names, scope, limit, mapObject)
    : listArray(ctx, itemSchema, path, names, scope, limit);
}

async function hintedArray(ctx: ExtractContext, itemSchema: JsonSchema, path: string, scope: Scope, hint: string, limit: number, mapObject: MapObject): Promise<Mapped> {
  const base = await scope.base();
  if (!base) return notFound(path, `x-selector "${hint}" has no element to search in`);
  const elements = await ctx.hints.read(base, hint, limit, path);
  const objects = ctx.reader.typeOf(itemSchema) === 'object';
  return collect(path, elements, async (element, at) => {
    if (objects) return mapObject(ctx, itemSchema, at, { roots: element.roots, extra: [], item: 'selector', base: async () => element.locator });
    return scalarItem(ctx, itemSchema, at, hintedValue(element.roots), element.ref, 'selector');
  });
}

/** An array the page gives as one value: JSON-LD arrays, selected options, several definitions of a term. */
async function statedArray(ctx: ExtractContext, itemSchema: JsonSchema, path: string, names: string[][], scope: Scope, limit: number, mapObject: MapObject): Promise<Mapped | undefined> {
  const best = rankFields(fieldsOf(scope), names, undefined).find((c) => c.score >= 2 && Array.isArray(c.field.value));
  if (!best) return undefined;
  const { field } = best;
  const values = (field.value as unknown[]).slice(0, limit);
  return collect(path, values, async (value, at) => {
    if (ctx.reader.typeOf(itemSchema) === 'object' && typeof value === 'object' && value !== null) {
      return mapObject(ctx, itemSchema, at, subScope([], scope.base, jsonLdFields(value as Record<string, unknown>)));
    }
    return scalarItem(ctx, itemSchema, at, { value, url: undefined }, field.ref, scope.item ?? field.from);
  });
}

interface Ranked {
  collection: Collection;
  complete: boolean;
  score: number;
  quality: number;
  overlap: number;
}

/**
 * Arrays of objects come from the collection that fills the most properties (every required one
 * first); among equals, the one whose caption or nearby heading shares the most words with the
 * instruction and the property's name; then the better label matches; then the first on the page.
 */
async function collectionArray(ctx: ExtractContext, itemSchema: JsonSchema, path: string, names: string[][], scope: Scope, limit: number, mapObject: MapObject): Promise<Mapped> {
  const context = [...ctx.instruction, ...names.flat()];
  const ranked: Ranked[] = [];
  for (const collection of findCollections(scope.roots)) {
    const sample = collection.items.slice(0, SAMPLE);
    if (!sample.length) continue;
    const tries = await Promise.all(sample.map((item) => mapObject({ ...ctx, dry: true }, itemSchema, '', itemScope(collection, item, ctx.hints))));
    const score = tries.reduce((sum, t) => sum + t.score, 0) / sample.length;
    if (score <= 0) continue;
    const quality = tries.reduce((sum, t) => sum + t.quality, 0) / sample.length;
    ranked.push({ collection, complete: tries.every((t) => t.found), score, quality, overlap: overlap(context, collection.context) });
  }
  ranked.sort(
    (a, b) =>
      Number(b.complete) - Number(a.complete) ||
      round(b.score - a.score) ||
      b.overlap - a.overlap ||
      round(b.quality - a.quality) ||
      Number(a.collection.chrome) - Number(b.collection.chrome) ||
      a.collection.container.order - b.collection.container.order,
  );
  const best = ranked[0]?.collection;
  if (!best) return notFound(path, 'no table or list on the page has items with these properties');
  const items = best.items.slice(0, limit);
  return collect(path, items, (item, at) => mapObject(ctx, itemSchema, at, itemScope(best, item, ctx.hints)), true);
}

/** Arrays of scalars: a table column headed by the property's name, else the list that best fits the context. */
async function listArray(ctx: ExtractContext, itemSchema: JsonSchema, path: string, names: string[][], scope: Scope, limit: number): Promise<Mapped> {
  const wantsUrl = /^(uri|iri|url)/.test(String(itemSchema.format ?? '')) || kindOf(names) === 'url';
  const read = (t: TreeNode) => (wantsUrl ? firstLink(t)?.node.url : textOf(t)) ?? '';
  const collections = findCollections(scope.roots);
  const context = [...ctx.instruction, ...names.flat()];
  for (const table of collections.filter((c) => c.headers)) {
    const column = table.headers!.findIndex((h) => matchScore(names, h) >= 2);
    if (column < 0) continue;
    const cells = table.items.map((row) => rowCells(row)[column]).filter((c): c is TreeNode => !!c && !!read(c));
    if (cells.length) return collect(path, cells.slice(0, limit), async (cell, at) => scalarItem(ctx, itemSchema, at, { value: read(cell), url: read(cell) }, cell.node.ref, 'table'));
  }
  const lists = collections
    .filter((c) => c.kind === 'list' && c.items.some((i) => read(i)))
    .sort((a, b) => overlap(context, b.context) - overlap(context, a.context) || Number(a.chrome) - Number(b.chrome) || a.container.order - b.container.order);
  const best = lists[0];
  if (!best) return notFound(path, 'no list on the page to read it from');
  const items = best.items.filter((i) => read(i)).slice(0, limit);
  const from = scope.item ?? (wantsUrl ? 'links' : 'list');
  return collect(path, items, async (item, at) => scalarItem(ctx, itemSchema, at, { value: read(item), url: read(item) }, item.node.ref, from));
}

function scalarItem(ctx: ExtractContext, schema: JsonSchema, path: string, raw: { value: unknown; url: string | undefined }, ref: string | undefined, from: Source['from']): Mapped {
  const coerced = coerce(ctx.reader.typeOf(schema), schema, raw, ctx.baseUrl, false);
  return coerced.ok ? found(coerced.value, [source(path, ref, from)], 1) : notFound(path, `"${String(raw.value).slice(0, 40)}" ${coerced.reason}`);
}

/**
 * Maps each entry to an array item. With `skipBlank`, items in which nothing was found (a spacer
 * row) are left out; an item missing a required property makes the whole array unreadable.
 */
async function collect<T>(path: string, entries: readonly T[], map: (entry: T, at: string) => Promise<Mapped>, skipBlank = false): Promise<Mapped> {
  const values: unknown[] = [];
  const sources: Source[] = [];
  const missing: Missing[] = [];
  let score = 0;
  let quality = 0;
  let index = 0;
  for (const entry of entries) {
    const mapped = await map(entry, `${path}/${index}`);
    if (!mapped.found && skipBlank && isBlank(mapped)) continue;
    index++;
    if (mapped.found) {
      values.push(mapped.value);
      sources.push(...mapped.sources);
      score += mapped.score;
      quality += mapped.quality;
    } else {
      missing.push(...mapped.missing);
    }
  }
  if (missing.length) return { found: false, sources: [], missing, score: 0, quality: 0 };
  if (!values.length) return notFound(path, 'its items were all empty');
  return { found: true, value: values, sources, missing: [], score: score / values.length, quality: quality / values.length };
}

function isBlank(mapped: Mapped): boolean {
  return typeof mapped.value === 'object' && mapped.value !== null && Object.keys(mapped.value).length === 0;
}

function round(n: number): number {
  return Math.abs(n) < 1e-6 ? 0 : n;
}
