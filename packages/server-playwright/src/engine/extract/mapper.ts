import { coerce } from './coerce.js';
import { mapArray } from './arrays.js';
import { sectionContent, type Field } from './fields.js';
import { jsonLdFields } from './metadata.js';
import { kindOf, matchScore, words } from './names.js';
import { MAX_DEPTH, hintOf, namesOf, pointerSegment, type JsonSchema } from './schema.js';
import { hintedValue } from './hints.js';
import { fieldsOf, found, notFound, rankFields, source, subScope, type ExtractContext, type Mapped, type Scope } from './scope.js';
import { textOf, within } from './tree.js';

/** Reads a value of any type for `schema` from `scope`; `names` are the words the value answers to. */
export async function mapValue(ctx: ExtractContext, schema: JsonSchema, path: string, names: string[][], scope: Scope): Promise<Mapped> {
  if (depthOf(path) > MAX_DEPTH) return notFound(path, 'the schema nests deeper than agent/extract follows');
  switch (ctx.reader.typeOf(schema)) {
    case 'object':
      return mapObject(ctx, schema, path, scope);
    case 'array':
      return mapArray(ctx, schema, path, names, scope, mapObject);
    default:
      return mapScalar(ctx, schema, path, names, scope);
  }
}

/**
 * Each property in turn. An object is found when at least one property is and every required
 * one is; an optional property that cannot be read is left out.
 */
export async function mapObject(ctx: ExtractContext, schema: JsonSchema, path: string, scope: Scope): Promise<Mapped> {
  const required = ctx.reader.required(schema);
  const properties = ctx.reader.properties(schema);
  if (!properties.length) return freeObject(path, scope);
  const value: Record<string, unknown> = {};
  const result: Mapped = { found: false, value, sources: [], missing: [], score: 0, quality: 0 };
  for (const [key, sub] of properties) {
    const at = `${path}/${pointerSegment(key)}`;
    if (ctx.dry && hintOf(sub)) continue;
    const mapped = await mapProperty(ctx, sub, at, key, scope);
    if (mapped.found) {
      value[key] = mapped.value;
      result.sources.push(...mapped.sources);
      result.score += mapped.score * (required.has(key) ? 2 : 1);
      result.quality += mapped.quality;
    } else if (required.has(key)) {
      result.missing.push(...mapped.missing);
    }
  }
  result.found = Object.keys(value).length > 0 && !result.missing.length;
  if (!result.found && !result.missing.length) result.missing.push({ path, reason: 'none of its properties was found on the page' });
  return result;
}

async function mapProperty(ctx: ExtractContext, schema: JsonSchema, path: string, key: string, scope: Scope): Promise<Mapped> {
  const names = namesOf(key, schema);
  const hint = hintOf(schema);
  if (hint && ctx.reader.typeOf(schema) !== 'array') return mapHinted(ctx, schema, path, names, scope, hint);
  if (ctx.reader.typeOf(schema) !== 'object') return mapValue(ctx, schema, path, names, scope);
  // A nested object reads from a JSON-LD object of its name, else the section headed by its name.
  const json = bestField(fieldsOf(scope).filter((f) => isPlainObject(f.value)), names);
  if (json) return mapObject(ctx, schema, path, subScope([], scope.base, jsonLdFields(json.value as Record<string, unknown>)));
  const heading = within(scope.roots).find((t) => t.role === 'heading' && matchScore(names, words(textOf(t))) >= 2);
  if (heading) {
    const section = await mapObject(ctx, schema, path, { ...subScope(sectionContent(heading), scope.base), item: scope.item });
    if (section.found) return section;
  }
  return mapObject(ctx, schema, path, scope);
}

/** A scalar: the best-matching field whose value has (or coerces to) the schema's type. */
export async function mapScalar(ctx: ExtractContext, schema: JsonSchema, path: string, names: string[][], scope: Scope): Promise<Mapped> {
  const type = ctx.reader.typeOf(schema);
  if (type === 'null') return notFound(path, 'a property that can only be null has nothing to read');
  const kind = kindOf(names);
  let reason: string | undefined;
  for (const { field, score } of rankFields(fieldsOf(scope), names, kind)) {
    const coerced = coerce(type, schema, field, ctx.baseUrl, kind === 'url');
    if (coerced.ok) return found(coerced.value, [source(path, field.ref, scope.item ?? field.from)], score);
    reason ??= `"${describe(field)}" ${coerced.reason}`;
  }
  return notFound(path, reason ? `the best match, ${reason}` : 'found nowhere on the page');
}

/** A property with an `x-selector`: the first element it matches, read as the property's type. */
async function mapHinted(ctx: ExtractContext, schema: JsonSchema, path: string, names: string[][], scope: Scope, hint: string): Promise<Mapped> {
  const base = await scope.base();
  if (!base) return notFound(path, `x-selector "${hint}" has no element to search in`);
  const [element] = await ctx.hints.read(base, hint, 1, path);
  if (!element) return notFound(path, `x-selector "${hint}" matches no readable element`);
  if (ctx.reader.typeOf(schema) === 'object') {
    return mapObject(ctx, schema, path, { ...subScope(element.roots, async () => element.locator), item: scope.item });
  }
  const raw = hintedValue(element.roots);
  const kind = kindOf(names);
  const coerced = coerce(ctx.reader.typeOf(schema), schema, raw, ctx.baseUrl, kind === 'url');
  if (!coerced.ok) return notFound(path, `x-selector "${hint}" found "${String(raw.value).slice(0, 40)}", which ${coerced.reason}`);
  return found(coerced.value, [source(path, element.ref, 'selector')], 4);
}

function freeObject(path: string, scope: Scope): Mapped {
  const field = fieldsOf(scope).find((f) => isPlainObject(f.value));
  return field ? found(field.value, [source(path, undefined, field.from)], 1) : notFound(path, 'an object without properties can only come from JSON-LD');
}

function bestField(fields: readonly Field[], names: string[][]): Field | undefined {
  return rankFields(fields, names, undefined).find((c) => c.score >= 2)?.field;
}

function describe(field: Field): string {
  const text = typeof field.value === 'string' ? field.value : JSON.stringify(field.value);
  return text.length > 40 ? `${text.slice(0, 39)}…` : text;
}

function isPlainObject(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function depthOf(path: string): number {
  return path.split('/').length - 1;
}
