import type { IncomingMessage, ServerResponse } from 'node:http';
import { BAPError, ErrorCodes } from '@browseragentprotocol/protocol';
import type { ResolvedServerOptions } from '../options.js';
import type { Caller } from '../rpc/gate.js';
import type { SessionRegistry } from '../rpc/sessions.js';
import type { ServerSecurity } from '../security/serverSecurity.js';
import { sendError, sendJson } from './httpErrors.js';
import { HttpSession } from './httpSession.js';
import { handleRest } from './rest.js';
import { handleRpc } from './rpcHttp.js';

/** An HTTP session nobody used for this long is closed (its pages with it). */
const IDLE_MS = 10 * 60_000;

/** What the HTTP route handlers get: the caller, its sessions, and the body reader. */
export interface HttpContext {
  req: IncomingMessage;
  res: ServerResponse;
  /** The path without the query string. */
  path: string;
  url: URL;
  caller: Caller;
  options: ResolvedServerOptions;
  /** The caller's REST session (one per token, or per address without tokens), opened on first use. */
  restSession(): Promise<HttpSession>;
  /** A JSON-RPC-over-HTTP session by id, if it exists and belongs to the caller. */
  rpcSession(id: string): HttpSession | undefined;
  /** A new JSON-RPC-over-HTTP session for the caller (not yet initialized). */
  newRpcSession(): HttpSession;
  /** The request body parsed as JSON (`{}` when empty); -32700 / -32600 (413) on bad or large bodies. */
  body(): Promise<unknown>;
  /** The request body as text; -32600 (413) when too large. */
  text(): Promise<string>;
}

/**
 * The HTTP surfaces next to the WebSocket: the REST contract and JSON-RPC over POST + SSE. Both
 * run through the same RpcConnection as a WebSocket client, so tokens, scopes, domain policy,
 * approvals, redaction and the audit log apply alike.
 */
export class HttpApi {
  private readonly restSessions = new Map<string, Promise<HttpSession>>();
  private readonly rpcSessions = new Map<string, HttpSession>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    private readonly registry: SessionRegistry,
    private readonly options: ResolvedServerOptions,
    private readonly security: ServerSecurity,
  ) {
    this.sweeper = setInterval(() => void this.sweep(), 60_000).unref();
  }

  /** Handles `req` if it is one of the HTTP routes; false when none matched. */
  async handle(req: IncomingMessage, res: ServerResponse): Promise<boolean> {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const auth = this.security.tokens.authenticate(req);
    const context = (caller: Caller): HttpContext => ({
      req,
      res,
      path: url.pathname,
      url,
      caller,
      options: this.options,
      restSession: () => this.restSession(caller),
      rpcSession: (id) => {
        const session = this.rpcSessions.get(id);
        return session && !session.closed && session.caller.principal.name === caller.principal.name ? session : undefined;
      },
      newRpcSession: () => {
        const session = new HttpSession(this.registry, this.options, this.security, caller);
        this.rpcSessions.set(session.id, session);
        session.onClose(() => this.rpcSessions.delete(session.id));
        return session;
      },
      body: () => readBody(req, this.options.maxMessageBytes),
      text: () => readText(req, this.options.maxMessageBytes),
    });
    const caller = 'principal' in auth ? { principal: auth.principal, remote: req.socket.remoteAddress ?? 'unknown' } : null;
    try {
      if (!isHttpRoute(url.pathname)) return false;
      if (!caller) {
        sendJson(res, 401, { error: { code: ErrorCodes.Unauthorized, name: 'Unauthorized', message: 'refusal' in auth ? auth.refusal : 'Unauthorized', data: { retryable: false } } });
        return true;
      }
      const ctx = context(caller);
      return (await handleRpc(ctx)) || (await handleRest(ctx));
    } catch (error) {
      if (res.headersSent) res.destroy();
      else sendError(res, error instanceof BAPError ? error : new BAPError(ErrorCodes.InternalError, String(error)));
      return true;
    }
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
    const sessions = [...this.rpcSessions.values(), ...(await Promise.all([...this.restSessions.values()].map((p) => p.catch(() => null))))];
    this.rpcSessions.clear();
    this.restSessions.clear();
    await Promise.all(sessions.map((s) => s?.close().catch(() => {})));
  }

  private restSession(caller: Caller): Promise<HttpSession> {
    const key = this.security.tokens.enabled ? `token:${caller.principal.name}` : `address:${caller.remote}`;
    let session = this.restSessions.get(key);
    if (!session) {
      const created = new HttpSession(this.registry, this.options, this.security, caller);
      session = created.open().then(() => created);
      session.catch(() => this.restSessions.delete(key));
      created.onClose(() => this.restSessions.delete(key));
      this.restSessions.set(key, session);
    }
    return session;
  }

  private async sweep(): Promise<void> {
    const cutoff = Date.now() - IDLE_MS;
    for (const [id, session] of this.rpcSessions) {
      if (session.lastUsed < cutoff && !session.streaming) {
        this.rpcSessions.delete(id);
        await session.close().catch(() => {});
      }
    }
  }
}

const RPC_PATHS = new Set(['/rpc', '/message', '/events']);
const REST_PATHS = new Set(['/', '/start', '/stop', '/tabs', '/tabs/open', '/tabs/focus', '/navigate', '/act', '/screenshot', '/snapshot', '/console', '/pdf', '/hooks/file-chooser', '/hooks/dialog', '/openapi.json']);

function isHttpRoute(path: string): boolean {
  return RPC_PATHS.has(path) || REST_PATHS.has(path) || path.startsWith('/tabs/');
}

/** The body as text; over `maxBytes` it is a -32600 that httpStatus maps to 413. */
async function readText(req: IncomingMessage, maxBytes: number): Promise<string> {
  const tooLarge = () => new BAPError(ErrorCodes.InvalidRequest, `Body exceeds the limit of ${maxBytes} bytes.`, { details: { limit: maxBytes } });
  if (Number(req.headers['content-length']) > maxBytes) throw tooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) throw tooLarge();
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** The body parsed as JSON, `{}` when empty. */
async function readBody(req: IncomingMessage, maxBytes: number): Promise<unknown> {
  const text = await readText(req, maxBytes);
  if (!text.trim()) return {};
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new BAPError(ErrorCodes.ParseError, `Parse error: the body is not JSON: ${(error as Error).message}`);
  }
}
