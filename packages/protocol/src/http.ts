import { z } from 'zod';
import { ViewportSchema, PageStatusSchema } from './common.js';
import { ErrorCodes, ErrorDataSchema } from './errors.js';
import type { MethodName } from './methodTable.js';
import { ModifierSchema } from './methods/action.js';
import { DialogInfoSchema } from './methods/dialog.js';
import { ConsoleLevelSchema, ConsoleMessageSchema } from './methods/observe.js';

/**
 * The REST browser-control contract (docs/http.md): every route with the zod schemas of its
 * input and output. The server validates against these and the OpenAPI document is generated
 * from them (openapi.ts), so neither re-declares a shape. A tab's `targetId` is its BAP pageId;
 * element refs (`e5` or `@e5`) come from `GET /snapshot`.
 */

/** A tab: the BAP pageId (`page-3`). */
export const TargetIdSchema = z.string().min(1).max(64).describe('A tab id from GET /tabs (its BAP pageId). Default: the active tab.');
/** An element ref printed by `GET /snapshot`, with or without the `@`. */
export const RefSchema = z.string().regex(/^@?[A-Za-z0-9_-]{1,64}$/, 'a ref such as "e5" from GET /snapshot').describe('An element ref from GET /snapshot, e.g. "e5" or "@e5".');
/** How long a hook stays armed: default and maximum two minutes; more is clamped. */
export const HOOK_MAX_MS = 120_000;
/**
 * The longest one request may wait (`timeoutMs`, wait `timeMs`): an answer comes well within
 * the 30 s common HTTP clients and proxies allow; a longer wait is several requests.
 */
export const REST_MAX_WAIT_MS = 20_000;

const targetId = { targetId: TargetIdSchema.optional() };
const timeoutMs = z
  .number()
  .int()
  .min(1)
  .max(REST_MAX_WAIT_MS)
  .optional()
  .describe(`How long to wait for the element, the action or the condition (ms, at most ${REST_MAX_WAIT_MS}); default: the server action timeout.`);
const element = { ...targetId, ref: RefSchema, timeoutMs };
const hookTimeout = z.number().int().min(1).max(86_400_000).optional().describe(`How long the arm lasts (ms); default and maximum ${HOOK_MAX_MS}, larger values are clamped.`);

export const ErrorNameSchema = z.enum([...(Object.keys(ErrorCodes) as (keyof typeof ErrorCodes)[]), 'UnknownError']);
/** Every refusal and failure: the BAP error, with an HTTP status derived from its code. */
export const HttpErrorSchema = z.object({
  error: z.object({ code: z.number().int(), name: ErrorNameSchema, message: z.string(), data: ErrorDataSchema }),
});
export type HttpError = z.infer<typeof HttpErrorSchema>;

export const RestStatusSchema = z.object({
  /** This caller's browser is up (it has a browser context). */
  running: z.boolean(),
  version: z.string(),
  protocolVersion: z.string(),
  tabs: z.number().int(),
  activeTargetId: z.string().nullable(),
});
export const TabSchema = z.object({
  targetId: z.string(),
  url: z.string(),
  title: z.string(),
  active: z.boolean(),
  status: PageStatusSchema,
  viewport: ViewportSchema.nullable(),
});
export const TabsSchema = z.object({ tabs: z.array(TabSchema), activeTargetId: z.string().nullable() });

export const EmptyBodySchema = z.strictObject({});
export const OpenTabBodySchema = z.strictObject({ url: z.string().min(1).max(8192).optional() });
export const FocusTabBodySchema = z.strictObject({ targetId: TargetIdSchema });
export const FocusTabResultSchema = z.object({ activeTargetId: z.string() });
export const CloseTabPathSchema = z.strictObject({ targetId: TargetIdSchema });
export const CloseTabResultSchema = z.object({ closed: z.string(), activeTargetId: z.string().nullable() });
export const NavigateBodySchema = z.strictObject({ ...targetId, url: z.string().min(1).max(8192) });
export const NavigateResultSchema = z.object({
  targetId: z.string(),
  url: z.string(),
  /** HTTP status of the page; null for same-document, `about:` and `data:` navigations. */
  status: z.number().int().nullable(),
});

const WAIT_CONDITIONS = ['timeMs', 'text', 'textGone', 'selector', 'url', 'loadState'] as const;

export const ActKindSchema = z.enum(['click', 'type', 'press', 'hover', 'drag', 'select', 'fill', 'wait', 'resize', 'close', 'evaluate']);
/** `POST /act`: one action, discriminated on `kind`. */
export const ActBodySchema = z.discriminatedUnion('kind', [
  z.strictObject({
    kind: z.literal('click'),
    ...element,
    doubleClick: z.boolean().optional(),
    button: z.enum(['left', 'right', 'middle']).optional(),
    modifiers: z.array(ModifierSchema).max(5).optional(),
  }),
  z.strictObject({
    kind: z.literal('type'),
    ...element,
    text: z.string().max(1_000_000),
    submit: z.boolean().optional().describe('Press Enter afterwards.'),
    slowly: z.boolean().optional().describe('Type one key at a time with a short delay, for pages that react to each key.'),
  }),
  z.strictObject({ kind: z.literal('press'), ...targetId, key: z.string().min(1).max(100).describe('A key or chord: Enter, Control+a.'), ref: RefSchema.optional(), timeoutMs }),
  z.strictObject({ kind: z.literal('hover'), ...element }),
  z.strictObject({ kind: z.literal('drag'), ...targetId, startRef: RefSchema, endRef: RefSchema, timeoutMs }),
  z.strictObject({ kind: z.literal('select'), ...element, values: z.array(z.string().max(10_000)).min(1).max(1_000).describe('Option values or labels.') }),
  z.strictObject({
    kind: z.literal('fill'),
    ...targetId,
    fields: z
      .array(z.strictObject({ ref: RefSchema, value: z.union([z.string().max(1_000_000), z.boolean()]).describe('Text for a text field; true or false checks or unchecks a checkbox or radio.') }))
      .min(1)
      .max(100),
    timeoutMs,
  }),
  z
    .strictObject({
      kind: z.literal('wait'),
      ...targetId,
      timeMs: z.number().int().min(0).max(REST_MAX_WAIT_MS).optional(),
      text: z.string().min(1).max(1_000).optional(),
      textGone: z.string().min(1).max(1_000).optional(),
      selector: z.string().min(1).max(10_000).optional().describe('A CSS selector to become visible.'),
      url: z.string().min(1).max(2048).optional().describe('A URL pattern: /regex/, glob with *, or substring.'),
      loadState: z.enum(['load', 'domcontentloaded', 'networkidle']).optional(),
      timeoutMs,
    })
    .superRefine((b, ctx) => {
      const given = WAIT_CONDITIONS.filter((k) => b[k] !== undefined);
      if (given.length !== 1) ctx.addIssue({ code: 'custom', message: `give exactly one of ${WAIT_CONDITIONS.join(', ')}${given.length ? ` (got ${given.join(', ')})` : ''}` });
    })
    // The same rule for the OpenAPI document, which cannot read the refinement.
    .meta({ oneOf: WAIT_CONDITIONS.map((k) => ({ required: [k] })) }),
  z.strictObject({ kind: z.literal('resize'), ...targetId, width: z.number().int().min(1).max(10_000), height: z.number().int().min(1).max(10_000) }),
  z.strictObject({ kind: z.literal('close'), ...targetId }),
  z.strictObject({ kind: z.literal('evaluate'), ...targetId, expression: z.string().min(1).max(1_000_000), timeoutMs }),
]);
export type ActBody = z.output<typeof ActBodySchema>;
export const ActResultSchema = z.object({
  ok: z.literal(true),
  kind: ActKindSchema,
  /** select: the values now selected. */
  selected: z.array(z.string()).optional(),
  /** evaluate: the value as JSON. */
  value: z.unknown().optional(),
  /** wait: milliseconds waited, and the URL after. */
  waitedMs: z.number().optional(),
  url: z.string().optional(),
  /** close: the tab that is active now. */
  activeTargetId: z.string().nullable().optional(),
});

export const ScreenshotBodySchema = z
  .strictObject({
    ...targetId,
    fullPage: z.boolean().optional(),
    ref: RefSchema.optional().describe('Capture only this element.'),
    element: z.string().min(1).max(10_000).optional().describe('Capture only the element this CSS selector matches.'),
    type: z.enum(['png', 'jpeg']).optional(),
  })
  .superRefine((b, ctx) => {
    if (b.ref !== undefined && b.element !== undefined) ctx.addIssue({ code: 'custom', path: ['element'], message: 'give ref or element, not both' });
    if (b.fullPage && (b.ref !== undefined || b.element !== undefined)) ctx.addIssue({ code: 'custom', path: ['fullPage'], message: 'fullPage captures the page, not an element' });
  });

export const SnapshotQuerySchema = z.object({
  format: z.enum(['ai', 'aria']).optional().describe('ai (default): with element refs; aria: the plain ARIA snapshot.'),
  ...targetId,
  limit: z.coerce.number().int().min(1).max(10_000_000).optional().describe('At most this many characters, cut at a line end.'),
});
export const SnapshotSchema = z.object({
  format: z.enum(['ai', 'aria']),
  targetId: z.string(),
  url: z.string(),
  title: z.string(),
  snapshot: z.string(),
  /** The snapshot was cut (at a line end) to `limit` characters. */
  truncated: z.boolean(),
  /** Characters of the whole snapshot. */
  totalChars: z.number().int(),
});

export const ConsoleQuerySchema = z.object({ level: ConsoleLevelSchema.optional().describe('Only messages at least this severe: debug < log = info < warn < error.'), ...targetId });
export const ConsoleSchema = z.object({ targetId: z.string(), messages: z.array(ConsoleMessageSchema), dropped: z.number().int() });
export const PdfBodySchema = z.strictObject({ ...targetId });

export const FileChooserHookBodySchema = z.strictObject({
  ...targetId,
  paths: z.array(z.string().min(1).max(4096)).min(1).max(100).describe("Files on the server's disk, inside its upload directories."),
  timeoutMs: hookTimeout,
});
export const DialogHookBodySchema = z.strictObject({
  ...targetId,
  accept: z.boolean(),
  promptText: z.string().max(100_000).optional().describe('Typed into a prompt before accepting.'),
  timeoutMs: hookTimeout,
});
export const HookResultSchema = z.object({
  /** armed: waits for the next event; handled: a dialog already open was answered. */
  status: z.enum(['armed', 'handled']),
  timeoutMs: z.number().int(),
  dialog: DialogInfoSchema.optional(),
});

export type HttpVerb = 'GET' | 'POST' | 'DELETE';
/** The statuses a route may answer with besides 200 (httpStatus in the server maps BAP error codes to them). */
export type ErrorStatus = 400 | 401 | 403 | 404 | 408 | 409 | 413 | 422 | 429;

export interface RestRoute {
  method: HttpVerb;
  /** OpenAPI form: `/tabs/{targetId}`. */
  path: string;
  summary: string;
  /** Where the input comes from, and its schema. */
  input?: { in: 'body' | 'query' | 'path'; schema: z.ZodType };
  /** A JSON body, or raw bytes of one of these media types. */
  output: { json: z.ZodType } | { binary: readonly string[] };
  errors: readonly ErrorStatus[];
  /** The BAP methods the route calls (their scopes apply). */
  calls: readonly MethodName[];
}

/** Every route may be refused: no or bad token (401), a scope or policy (403), a rate limit (429). */
const ALWAYS = [401, 403, 429] as const;
/** A route with a JSON body: bad JSON or fields (400), too large (413). */
const BODY = [...ALWAYS, 400, 413] as const;
/** Routes acting on a tab: unknown tab or ref (404), timeout or approval timeout (408), state conflicts (409), the page would not (422). */
const PAGE = [...BODY, 404, 408, 409, 422] as const;

const route = <R extends RestRoute>(r: R) => r;

/** The REST routes, by name. */
export const restRoutes = {
  status: route({ method: 'GET', path: '/', summary: 'Status: is the browser up, how many tabs, which is active.', output: { json: RestStatusSchema }, errors: ALWAYS, calls: ['context/list', 'page/list'] }),
  start: route({ method: 'POST', path: '/start', summary: 'Start the browser with one tab (nothing happens when it is up); returns the status.', input: { in: 'body', schema: EmptyBodySchema }, output: { json: RestStatusSchema }, errors: [...BODY, 408, 409, 422], calls: ['context/list', 'browser/launch', 'page/create', 'page/list'] }),
  stop: route({ method: 'POST', path: '/stop', summary: "Close the browser and this caller's tabs; returns the status.", input: { in: 'body', schema: EmptyBodySchema }, output: { json: RestStatusSchema }, errors: [...BODY, 408, 409], calls: ['browser/close', 'context/list', 'page/list'] }),
  tabs: route({ method: 'GET', path: '/tabs', summary: 'List the tabs.', output: { json: TabsSchema }, errors: ALWAYS, calls: ['page/list'] }),
  openTab: route({ method: 'POST', path: '/tabs/open', summary: 'Open a tab (at a URL) and make it active.', input: { in: 'body', schema: OpenTabBodySchema }, output: { json: TabSchema }, errors: PAGE, calls: ['page/create'] }),
  focusTab: route({ method: 'POST', path: '/tabs/focus', summary: 'Make a tab the active one.', input: { in: 'body', schema: FocusTabBodySchema }, output: { json: FocusTabResultSchema }, errors: [...BODY, 404, 408, 409], calls: ['page/activate'] }),
  closeTab: route({ method: 'DELETE', path: '/tabs/{targetId}', summary: 'Close a tab.', input: { in: 'path', schema: CloseTabPathSchema }, output: { json: CloseTabResultSchema }, errors: [...ALWAYS, 400, 404, 408, 409], calls: ['page/close'] }),
  navigate: route({ method: 'POST', path: '/navigate', summary: 'Navigate a tab and wait for the page to load.', input: { in: 'body', schema: NavigateBodySchema }, output: { json: NavigateResultSchema }, errors: PAGE, calls: ['page/navigate'] }),
  act: route({
    method: 'POST',
    path: '/act',
    summary: 'One action on a tab: click, type, press, hover, drag, select, fill, wait, resize, close or evaluate (refused unless the server allows it).',
    input: { in: 'body', schema: ActBodySchema },
    output: { json: ActResultSchema },
    errors: PAGE,
    calls: ['action/click', 'action/dblclick', 'action/type', 'action/press', 'action/hover', 'action/drag', 'action/select', 'action/fill', 'action/check', 'action/uncheck', 'page/waitFor', 'emulate/setViewport', 'page/close', 'page/evaluate'],
  }),
  screenshot: route({ method: 'POST', path: '/screenshot', summary: 'A screenshot of the viewport, the full page or one element, as image bytes.', input: { in: 'body', schema: ScreenshotBodySchema }, output: { binary: ['image/png', 'image/jpeg'] }, errors: PAGE, calls: ['observe/screenshot'] }),
  snapshot: route({ method: 'GET', path: '/snapshot', summary: 'The ARIA snapshot of a tab (YAML), with element refs in the ai format.', input: { in: 'query', schema: SnapshotQuerySchema }, output: { json: SnapshotSchema }, errors: PAGE, calls: ['observe/ariaSnapshot'] }),
  console: route({ method: 'GET', path: '/console', summary: "A tab's console messages (the last 1,000).", input: { in: 'query', schema: ConsoleQuerySchema }, output: { json: ConsoleSchema }, errors: [...ALWAYS, 400, 404, 408, 409], calls: ['observe/console'] }),
  pdf: route({ method: 'POST', path: '/pdf', summary: 'The tab printed to PDF, as bytes.', input: { in: 'body', schema: PdfBodySchema }, output: { binary: ['application/pdf'] }, errors: PAGE, calls: ['observe/pdf'] }),
  fileChooserHook: route({ method: 'POST', path: '/hooks/file-chooser', summary: "Arm the tab's next file chooser to receive these files; the last arm wins.", input: { in: 'body', schema: FileChooserHookBodySchema }, output: { json: HookResultSchema }, errors: [...BODY, 404, 408, 409], calls: ['action/armFileChooser'] }),
  dialogHook: route({ method: 'POST', path: '/hooks/dialog', summary: "Arm the answer to the tab's next dialog (or answer one waiting); the last arm wins.", input: { in: 'body', schema: DialogHookBodySchema }, output: { json: HookResultSchema }, errors: [...BODY, 404, 408, 409], calls: ['dialog/handle'] }),
  openapi: route({ method: 'GET', path: '/openapi.json', summary: 'This OpenAPI document.', output: { json: z.record(z.string(), z.unknown()) }, errors: [401], calls: [] }),
} satisfies Record<string, RestRoute>;

export type RestRoutes = typeof restRoutes;
export type RestRouteName = keyof RestRoutes;
/** What a route's handler receives once its input has been validated. */
export type RestInput<N extends RestRouteName> = RestRoutes[N] extends { input: { schema: infer S extends z.ZodType } } ? z.output<S> : Record<string, never>;
/** What a JSON route answers. */
export type RestOutput<N extends RestRouteName> = RestRoutes[N]['output'] extends { json: infer S extends z.ZodType } ? z.output<S> : never;
