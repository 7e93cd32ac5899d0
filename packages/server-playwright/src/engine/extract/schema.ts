import { words } from './names.js';

export type JsonSchema = Record<string, unknown>;
export type SchemaType = 'object' | 'array' | 'string' | 'number' | 'integer' | 'boolean' | 'null' | 'any';

/** Deeper than this, a recursive schema (through `$ref`) stops being followed. */
export const MAX_DEPTH = 12;

const isSchema = (value: unknown): value is JsonSchema => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Reads what agent/extract needs from a JSON Schema that ajv has already accepted: local
 * `$ref`s followed, `allOf` merged, the first non-null branch of `anyOf`/`oneOf` taken.
 */
export class SchemaReader {
  constructor(private readonly root: JsonSchema) {}

  resolve(schema: unknown, depth = 0): JsonSchema {
    if (!isSchema(schema) || depth > MAX_DEPTH) return {};
    if (typeof schema.$ref === 'string') {
      const { $ref, ...rest } = schema;
      return this.resolve({ ...this.pointer($ref as string), ...rest }, depth + 1);
    }
    for (const key of ['anyOf', 'oneOf'] as const) {
      const branches = schema[key];
      if (Array.isArray(branches)) {
        const branch = branches.map((b) => this.resolve(b, depth + 1)).find((b) => this.typeOf(b) !== 'null') ?? {};
        const { [key]: _, ...rest } = schema;
        return this.resolve({ ...branch, ...rest }, depth + 1);
      }
    }
    if (Array.isArray(schema.allOf)) {
      const { allOf, ...rest } = schema;
      return allOf.map((b) => this.resolve(b, depth + 1)).reduce<JsonSchema>(mergeSchemas, rest);
    }
    return schema;
  }

  typeOf(schema: JsonSchema): SchemaType {
    const declared = Array.isArray(schema.type) ? schema.type : [schema.type];
    const type = declared.find((t) => typeof t === 'string' && t !== 'null') ?? declared.find((t) => t === 'null');
    if (typeof type === 'string') return type as SchemaType;
    if (isSchema(schema.properties)) return 'object';
    if (schema.items !== undefined) return 'array';
    const example = Array.isArray(schema.enum) ? schema.enum[0] : schema.const;
    if (typeof example === 'string') return 'string';
    if (typeof example === 'number') return 'number';
    return typeof example === 'boolean' ? 'boolean' : 'any';
  }

  properties(schema: JsonSchema): [string, JsonSchema][] {
    return isSchema(schema.properties) ? Object.entries(schema.properties).map(([k, v]) => [k, this.resolve(v)]) : [];
  }

  required(schema: JsonSchema): Set<string> {
    return new Set(Array.isArray(schema.required) ? schema.required.filter((r): r is string => typeof r === 'string') : []);
  }

  items(schema: JsonSchema): JsonSchema {
    const items = Array.isArray(schema.items) ? schema.items[0] : schema.items;
    return this.resolve(items ?? schema.prefixItems);
  }

  /** A `$ref` like `#/definitions/price` (or `#/$defs/...`) inside the root schema. */
  private pointer(ref: string): JsonSchema {
    if (!ref.startsWith('#')) return {};
    let at: unknown = this.root;
    for (const part of ref.slice(1).split('/').filter(Boolean)) {
      at = isSchema(at) ? at[decodePointer(part)] : undefined;
    }
    return isSchema(at) ? at : {};
  }
}

function mergeSchemas(into: JsonSchema, next: JsonSchema): JsonSchema {
  const merged = { ...into, ...next };
  if (isSchema(into.properties) && isSchema(next.properties)) merged.properties = { ...into.properties, ...next.properties };
  if (Array.isArray(into.required) && Array.isArray(next.required)) merged.required = [...into.required, ...next.required];
  return merged;
}

/** The `x-selector` hint of a property, if it has one. */
export function hintOf(schema: JsonSchema): string | undefined {
  const hint = schema['x-selector'];
  return typeof hint === 'string' && hint.trim() ? hint : undefined;
}

/** The word lists a property answers to: its key and its `title`. */
export function namesOf(key: string, schema: JsonSchema): string[][] {
  const names = [words(key)];
  if (typeof schema.title === 'string') names.push(words(schema.title));
  return names.filter((n) => n.length > 0);
}

/** Escapes one JSON Pointer segment (RFC 6901). */
export function pointerSegment(segment: string | number): string {
  return String(segment).replaceAll('~', '~0').replaceAll('/', '~1');
}

function decodePointer(segment: string): string {
  return decodeURIComponent(segment).replaceAll('~1', '/').replaceAll('~0', '~');
}
