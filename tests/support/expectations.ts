import { BAPError, JSONRPCErrorResponseSchema } from '@browseragentprotocol/protocol';
import { expect } from 'vitest';

export interface CaughtError {
  error: BAPError;
  elapsedMs: number;
}

/** Runs `call`, expects it to fail with a BAPError of `code`, and says how long the failure took. */
export async function expectBAPError(call: () => Promise<unknown>, code: number): Promise<CaughtError> {
  const started = performance.now();
  let outcome: unknown;
  try {
    outcome = await call();
  } catch (error) {
    const elapsedMs = performance.now() - started;
    expect(error, `expected a BAPError ${code}, got ${String(error)}`).toBeInstanceOf(BAPError);
    const bapError = error as BAPError;
    expect(bapError.code, `error ${bapError.code} "${bapError.message}"`).toBe(code);
    expect(typeof bapError.data.retryable).toBe('boolean');
    return { error: bapError, elapsedMs };
  }
  throw new Error(`expected error ${code}, the call succeeded with ${JSON.stringify(outcome)?.slice(0, 300)}`);
}

/** Asserts a raw wire reply is a well-formed JSON-RPC error with `code` and `id`. */
export function expectErrorReply(reply: unknown, code: number, id: string | number | null): void {
  const parsed = JSONRPCErrorResponseSchema.safeParse(reply);
  expect(parsed.success, `not a JSON-RPC error response with data.retryable: ${JSON.stringify(reply)}`).toBe(true);
  const message = reply as { id: unknown; error: { code: number; data: { retryable: unknown } }; result?: unknown };
  expect(message.error.code, JSON.stringify(reply)).toBe(code);
  expect(message.id).toBe(id);
  expect(typeof message.error.data.retryable).toBe('boolean');
  expect('result' in message).toBe(false);
}

/** Asserts a raw wire reply is a JSON-RPC success with `id`, and returns its result. */
export function expectResultReply(reply: unknown, id: string | number): Record<string, unknown> {
  const message = reply as { jsonrpc?: unknown; id?: unknown; result?: unknown; error?: unknown };
  expect(message, JSON.stringify(reply)).toMatchObject({ jsonrpc: '2.0', id });
  expect(message.error, JSON.stringify(reply)).toBeUndefined();
  expect(message.result).toBeTypeOf('object');
  return message.result as Record<string, unknown>;
}
