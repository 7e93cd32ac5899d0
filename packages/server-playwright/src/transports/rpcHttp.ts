import type { ServerResponse } from 'node:http';
import { BAPError, ErrorCodes, type JSONRPCResponse } from '@browseragentprotocol/protocol';
import type { HttpContext } from './httpApi.js';
import { sendError } from './httpErrors.js';
import type { HttpSession, SseEvent } from './httpSession.js';

/** The response and request header naming a JSON-RPC-over-HTTP session (also `?session=`). */
export const SESSION_HEADER = 'BAP-Session-Id';

/** SSE heartbeat (a `: ping` comment): the default, and the bounds `?heartbeat=ms` is clamped to. */
const HEARTBEAT_MS = { default: 15_000, min: 1_000, max: 60_000 };

/**
 * Bytes an SSE stream may have queued, unsent, before it is ended: a reader that stopped reading
 * reconnects with Last-Event-ID and is replayed from the session's buffer instead of growing ours.
 */
const MAX_QUEUED_BYTES = 8 * 1024 * 1024;

/**
 * JSON-RPC over HTTP: `POST /rpc` (alias `/message`) carries requests, notifications and batches
 * through an HttpSession; `DELETE /rpc` ends the session; `GET /events` streams its notifications
 * as Server-Sent Events, resumable with Last-Event-ID.
 */
export async function handleRpc(ctx: HttpContext): Promise<boolean> {
  const method = ctx.req.method ?? 'GET';
  if (ctx.path === '/rpc' || ctx.path === '/message') {
    if (method === 'POST') await post(ctx);
    else if (method === 'DELETE') await remove(ctx);
    else notAllowed(ctx.res, 'POST, DELETE');
    return true;
  }
  if (ctx.path === '/events') {
    if (method === 'GET') events(ctx);
    else notAllowed(ctx.res, 'GET');
    return true;
  }
  return false;
}

/**
 * Runs the body through the session named by the header, or a new one. A new session is kept
 * only if the body initialized it; otherwise its replies (NotInitialized, parse errors) are sent
 * without a session id, so stray requests do not pile up sessions.
 */
async function post(ctx: HttpContext): Promise<void> {
  const { req, res } = ctx;
  if (!isJson(req.headers['content-type'])) {
    return sendError(res, new BAPError(ErrorCodes.InvalidRequest, 'Unsupported Media Type: send the JSON-RPC message with Content-Type: application/json.', { details: { header: 'Content-Type' } }), 415);
  }
  const id = sessionId(ctx);
  const existing = id === null ? undefined : found(ctx, id);
  if (id !== null && !existing) return notFound(res, id);
  const text = await ctx.text();
  const session = existing ?? ctx.newRpcSession();
  const replies = await session.exchange(text);
  const message = parse(text);
  if (!existing && !initializes(message, replies)) await session.close();
  const headers: Record<string, string> = { 'cache-control': 'no-store' };
  if (!session.closed) headers[SESSION_HEADER] = session.id;
  if (!replies.length) {
    res.writeHead(202, headers);
    res.end();
    return;
  }
  const body = isBatch(message, ctx.options.maxBatchSize) ? replies : replies[0];
  res.writeHead(200, { ...headers, 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

/** Ends the session as `shutdown` would (pages closed), then forgets it: 204. */
async function remove(ctx: HttpContext): Promise<void> {
  const id = sessionId(ctx);
  if (id === null) return missingSession(ctx.res);
  const session = found(ctx, id);
  if (!session) return notFound(ctx.res, id);
  // Not initialized, or already shut down by the client: nothing left to end but the connection.
  await session.call('shutdown', {}).catch(() => {});
  await session.close();
  ctx.res.writeHead(204);
  ctx.res.end();
}

/** Streams the session's notifications: those after Last-Event-ID first, then each new one. */
function events(ctx: HttpContext): void {
  const { req, res, url } = ctx;
  const id = sessionId(ctx);
  if (id === null) return missingSession(res);
  const session = found(ctx, id);
  if (!session) return notFound(res, id);
  const heartbeat = integerParam(url.searchParams.get('heartbeat'), 'heartbeat');
  const lastHeader = req.headers['last-event-id'];
  const afterId = integerParam(typeof lastHeader === 'string' ? lastHeader : url.searchParams.get('lastEventId'), 'Last-Event-ID') ?? 0;
  const interval = Math.min(HEARTBEAT_MS.max, Math.max(HEARTBEAT_MS.min, heartbeat ?? HEARTBEAT_MS.default));

  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-store',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
    [SESSION_HEADER]: session.id,
  });
  const write = (chunk: string) => {
    if (res.writableEnded) return;
    res.write(chunk);
    if (res.writableLength > MAX_QUEUED_BYTES) res.end();
  };
  // A first line at once: the client knows the stream is open before any notification.
  write(': connected\n\n');
  // The stream ends with its session: DELETE, or another connection taking the session over.
  const stopOnClose = session.onClose(() => res.end());
  const unsubscribe = session.subscribe(afterId, (event: SseEvent) => write(`id: ${event.id}\ndata: ${event.data}\n\n`));
  const timer = setInterval(() => write(': ping\n\n'), interval);
  res.once('close', () => {
    clearInterval(timer);
    unsubscribe();
    stopOnClose();
  });
}

/** The session id from the header, or `?session=`; null when neither is given. */
function sessionId(ctx: HttpContext): string | null {
  const header = ctx.req.headers[SESSION_HEADER.toLowerCase()];
  if (typeof header === 'string' && header) return header;
  return ctx.url.searchParams.get('session') || null;
}

/** The caller's live session `id` (someone else's is as unknown as one that never existed). */
function found(ctx: HttpContext, id: string): HttpSession | undefined {
  return ctx.rpcSession(id);
}

/** Whether the replies hold a successful result for an `initialize` request in `message`. */
function initializes(message: unknown, replies: JSONRPCResponse[]): boolean {
  const items = (Array.isArray(message) ? message : [message]).filter((m): m is Record<string, unknown> => typeof m === 'object' && m !== null);
  const ids = new Set(items.flatMap((m) => (m.method === 'initialize' && m.id !== undefined ? [m.id] : [])));
  return replies.some((r) => ids.has(r.id) && 'result' in r);
}

/** A batch the connection answers with an array: non-empty and within the batch limit (else one error object). */
function isBatch(message: unknown, maxBatchSize: number): boolean {
  return Array.isArray(message) && message.length > 0 && message.length <= maxBatchSize;
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function isJson(contentType: string | undefined): boolean {
  return contentType?.split(';')[0]?.trim().toLowerCase() === 'application/json';
}

/** A non-negative integer query value or header; absent is undefined, anything else a 400. */
function integerParam(value: string | null | undefined, name: string): number | undefined {
  if (value === null || value === undefined || value === '') return undefined;
  if (!/^\d{1,15}$/.test(value.trim())) {
    throw new BAPError(ErrorCodes.InvalidParams, `Invalid params: ${name} must be a non-negative integer, got "${value}".`, { details: { field: name } });
  }
  return Number(value.trim());
}

function missingSession(res: ServerResponse): void {
  sendError(res, new BAPError(ErrorCodes.InvalidRequest, `Invalid Request: this route needs a session: send the ${SESSION_HEADER} header (or ?session=).`, {
    details: { header: SESSION_HEADER },
    recoveryHint: 'POST /rpc an initialize request without the header; the reply carries the new session id.',
  }));
}

function notFound(res: ServerResponse, id: string): void {
  const error = new BAPError(ErrorCodes.InvalidRequest, `Session not found: no session "${id}" for this caller; it ended, expired, or belongs to another token.`, {
    details: { header: SESSION_HEADER },
    recoveryHint: 'Start a new session: POST /rpc an initialize request without the header.',
  });
  sendError(res, error, 404);
}

function notAllowed(res: ServerResponse, allow: string): void {
  sendError(res, new BAPError(ErrorCodes.InvalidRequest, `Method Not Allowed: this route takes ${allow}.`), 405, { allow });
}

