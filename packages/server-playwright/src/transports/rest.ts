import {
  BAPError,
  ErrorCodes,
  HOOK_MAX_MS,
  PROTOCOL_VERSION,
  buildOpenApi,
  formatZodError,
  restRoutes,
  type MethodParams,
  type MethodResult,
  type PageInfo,
  type RestInput,
  type RestOutput,
  type RestRoute,
  type RestRouteName,
} from '@browseragentprotocol/protocol';
import { SERVER_VERSION } from '../version.js';
import type { HttpContext } from './httpApi.js';
import { sendError, sendJson } from './httpErrors.js';
import { act, onPage, refSelector, type BapCall } from './restAct.js';

/** A route's answer: JSON, or bytes of a media type. */
type Reply = { json: unknown } | { bytes: Buffer; type: string };
type RouteHandler<N extends RestRouteName> = (bap: BapCall, input: RestInput<N>) => Promise<Reply>;

const json = <N extends RestRouteName>(value: RestOutput<N>): Reply => ({ json: value });

/**
 * The REST contract (docs/http.md). Each route's input is checked against its schema in the
 * protocol's route table, then the route runs as BAP calls through the caller's REST session,
 * so scopes, domain policy, approvals, redaction and the audit log apply as on the WebSocket.
 */
export async function handleRest(ctx: HttpContext): Promise<boolean> {
  const found = matchRoute(ctx.req.method ?? 'GET', ctx.path);
  if (!found) return false;
  if ('allow' in found) {
    const error = new BAPError(ErrorCodes.InvalidRequest, `Method Not Allowed: ${ctx.path} takes ${found.allow.join(', ')}.`, { retryable: false });
    sendError(ctx.res, error, 405, { allow: found.allow.join(', ') });
    return true;
  }
  const [name, route, pathParams] = found;
  const input = await readInput(ctx, route, pathParams);
  const bap: BapCall = async (method, params) => {
    const session = await ctx.restSession();
    return (await session.call(method, params as Record<string, unknown>)) as MethodResult<typeof method>;
  };
  const reply = await (handlers[name] as RouteHandler<typeof name>)(bap, input as RestInput<typeof name>);
  if ('bytes' in reply) {
    ctx.res.writeHead(200, { 'content-type': reply.type, 'content-length': reply.bytes.length });
    ctx.res.end(reply.bytes);
    return true;
  }
  if (ctx.options.validateResults && 'json' in route.output) {
    const checked = route.output.json.safeParse(reply.json);
    if (!checked.success) throw new BAPError(ErrorCodes.InternalError, `Response of ${route.method} ${route.path} does not match the contract: ${formatZodError(checked.error, 'response').message}`);
  }
  sendJson(ctx.res, 200, reply.json);
  return true;
}

/** The route for a method and path, with its path parameters; the methods the path takes when the method is wrong; null for no REST path. */
function matchRoute(method: string, path: string): [RestRouteName, RestRoute, Record<string, string>] | { allow: string[] } | null {
  const allow: string[] = [];
  for (const [name, route] of Object.entries(restRoutes) as [RestRouteName, RestRoute][]) {
    const params = matchPath(route.path, path);
    if (!params) continue;
    if (route.method === method) return [name, route, params];
    allow.push(route.method);
  }
  return allow.length ? { allow } : null;
}

/** `/tabs/{targetId}` against `/tabs/page-3` → `{targetId: 'page-3'}`. */
function matchPath(template: string, path: string): Record<string, string> | null {
  const names: string[] = [];
  const pattern = template.replace(/\{(\w+)\}/g, (_, name: string) => {
    names.push(name);
    return '([^/]*)';
  });
  const match = new RegExp(`^${pattern}$`).exec(path);
  if (!match) return null;
  try {
    return Object.fromEntries(names.map((name, i) => [name, decodeURIComponent(match[i + 1]!)]));
  } catch {
    throw new BAPError(ErrorCodes.InvalidParams, `Invalid path: ${path} is not valid percent-encoding.`, { details: { path } });
  }
}

/** The route's input from the body, query or path, validated: a 400 naming the field otherwise. */
async function readInput(ctx: HttpContext, route: RestRoute, pathParams: Record<string, string>): Promise<unknown> {
  if (!route.input) return {};
  const where = route.input.in;
  const raw = where === 'body' ? await ctx.body() : where === 'query' ? Object.fromEntries(ctx.url.searchParams) : pathParams;
  const parsed = route.input.schema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const { message, issues } = formatZodError(parsed.error, where === 'path' ? undefined : where);
  throw new BAPError(ErrorCodes.InvalidParams, `Invalid ${where}: ${message}`, { details: { issues } });
}

function tab(page: PageInfo): RestOutput<'tabs'>['tabs'][number] {
  return { targetId: page.id, url: page.url, title: page.title, active: page.active, status: page.status, viewport: page.viewport };
}

async function status(bap: BapCall): Promise<RestOutput<'status'>> {
  const [{ contexts }, { pages, activePage }] = await Promise.all([bap('context/list', {}), bap('page/list', {})]);
  return { running: contexts.length > 0, version: SERVER_VERSION, protocolVersion: PROTOCOL_VERSION, tabs: pages.length, activeTargetId: activePage };
}

/** How long a hook stays armed: asked for, clamped to two minutes. */
const hookTimeout = (timeoutMs: number | undefined) => Math.min(timeoutMs ?? HOOK_MAX_MS, HOOK_MAX_MS);

/** The snapshot cut at the last line end within `limit` characters. */
function cutAtLine(text: string, limit: number | undefined): { snapshot: string; truncated: boolean } {
  if (limit === undefined || text.length <= limit) return { snapshot: text, truncated: false };
  return { snapshot: text.slice(0, Math.max(0, text.lastIndexOf('\n', limit))), truncated: true };
}

let openApi: Record<string, unknown> | undefined;

const handlers: { [N in RestRouteName]: RouteHandler<N> } = {
  status: async (bap) => json<'status'>(await status(bap)),
  start: async (bap) => {
    if (!(await status(bap)).running) {
      await bap('browser/launch', {});
      await bap('page/create', {});
    }
    return json<'start'>(await status(bap));
  },
  stop: async (bap) => {
    await bap('browser/close', {});
    return json<'stop'>(await status(bap));
  },
  tabs: async (bap) => {
    const { pages, activePage } = await bap('page/list', {});
    return json<'tabs'>({ tabs: pages.map(tab), activeTargetId: activePage });
  },
  openTab: async (bap, b) => json<'openTab'>(tab(await bap('page/create', b.url === undefined ? {} : { url: b.url }))),
  focusTab: async (bap, b) => {
    await bap('page/activate', { pageId: b.targetId });
    return json<'focusTab'>({ activeTargetId: b.targetId });
  },
  closeTab: async (bap, p) => {
    const { activePage } = await bap('page/close', { pageId: p.targetId });
    return json<'closeTab'>({ closed: p.targetId, activeTargetId: activePage });
  },
  navigate: async (bap, b) => {
    const { pageId, url, status: code } = await bap('page/navigate', { ...onPage(b), url: b.url });
    return json<'navigate'>({ targetId: pageId, url, status: code });
  },
  act: async (bap, b) => json<'act'>(await act(bap, b)),
  screenshot: async (bap, b) => {
    const selector = b.ref !== undefined ? refSelector(b.ref) : b.element !== undefined ? ({ type: 'css', value: b.element } as const) : undefined;
    const params: MethodParams<'observe/screenshot'> = { ...onPage(b), selector, options: { fullPage: b.fullPage, format: b.type ?? 'png' } };
    const { data, format } = await bap('observe/screenshot', params);
    return { bytes: Buffer.from(data, 'base64'), type: `image/${format}` };
  },
  snapshot: async (bap, q) => {
    const format = q.format ?? 'ai';
    const result = await bap('observe/ariaSnapshot', { ...onPage(q), options: { refs: format === 'ai' } });
    const cut = cutAtLine(result.snapshot, q.limit);
    return json<'snapshot'>({ format, targetId: result.pageId, url: result.url, title: result.title, ...cut, totalChars: result.snapshot.length });
  },
  console: async (bap, q) => {
    const { pageId, messages, dropped } = await bap('observe/console', { ...onPage(q), level: q.level });
    return json<'console'>({ targetId: pageId, messages, dropped });
  },
  pdf: async (bap, b) => ({ bytes: Buffer.from((await bap('observe/pdf', onPage(b))).data, 'base64'), type: 'application/pdf' }),
  fileChooserHook: async (bap, b) => {
    const { timeout } = await bap('action/armFileChooser', { ...onPage(b), paths: b.paths, timeout: hookTimeout(b.timeoutMs) });
    return json<'fileChooserHook'>({ status: 'armed', timeoutMs: timeout });
  },
  dialogHook: async (bap, b) => {
    const timeoutMs = hookTimeout(b.timeoutMs);
    const answer = { ...onPage(b), action: b.accept ? ('accept' as const) : ('dismiss' as const), promptText: b.promptText, timeout: timeoutMs };
    const { status: state, dialog } = await bap('dialog/handle', answer);
    return json<'dialogHook'>({ status: state, timeoutMs, ...(dialog ? { dialog } : {}) });
  },
  openapi: async () => ({ json: (openApi ??= buildOpenApi()) }),
};
