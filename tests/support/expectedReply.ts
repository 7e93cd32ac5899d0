import {
  ErrorCodes,
  JSONRPCNotificationSchema,
  JSONRPCRequestSchema,
  RequestIdSchema,
  formatZodError,
  isMethodName,
  methods,
  type RequestId,
} from '@browseragentprotocol/protocol';

/**
 * The reply a frame must get, decided by the protocol package's own schemas (`JSONRPCRequestSchema`,
 * `JSONRPCNotificationSchema`, `methods`, `formatZodError`), never by knowledge of the server.
 */
export type Expected =
  /** One error reply; `ids` lists the acceptable reply ids, `field` what the message must name. */
  | { kind: 'error'; codes: number[]; ids: Array<RequestId | null>; field?: string }
  /** One array reply with these errors, in any order. */
  | { kind: 'batch'; items: Array<{ codes: number[]; ids: Array<RequestId | null> }> }
  | { kind: 'result'; id: RequestId }
  | { kind: 'none' }
  /** A binary frame: an error reply with id null, or the connection closed as unsupported/invalid data. */
  | { kind: 'binary' }
  /**
   * Far over maxMessageBytes (more than the server buffers to answer): a -32600 reply with id null,
   * or the connection closed with 1009 (message too big).
   */
  | { kind: 'tooBig' };

/** What the protocol says a text frame must get back, on an initialized or a fresh connection. */
export function classify(text: string, initialized: boolean): Expected {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { kind: 'error', codes: [ErrorCodes.ParseError], ids: [null] };
  }
  if (!Array.isArray(value)) return classifyObject(value, initialized);
  if (value.length === 0) return { kind: 'error', codes: [ErrorCodes.InvalidRequest], ids: [null] };
  const items: Array<{ codes: number[]; ids: Array<RequestId | null> }> = [];
  for (const element of value) {
    const expected = classifyObject(element, initialized);
    if (expected.kind === 'none') continue;
    if (expected.kind !== 'error') throw new Error(`batch entry would succeed (${expected.kind}): ${text}`);
    items.push({ codes: expected.codes, ids: expected.ids });
  }
  return items.length === 0 ? { kind: 'none' } : { kind: 'batch', items };
}

function classifyObject(value: unknown, initialized: boolean): Expected {
  const request = JSONRPCRequestSchema.safeParse(value);
  if (request.success) {
    const { id, method } = request.data;
    if (!isMethodName(method)) {
      if (!initialized) throw new Error(`ambiguous: unknown method ${method} before initialize`);
      return { kind: 'error', codes: [ErrorCodes.MethodNotFound], ids: [id] };
    }
    if (!initialized && method !== 'initialize') {
      return { kind: 'error', codes: [ErrorCodes.NotInitialized], ids: [id] };
    }
    if (hasOwnProtoKey((value as { params?: unknown }).params)) {
      // zod takes `__proto__` for a known key of every object shape; for the protocol it is an unknown field.
      return { kind: 'error', codes: [ErrorCodes.InvalidParams], ids: [id], field: '__proto__' };
    }
    const params = methods[method].params.safeParse(request.data.params ?? {});
    if (initialized && method === 'initialize') {
      const codes = params.success ? [ErrorCodes.AlreadyInitialized] : [ErrorCodes.AlreadyInitialized, ErrorCodes.InvalidParams];
      return { kind: 'error', codes, ids: [id] };
    }
    if (params.success) return { kind: 'result', id };
    return { kind: 'error', codes: [ErrorCodes.InvalidParams], ids: [id], field: formatZodError(params.error).issues[0]!.path };
  }
  if (JSONRPCNotificationSchema.safeParse(value).success) return { kind: 'none' };
  const id = typeof value === 'object' && value !== null && 'id' in value ? (value as { id: unknown }).id : undefined;
  const validId = RequestIdSchema.safeParse(id);
  // The specification asks for id null when the id could not be read; echoing a readable id is also fine.
  return { kind: 'error', codes: [ErrorCodes.InvalidRequest], ids: validId.success ? [null, validId.data] : [null] };
}

function hasOwnProtoKey(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  if (Object.hasOwn(value, '__proto__')) return true;
  return Object.values(value).some(hasOwnProtoKey);
}
