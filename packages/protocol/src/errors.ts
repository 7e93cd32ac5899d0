import { z } from 'zod';

/** JSON-RPC and BAP error codes, as published in the BAP catalogue (WIRE.md). */
export const ErrorCodes = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  ServerError: -32000,
  NotInitialized: -32001,
  AlreadyInitialized: -32002,
  Unauthorized: -32003,
  BrowserNotLaunched: -32010,
  PageNotFound: -32011,
  ElementNotFound: -32012,
  ElementNotVisible: -32013,
  ElementNotEnabled: -32014,
  NavigationFailed: -32015,
  Timeout: -32016,
  TargetClosed: -32017,
  ExecutionContextDestroyed: -32018,
  SelectorAmbiguous: -32020,
  ActionFailed: -32021,
  InterceptedRequest: -32022,
  ContextNotFound: -32023,
  ResourceLimitExceeded: -32024,
  ApprovalDenied: -32030,
  ApprovalTimeout: -32031,
  ApprovalRequired: -32032,
  FrameNotFound: -32040,
  DomainNotAllowed: -32041,
  StreamNotFound: -32050,
  StreamCancelled: -32051,
} as const;

export type ErrorName = keyof typeof ErrorCodes;
export type ErrorCode = (typeof ErrorCodes)[ErrorName];

const NAMES = new Map<number, ErrorName>(
  Object.entries(ErrorCodes).map(([name, code]) => [code, name as ErrorName]),
);

/** Codes whose failure may succeed when the same call is simply tried again later. */
const RETRYABLE = new Set<number>([
  ErrorCodes.ServerError,
  ErrorCodes.ElementNotFound,
  ErrorCodes.ElementNotVisible,
  ErrorCodes.ElementNotEnabled,
  ErrorCodes.NavigationFailed,
  ErrorCodes.Timeout,
  ErrorCodes.ExecutionContextDestroyed,
  ErrorCodes.ResourceLimitExceeded,
  ErrorCodes.ApprovalTimeout,
]);

export function errorName(code: number): ErrorName | 'UnknownError' {
  return NAMES.get(code) ?? 'UnknownError';
}

export function isRetryable(code: number): boolean {
  return RETRYABLE.has(code);
}

export const ErrorDataSchema = z.object({
  retryable: z.boolean(),
  retryAfterMs: z.number().int().nonnegative().optional(),
  details: z.unknown().optional(),
  recoveryHint: z.string().optional(),
});
export type ErrorData = z.infer<typeof ErrorDataSchema>;

export const ErrorObjectSchema = z.object({
  code: z.number().int(),
  message: z.string(),
  data: ErrorDataSchema,
});
export type ErrorObject = z.infer<typeof ErrorObjectSchema>;

export interface BAPErrorOptions {
  retryable?: boolean;
  retryAfterMs?: number;
  details?: unknown;
  recoveryHint?: string;
}

/**
 * The one wire error class. Servers throw it; clients rebuild it from the wire with
 * {@link BAPError.fromWire}, so `instanceof BAPError` and `.name` work on both sides.
 */
export class BAPError extends Error {
  readonly code: number;
  readonly data: ErrorData;

  constructor(code: number, message: string, options: BAPErrorOptions = {}) {
    super(message);
    this.code = code;
    this.name = errorName(code);
    const data: ErrorData = { retryable: options.retryable ?? isRetryable(code) };
    if (options.retryAfterMs !== undefined) data.retryAfterMs = options.retryAfterMs;
    if (options.details !== undefined) data.details = options.details;
    if (options.recoveryHint !== undefined) data.recoveryHint = options.recoveryHint;
    this.data = data;
  }

  get retryable(): boolean {
    return this.data.retryable;
  }

  get recoveryHint(): string | undefined {
    return this.data.recoveryHint;
  }

  toWire(): ErrorObject {
    return { code: this.code, message: this.message, data: this.data };
  }

  static fromWire(error: { code: number; message: string; data?: unknown }): BAPError {
    const parsed = ErrorDataSchema.safeParse(error.data);
    const data = parsed.success ? parsed.data : { retryable: isRetryable(error.code) };
    return new BAPError(error.code, error.message, data);
  }

  static is(error: unknown, code?: number): error is BAPError {
    return error instanceof BAPError && (code === undefined || error.code === code);
  }
}
