import type { ServerResponse } from 'node:http';
import { ErrorCodes, errorName, type BAPError } from '@browseragentprotocol/protocol';

/**
 * The HTTP status for a BAP error. Never a 5xx for what the caller or the page caused: bad input
 * 400, auth 401/403, unknown tab/ref/frame 404, a timeout 408, state conflicts 409, too large
 * 413, an action the page would not take 422, limits 429. Only the server's own faults are 500.
 */
export function httpStatus(error: BAPError): number {
  switch (error.code) {
    case ErrorCodes.ParseError:
    case ErrorCodes.InvalidRequest:
    case ErrorCodes.InvalidParams:
      return /exceeds the limit of \d+ bytes/.test(error.message) ? 413 : 400;
    case ErrorCodes.Unauthorized:
    case ErrorCodes.DomainNotAllowed:
    case ErrorCodes.ApprovalDenied:
      return 403;
    case ErrorCodes.MethodNotFound:
    case ErrorCodes.PageNotFound:
    case ErrorCodes.ElementNotFound:
    case ErrorCodes.ContextNotFound:
    case ErrorCodes.FrameNotFound:
    case ErrorCodes.StreamNotFound:
      return 404;
    case ErrorCodes.Timeout:
    case ErrorCodes.ApprovalTimeout:
      return 408;
    case ErrorCodes.NotInitialized:
    case ErrorCodes.AlreadyInitialized:
    case ErrorCodes.BrowserNotLaunched:
    case ErrorCodes.TargetClosed:
    case ErrorCodes.ExecutionContextDestroyed:
    case ErrorCodes.SelectorAmbiguous:
    case ErrorCodes.StreamCancelled:
    case ErrorCodes.ApprovalRequired:
      return 409;
    case ErrorCodes.ElementNotVisible:
    case ErrorCodes.ElementNotEnabled:
    case ErrorCodes.NavigationFailed:
    case ErrorCodes.ActionFailed:
    case ErrorCodes.InterceptedRequest:
      return 422;
    case ErrorCodes.ResourceLimitExceeded:
      return 429;
    default:
      return 500;
  }
}

/**
 * Writes `{error: {code, name, message, data}}` with its status (or the one given), and
 * Retry-After when waiting helps.
 */
export function sendError(res: ServerResponse, error: BAPError, status = httpStatus(error), extra: Record<string, string> = {}): void {
  const headers: Record<string, string> = { ...extra, 'content-type': 'application/json' };
  if (error.data.retryAfterMs !== undefined) headers['retry-after'] = String(Math.max(1, Math.ceil(error.data.retryAfterMs / 1000)));
  res.writeHead(status, headers);
  res.end(JSON.stringify({ error: { code: error.code, name: errorName(error.code), message: error.message, data: error.data } }));
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}
