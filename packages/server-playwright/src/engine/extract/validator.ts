import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { BAPError, ErrorCodes } from '@browseragentprotocol/protocol';
import { pointerSegment, type JsonSchema } from './schema.js';

/**
 * One ajv for every call: building one compiles the meta-schema (~5 ms). Schemas are compiled
 * draft-07, without `$id`/`$schema` so two calls with the same `$id` never collide, and removed
 * again after use. `x-selector` is a known keyword whose value must be a string.
 */
const ajv = new Ajv({ strict: false, allErrors: true, logger: false });
ajv.addKeyword({ keyword: 'x-selector', schemaType: 'string' });
ajv.addFormat('uri', (s) => URL.canParse(s));
ajv.addFormat('url', (s) => URL.canParse(s));
ajv.addFormat('email', /^[^\s@]+@[^\s@]+$/);
ajv.addFormat('date', /^\d{4}-\d{2}-\d{2}$/);
ajv.addFormat('date-time', (s) => /^\d{4}-\d{2}-\d{2}T/.test(s) && !Number.isNaN(Date.parse(s)));

export interface SchemaCheck {
  /** The errors of `data` against the schema, empty when it is valid. */
  errors(data: unknown): { path: string; message: string }[];
  /** Frees the compiled schema; ajv would keep it forever. */
  release(): void;
}

/** Compiles the caller's schema, or -32602 naming `params.schema` with ajv's reason. */
export function compileSchema(schema: JsonSchema): SchemaCheck {
  const { $id: _id, $schema: _schema, ...rest } = schema;
  let validate: ValidateFunction;
  try {
    validate = ajv.compile(rest);
  } catch (error) {
    ajv.removeSchema(rest);
    const reason = error instanceof Error ? error.message : String(error);
    throw new BAPError(ErrorCodes.InvalidParams, `params.schema: not a valid JSON Schema: ${reason}`, {
      details: { field: 'params.schema' },
      recoveryHint: 'Send a JSON Schema (draft-07) object, e.g. {"type": "object", "properties": {"title": {"type": "string"}}}.',
    });
  }
  return {
    errors: (data) => (validate(data) ? [] : (validate.errors ?? []).map(describe)),
    release: () => void ajv.removeSchema(rest),
  };
}

function describe(error: ErrorObject): { path: string; message: string } {
  const missing = error.keyword === 'required' ? (error.params as { missingProperty?: string }).missingProperty : undefined;
  return { path: missing ? `${error.instancePath}/${pointerSegment(missing)}` : error.instancePath, message: error.message ?? error.keyword };
}
