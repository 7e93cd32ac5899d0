import { BAPError, ErrorCodes, describeSelector, type MethodResult, type ParsedParams } from '@browseragentprotocol/protocol';
import { Deadline } from './deadline.js';
import { toBAPError } from './errors.js';
import { mapValue } from './extract/mapper.js';
import { HintReader } from './extract/hints.js';
import { jsonLdFields, metaFields, pickJsonLd, readMetadata, type PageMetadata } from './extract/metadata.js';
import { words } from './extract/names.js';
import { SchemaReader, namesOf, type JsonSchema } from './extract/schema.js';
import type { ExtractContext, Missing, Scope } from './extract/scope.js';
import { buildTree } from './extract/tree.js';
import { compileSchema } from './extract/validator.js';
import type { PageHandle } from './pageHandle.js';

const DEFAULT_MAX_ITEMS = 500;

/**
 * agent/extract without a model: the schema is matched against the page's AI snapshot (tables,
 * lists, forms, definition lists, headings, links; every value with its ref) and, for the page
 * as a whole, its title, `<meta>` tags and JSON-LD. See docs/extract.md for the rules.
 */
export async function extract(h: PageHandle, p: ParsedParams<'agent/extract'>): Promise<MethodResult<'agent/extract'>> {
  const check = compileSchema(p.schema);
  try {
    const timeout = p.timeout ?? h.timeouts.action;
    const deadline = new Deadline(timeout, () => extractTimeout(timeout));
    const frame = h.frames.current();
    const root = p.selector ? await h.element(p.selector, 'agent/extract') : undefined;
    const [nodes, metadata] = await Promise.all([
      h.refs.capture({ frame, ...(root ? { root } : {}), timeout: deadline.remaining() }),
      // A `selector` restricts everything, page metadata included.
      root ? undefined : deadline.race(readMetadata(frame)),
    ]).catch((error: unknown) => {
      throw toBAPError(error, p.selector ? { selector: describeSelector(p.selector) } : {});
    });
    const reader = new SchemaReader(p.schema);
    const schema = reader.resolve(p.schema);
    const ctx: ExtractContext = {
      reader,
      hints: new HintReader(h, deadline),
      baseUrl: metadata?.baseUrl ?? frame.url(),
      instruction: words(p.instruction ?? ''),
      maxItems: p.maxItems ?? DEFAULT_MAX_ITEMS,
      dry: false,
    };
    const scope: Scope = {
      roots: buildTree(nodes).roots,
      extra: metadata ? pageFields(metadata, reader, schema, ctx.instruction) : [],
      base: async () => root ?? frame,
    };
    const names = typeof schema.title === 'string' ? [words(schema.title)] : [];
    const mapped = await mapValue(ctx, schema, '', names.length ? names : [ctx.instruction], scope);
    if (!mapped.found) throw unsatisfied(mapped.missing, []);
    const invalid = check.errors(mapped.value);
    if (invalid.length) throw unsatisfied([], invalid);
    return { data: mapped.value, sources: mapped.sources, url: frame.url() };
  } finally {
    check.release();
  }
}

/** Page-wide fields: `<title>`, `<meta>`, OpenGraph, and the JSON-LD object that best fits the schema. */
function pageFields(metadata: PageMetadata, reader: SchemaReader, schema: JsonSchema, instruction: string[]) {
  const context = [...instruction, ...(typeof schema.title === 'string' ? words(schema.title) : [])];
  const jsonLd = pickJsonLd(metadata.jsonLd, propertyNames(reader, schema, 0), context);
  return [...metaFields(metadata), ...(jsonLd ? jsonLdFields(jsonLd) : [])];
}

/** The names of every property in the schema, nested ones included. */
function propertyNames(reader: SchemaReader, schema: JsonSchema, depth: number): string[][] {
  if (depth > 4) return [];
  const nested = reader.typeOf(schema) === 'array' ? [reader.items(schema)] : [];
  return [
    ...reader.properties(schema).flatMap(([key, sub]) => [...namesOf(key, sub), ...propertyNames(reader, sub, depth + 1)]),
    ...nested.flatMap((items) => propertyNames(reader, items, depth + 1)),
  ];
}

function extractTimeout(timeout: number): BAPError {
  return new BAPError(ErrorCodes.Timeout, `agent/extract did not finish within ${timeout} ms.`, {
    retryAfterMs: 0,
    details: { timeout },
    recoveryHint: 'Raise timeout, pass a selector to extract from a smaller part of the page, or use fewer x-selector hints.',
  });
}

/** The page cannot give what the schema asks: -32021 naming each unsatisfied JSON Pointer. */
function unsatisfied(missing: Missing[], invalid: { path: string; message: string }[]): BAPError {
  const paths = [...new Set([...missing, ...invalid].map((m) => m.path || '(root)'))];
  const shown = paths.slice(0, 10).join(', ') + (paths.length > 10 ? ` and ${paths.length - 10} more` : '');
  const first = missing[0]?.reason ?? invalid[0]?.message ?? '';
  return new BAPError(ErrorCodes.ActionFailed, `agent/extract could not satisfy the schema at ${shown}: ${first}.`, {
    details: { unsatisfied: missing.slice(0, 50), ...(invalid.length ? { ajvErrors: invalid.slice(0, 50) } : {}) },
    recoveryHint:
      'Add an "x-selector" (CSS) to the properties that were not found, pass `selector` to extract from the right part of the page, or make them optional or loosen their types.',
  });
}
