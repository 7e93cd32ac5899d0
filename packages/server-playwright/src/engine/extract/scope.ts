import type { Collection } from './collections.js';
import { rowCells } from './collections.js';
import { RANK, implicitFields, labelledFields, type Field, type SourceKind } from './fields.js';
import { matchScore, type PropertyKind } from './names.js';
import type { HintBase, HintReader } from './hints.js';
import type { SchemaReader } from './schema.js';
import { firstLink, textOf, type TreeNode } from './tree.js';

/** A part of the page a schema (or part of one) is read from. */
export interface Scope {
  roots: TreeNode[];
  /** Values that come with the scope rather than from its nodes: a row's cells under their headers, page metadata, a JSON-LD object. */
  extra: Field[];
  /** Inside an array item: item heuristics apply, and sources name where the item came from. */
  item?: Collection['kind'] | 'selector' | undefined;
  /** Where the scope's `x-selector` hints are resolved. */
  base(): Promise<HintBase | undefined>;
}

/** What one call shares across its whole schema walk. */
export interface ExtractContext {
  reader: SchemaReader;
  hints: HintReader;
  baseUrl: string;
  instruction: string[];
  maxItems: number;
  /** Set while ranking candidate collections: hinted properties are skipped, so ranking never touches the page. */
  dry: boolean;
}

export interface Source {
  path: string;
  ref?: string;
  from: SourceKind;
}

export interface Missing {
  path: string;
  reason: string;
}

/** The outcome of reading one (sub)schema. */
export interface Mapped {
  found: boolean;
  value?: unknown;
  sources: Source[];
  /** Required values that could not be read, by JSON Pointer. */
  missing: Missing[];
  /** How many values were found, required ones counting twice; ranks candidate collections. */
  score: number;
  /** How well their labels matched (sum of match scores); breaks ties between collections. */
  quality: number;
}

export function found(value: unknown, sources: Source[], quality: number): Mapped {
  return { found: true, value, sources, missing: [], score: 1, quality };
}

export function notFound(path: string, reason: string): Mapped {
  return { found: false, sources: [], missing: [{ path, reason }], score: 0, quality: 0 };
}

const cache = new WeakMap<Scope, Field[]>();

/** Every field of a scope: labelled ones, the scope's own, and those matched by property kind. */
export function fieldsOf(scope: Scope): Field[] {
  let fields = cache.get(scope);
  if (!fields) {
    fields = [...scope.extra, ...labelledFields(scope.roots), ...implicitFields(scope.roots, scope.item !== undefined)];
    cache.set(scope, fields);
  }
  return fields;
}

export function subScope(roots: TreeNode[], base: Scope['base'], extra: Field[] = []): Scope {
  return { roots, extra, base };
}

/** One item of a collection; a table row brings its cells under their column headers. */
export function itemScope(collection: Collection, item: TreeNode, hints: HintReader): Scope {
  const extra: Field[] = [];
  if (collection.headers) {
    rowCells(item).forEach((cell, i) => {
      const header = collection.headers![i];
      if (!header?.length) return;
      extra.push({ words: header, value: textOf(cell), url: firstLink(cell)?.node.url, ref: cell.node.ref, from: 'table', rank: RANK.table, order: cell.order });
    });
  }
  return { roots: [item], extra, item: collection.kind, base: () => hints.itemBase(item.node.ref) };
}

/** Fields that fit a property, best first: label match, then source priority, then document order. */
export function rankFields(fields: readonly Field[], names: string[][], kind: PropertyKind | undefined): { field: Field; score: number }[] {
  return fields
    .map((field) => ({ field, score: field.kind ? (field.kind === kind ? 0.5 : 0) : matchScore(names, field.words) }))
    .filter((c) => c.score > 0)
    .sort((a, b) => b.score - a.score || a.field.rank - b.field.rank || a.field.order - b.field.order);
}

export function source(path: string, ref: string | undefined, from: Source['from']): Source {
  return ref ? { path, ref, from } : { path, from };
}
