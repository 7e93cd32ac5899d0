import { z } from 'zod';
import { HttpErrorSchema, restRoutes, type ErrorStatus, type RestRoute } from './http.js';
import { JSONRPCErrorResponseSchema, JSONRPCNotificationSchema, JSONRPCRequestSchema, JSONRPCSuccessSchema } from './jsonrpc.js';
import { methods } from './methodTable.js';
import { PROTOCOL_VERSION } from './methods/lifecycle.js';

type JsonObject = Record<string, unknown>;

const STATUS_TEXT: Record<ErrorStatus | 415, string> = {
  400: 'Bad input: the body is not JSON, or a field is wrong (the message names it).',
  401: 'No token, or an invalid or expired one, on a server with tokens.',
  403: "The token lacks a scope, the domain policy refuses the URL, an approval rule denies the action, or evaluate is disabled.",
  404: 'Unknown tab, element ref, frame or context.',
  408: 'A wait, action, navigation or approval timed out.',
  409: 'The state does not allow it (the tab closed or navigated meanwhile, a selector matched several elements, approval pending).',
  413: 'The body exceeds the message size limit.',
  415: 'The body is not sent as Content-Type: application/json.',
  422: 'The page would not: element not visible or not enabled, navigation failed, the action failed.',
  429: 'A rate limit or resource limit: wait (Retry-After, when given) or free resources.',
};

const SESSION_HEADER = 'BAP-Session-Id';
const errorRef = { $ref: '#/components/schemas/Error' };
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** A zod schema as JSON Schema 2020-12 (inline, without `$schema`). */
function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): JsonObject {
  const out = z.toJSONSchema(schema, { io, target: 'draft-2020-12', unrepresentable: 'any' }) as JsonObject;
  delete out.$schema;
  return withoutSafeIntegerBounds(out) as JsonObject;
}

/**
 * zod bounds every `.int()` by ±(2^53 − 1); JSON has no such limit, and a JSON-RPC id of 2^53
 * is echoed back as it came, so those implied bounds are left out (explicit ones stay).
 */
function withoutSafeIntegerBounds(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withoutSafeIntegerBounds);
  if (typeof node !== 'object' || node === null) return node;
  const entries = Object.entries(node).filter(([key, value]) => !((key === 'minimum' || key === 'maximum') && Math.abs(value as number) === Number.MAX_SAFE_INTEGER));
  return Object.fromEntries(entries.map(([key, value]) => [key, withoutSafeIntegerBounds(value)]));
}

function errorResponse(status: ErrorStatus | 415): JsonObject {
  const response: JsonObject = { description: STATUS_TEXT[status], content: { 'application/json': { schema: errorRef } } };
  if (status === 429) response.headers = { 'Retry-After': { description: 'Seconds to wait, when waiting helps.', schema: { type: 'integer', minimum: 1 } } };
  return response;
}

function errorResponses(statuses: readonly (ErrorStatus | 415)[]): JsonObject {
  return Object.fromEntries([...new Set(statuses)].sort().map((s) => [String(s), { $ref: `#/components/responses/E${s}` }]));
}

/** The query or path parameters of a route, one per field of its object schema. */
function parameters(where: 'query' | 'path', schema: z.ZodType): JsonObject[] {
  const { properties = {}, required = [] } = jsonSchema(schema, 'input') as { properties?: Record<string, JsonObject>; required?: string[] };
  return Object.entries(properties).map(([name, property]) => {
    const { description, ...rest } = property;
    return { name, in: where, required: where === 'path' || required.includes(name), ...(description ? { description } : {}), schema: rest };
  });
}

function operation(name: string, route: RestRoute): JsonObject {
  const scopes = route.calls.map((m) => `\`${m}\` (scope \`${methods[m].scope ?? 'none'}\`)`);
  const op: JsonObject = {
    operationId: name,
    summary: route.summary,
    ...(scopes.length ? { description: `Calls ${scopes.join(', ')}.` } : {}),
  };
  const input = route.input;
  if (input?.in === 'body') {
    // An empty body reads as `{}`: the body is optional when `{}` is valid input.
    op.requestBody = { required: !input.schema.safeParse({}).success, content: { 'application/json': { schema: jsonSchema(input.schema, 'input') } } };
  } else if (input) {
    op.parameters = parameters(input.in, input.schema);
  }
  const ok =
    'json' in route.output
      ? { description: 'OK', content: { 'application/json': { schema: jsonSchema(route.output.json, 'output') } } }
      : { description: 'OK: the bytes', content: Object.fromEntries(route.output.binary.map((type) => [type, { schema: { type: 'string', contentMediaType: type } }])) };
  op.responses = { 200: ok, ...errorResponses(route.errors) };
  return op;
}

const sessionHeader = { name: SESSION_HEADER, in: 'header', required: false, description: 'The JSON-RPC-over-HTTP session (returned by the initialize call).', schema: { type: 'string' } };
const sessionQuery = { name: 'session', in: 'query', required: false, description: `The session, for clients that cannot set ${SESSION_HEADER}.`, schema: { type: 'string' } };

function rpcPost(operationId: string): JsonObject {
  const message = { anyOf: [ref('JsonRpcRequest'), ref('JsonRpcNotification')] };
  const reply = { anyOf: [ref('JsonRpcSuccess'), ref('JsonRpcErrorResponse')] };
  return {
    operationId,
    summary: 'JSON-RPC over HTTP: one request, notification or batch; the same methods as over WebSocket.',
    parameters: [sessionHeader, sessionQuery],
    requestBody: { required: true, content: { 'application/json': { schema: { anyOf: [...message.anyOf, { type: 'array', minItems: 1, items: message }] } } } },
    responses: {
      200: {
        description: 'The JSON-RPC response (an array for a batch); JSON-RPC errors are 200 too.',
        headers: { [SESSION_HEADER]: { description: 'The session this request ran in.', schema: { type: 'string' } } },
        content: { 'application/json': { schema: { anyOf: [...reply.anyOf, { type: 'array', items: reply }] } } },
      },
      202: { description: 'The body held only notifications: no response.' },
      ...errorResponses([400, 401, 404, 413, 415, 429]),
    },
  };
}

function rpcEnd(operationId: string): JsonObject {
  return {
    operationId,
    summary: 'End a JSON-RPC-over-HTTP session (its pages close).',
    parameters: [sessionHeader, sessionQuery],
    responses: { 204: { description: 'Ended.' }, ...errorResponses([400, 401, 404]) },
  };
}

function rpcPaths(): JsonObject {
  return {
    '/rpc': {
      post: rpcPost('rpc'),
      delete: rpcEnd('rpcEnd'),
    },
    '/message': { post: rpcPost('message'), delete: rpcEnd('messageEnd') },
    '/events': {
      get: {
        operationId: 'events',
        summary: "The session's notifications as Server-Sent Events, resumable with Last-Event-ID.",
        parameters: [
          sessionHeader,
          sessionQuery,
          { name: 'Last-Event-ID', in: 'header', required: false, schema: { type: 'integer', minimum: 0 } },
          { name: 'lastEventId', in: 'query', required: false, schema: { type: 'integer', minimum: 0 } },
          { name: 'heartbeat', in: 'query', required: false, description: 'Milliseconds between pings (clamped to 1,000 to 60,000).', schema: { type: 'integer', minimum: 0 } },
        ],
        responses: {
          200: { description: 'An event stream: `id: N` and `data: <JSON-RPC notification>` per event.', content: { 'text/event-stream': { schema: { type: 'string' } } } },
          ...errorResponses([400, 401, 404]),
        },
      },
    },
  };
}

/**
 * The HTTP surfaces as an OpenAPI 3.1 document, generated from the REST route table and the
 * JSON-RPC schemas: served by the server at `GET /openapi.json`.
 */
export function buildOpenApi(): JsonObject {
  const paths: Record<string, JsonObject> = {};
  for (const [name, route] of Object.entries(restRoutes) as [string, RestRoute][]) {
    (paths[route.path] ??= {})[route.method.toLowerCase()] = operation(name, route);
  }
  const statuses: (ErrorStatus | 415)[] = [400, 401, 403, 404, 408, 409, 413, 415, 422, 429];
  return {
    openapi: '3.1.0',
    info: {
      title: 'Browser Agent Protocol over HTTP',
      version: PROTOCOL_VERSION,
      description: 'REST browser control (docs/http.md) and JSON-RPC over HTTP. Every route runs BAP methods as a WebSocket client would: tokens, scopes, domain policy, approvals, redaction and the audit log apply.',
    },
    security: [{}, { bearer: [] }, { tokenHeader: [] }, { tokenQuery: [] }],
    paths: { ...paths, ...rpcPaths() },
    components: {
      schemas: {
        Error: jsonSchema(HttpErrorSchema, 'output'),
        JsonRpcRequest: jsonSchema(JSONRPCRequestSchema, 'input'),
        JsonRpcNotification: jsonSchema(JSONRPCNotificationSchema, 'input'),
        JsonRpcSuccess: jsonSchema(JSONRPCSuccessSchema, 'output'),
        JsonRpcErrorResponse: jsonSchema(JSONRPCErrorResponseSchema, 'output'),
      },
      responses: Object.fromEntries(statuses.map((s) => [`E${s}`, errorResponse(s)])),
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', description: 'A token from the server’s tokens file (not needed on loopback without tokens).' },
        tokenHeader: { type: 'apiKey', in: 'header', name: 'X-BAP-Token' },
        tokenQuery: { type: 'apiKey', in: 'query', name: 'token' },
      },
    },
  };
}
