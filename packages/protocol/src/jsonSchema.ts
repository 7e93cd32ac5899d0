import { z } from 'zod';
import { ErrorCodes, ErrorObjectSchema } from './errors.js';
import { methods } from './methodTable.js';
import { notifications } from './notifications.js';
import { AccessibilityNodeSchema } from './methods/observe.js';
import { SelectorSchema } from './selectors.js';
import { StreamStartResultSchema } from './methods/stream.js';

type JsonObject = Record<string, unknown>;

/** A JSON Pointer to a definition; method names contain `/`, which pointers spell `~1`. */
const ref = (id: string) => `#/$defs/${id.replaceAll('~', '~0').replaceAll('/', '~1')}`;

/**
 * The whole protocol as one JSON Schema document: `$defs` holds every method's params
 * (as accepted) and result (as sent), every notification and the shared types (Selector,
 * AccessibilityNode, Error, referenced rather than repeated); `x-bap` carries the method table
 * (scope, mutating, lane) for generators and docs.
 */
export function buildJsonSchema(): JsonObject {
  const build = () => {
    const registry = z.registry<{ id: string }>();
    registry.add(SelectorSchema, { id: 'Selector' });
    registry.add(AccessibilityNodeSchema, { id: 'AccessibilityNode' });
    registry.add(ErrorObjectSchema, { id: 'Error' });
    registry.add(StreamStartResultSchema, { id: 'StreamStart' });
    return registry;
  };
  const input = build();
  const output = build();
  const table: JsonObject = {};
  const registered = new Set<z.ZodType>();
  for (const [name, spec] of Object.entries(methods)) {
    // Several methods share one schema object: the first registers it (so agent/act's steps can
    // refer to it), the others a clone of their own.
    input.add(registered.has(spec.params) ? spec.params.clone() : spec.params, { id: `${name}.params` });
    registered.add(spec.params);
    output.add(spec.result.clone(), { id: `${name}.result` });
    table[name] = {
      params: { $ref: ref(`${name}.params`) },
      result: { $ref: ref(`${name}.result`) },
      scope: spec.scope,
      mutating: spec.mutating,
      lane: spec.lane,
      description: spec.description,
      ...(spec.stream ? { stream: { field: spec.stream.field, encoding: spec.stream.encoding, result: { $ref: ref('StreamStart') } } } : {}),
    };
  }
  const notes: JsonObject = {};
  for (const [name, schema] of Object.entries(notifications)) {
    output.add(schema.clone(), { id: `${name}.params` });
    notes[name] = { params: { $ref: ref(`${name}.params`) } };
  }
  const defs = (registry: ReturnType<typeof build>, io: 'input' | 'output') => {
    const { schemas } = z.toJSONSchema(registry, {
      io,
      unrepresentable: 'any',
      target: 'draft-2020-12',
      uri: ref,
    }) as { schemas: Record<string, JsonObject> };
    for (const schema of Object.values(schemas)) {
      delete schema.$schema;
      delete schema.$id;
    }
    return schemas;
  };
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: 'https://browseragentprotocol.org/schema/bap.schema.json',
    title: 'Browser Agent Protocol',
    'x-bap': { methods: table, notifications: notes, errorCodes: ErrorCodes },
    $defs: { ...defs(output, 'output'), ...defs(input, 'input') },
  };
}
