import { z } from 'zod';
import { EmptyParamsSchema, EmptyResultSchema, PageInfoSchema } from './common.js';
import * as action from './methods/action.js';
import * as agent from './methods/agent.js';
import * as approval from './methods/approval.js';
import * as browser from './methods/browser.js';
import * as context from './methods/context.js';
import * as dialog from './methods/dialog.js';
import * as discovery from './methods/discovery.js';
import * as emulate from './methods/emulate.js';
import * as files from './methods/files.js';
import * as frame from './methods/frame.js';
import * as network from './methods/network.js';
import * as storage from './methods/storage.js';
import * as trace from './methods/trace.js';
import * as lifecycle from './methods/lifecycle.js';
import * as observe from './methods/observe.js';
import * as page from './methods/page.js';
import * as stream from './methods/stream.js';

/**
 * How a request is ordered against the others on its connection: `page` requests run in order
 * per page (different pages run in parallel); `session` requests change what the pages are and
 * wait for everything before them, and everything after waits for them; `immediate` requests
 * run on arrival, because they unblock requests already running (a dialog, a paused request).
 */
export type Lane = 'page' | 'session' | 'immediate';

export interface MethodSpec<P extends z.ZodType = z.ZodType, R extends z.ZodType = z.ZodType> {
  params: P;
  result: R;
  /** Scope a token needs; null for the handshake methods every client may call. */
  scope: string | null;
  /** Changes browser or page state (and so goes through approval and audit). */
  mutating: boolean;
  lane: Lane;
  description: string;
  /** With `stream: true` the result's payload field goes out as stream/chunk notifications. */
  stream?: StreamSpec;
}

/** Which field of a result a stream carries, how it is encoded, and its media type. */
export interface StreamSpec {
  field: string;
  encoding: 'base64' | 'utf8';
  contentType: (result: Record<string, unknown>) => string;
}

const streams = {
  image: { field: 'data', encoding: 'base64', contentType: (r) => `image/${String(r.format)}` },
  pdf: { field: 'data', encoding: 'base64', contentType: () => 'application/pdf' },
  download: { field: 'data', encoding: 'base64', contentType: () => 'application/octet-stream' },
  html: { field: 'html', encoding: 'utf8', contentType: () => 'text/html; charset=utf-8' },
  snapshot: { field: 'snapshot', encoding: 'utf8', contentType: () => 'text/yaml; charset=utf-8' },
  content: {
    field: 'content',
    encoding: 'utf8',
    contentType: (r) => `${({ markdown: 'text/markdown', html: 'text/html' } as Record<string, string>)[String(r.format)] ?? 'text/plain'}; charset=utf-8`,
  },
} satisfies Record<string, StreamSpec>;

function method<P extends z.ZodType, R extends z.ZodType>(
  spec: Omit<MethodSpec<P, R>, 'scope'> & { scope?: string | null },
  name: string,
): MethodSpec<P, R> {
  return { ...spec, scope: spec.scope === undefined ? name.replace('/', ':') : spec.scope };
}

const actionMethod = <P extends z.ZodType, R extends z.ZodType = typeof EmptyResultSchema>(
  name: string,
  params: P,
  description: string,
  result?: R,
) =>
  method(
    { params, result: (result ?? EmptyResultSchema) as R, mutating: true, lane: 'page', description },
    name,
  );

/** A table entry in one line: params, result, mutating, lane, description. */
const entry = <P extends z.ZodType, R extends z.ZodType>(
  name: string,
  params: P,
  result: R,
  mutating: boolean,
  lane: Lane,
  description: string,
) => method({ params, result, mutating, lane, description }, name);

const baseMethods = {
  initialize: method(
    {
      params: lifecycle.InitializeParamsSchema,
      result: lifecycle.InitializeResultSchema,
      scope: null,
      mutating: false,
      lane: 'session',
      description: 'Open the session: negotiate version, capabilities and limits. Must be the first request.',
    },
    'initialize',
  ),
  shutdown: method(
    {
      params: lifecycle.ShutdownParamsSchema,
      result: EmptyResultSchema,
      scope: null,
      mutating: true,
      lane: 'session',
      description: "End the session and close this connection's pages (unless closePages is false).",
    },
    'shutdown',
  ),
  'events/subscribe': method(
    {
      params: lifecycle.SubscribeParamsSchema,
      result: lifecycle.SubscribeResultSchema,
      scope: null,
      mutating: false,
      lane: 'session',
      description: 'Choose which notifications (events/page, events/console, …) this connection receives.',
    },
    'events/subscribe',
  ),
  'browser/launch': method(
    {
      params: browser.BrowserLaunchParamsSchema,
      result: browser.BrowserLaunchResultSchema,
      mutating: true,
      lane: 'session',
      description: 'Launch (or attach to) a browser for this session. Optional: the first page call launches one.',
    },
    'browser/launch',
  ),
  'browser/close': method(
    {
      params: browser.BrowserCloseParamsSchema,
      result: EmptyResultSchema,
      mutating: true,
      lane: 'session',
      description: "Close this session's browser context and pages; the browser closes when no session uses it.",
    },
    'browser/close',
  ),
  'page/create': method(
    {
      params: page.PageCreateParamsSchema,
      result: PageInfoSchema,
      mutating: true,
      lane: 'session',
      description: 'Open a new page (tab), optionally navigating it; it becomes the active page.',
    },
    'page/create',
  ),
  'page/navigate': method(
    {
      params: page.PageNavigateParamsSchema,
      result: page.NavigationResultSchema,
      mutating: true,
      lane: 'page',
      description: 'Navigate a page to a URL and wait for it to load.',
    },
    'page/navigate',
  ),
  'page/reload': method(
    {
      params: page.PageHistoryParamsSchema,
      result: page.PageHistoryResultSchema,
      mutating: true,
      lane: 'page',
      description: 'Reload a page.',
    },
    'page/reload',
  ),
  'page/goBack': method(
    {
      params: page.PageHistoryParamsSchema,
      result: page.PageHistoryResultSchema,
      mutating: true,
      lane: 'page',
      description: 'Go back in history; `navigated: false` when there is nothing to go back to.',
    },
    'page/goBack',
  ),
  'page/goForward': method(
    {
      params: page.PageHistoryParamsSchema,
      result: page.PageHistoryResultSchema,
      mutating: true,
      lane: 'page',
      description: 'Go forward in history; `navigated: false` when there is nothing to go forward to.',
    },
    'page/goForward',
  ),
  'page/close': method(
    {
      params: page.PageCloseParamsSchema,
      result: page.PageCloseResultSchema,
      mutating: true,
      lane: 'session',
      description: 'Close a page; the most recently active remaining page becomes active.',
    },
    'page/close',
  ),
  'page/list': method(
    {
      params: EmptyParamsSchema,
      result: page.PageListResultSchema,
      mutating: false,
      lane: 'session',
      description: "List this session's pages and the active one.",
    },
    'page/list',
  ),
  'page/activate': method(
    {
      params: page.PageActivateParamsSchema,
      result: EmptyResultSchema,
      mutating: true,
      lane: 'session',
      description: 'Make a page the active one (the target of calls without pageId) and bring it to front.',
    },
    'page/activate',
  ),
  'page/waitFor': entry(
    'page/waitFor',
    page.PageWaitForParamsSchema,
    page.PageWaitForResultSchema,
    false,
    'page',
    'Wait for text to appear or go, an element state, a URL, a load state, or a number of milliseconds.',
  ),
  'page/evaluate': method(
    {
      params: page.PageEvaluateParamsSchema,
      result: page.PageEvaluateResultSchema,
      scope: 'eval',
      mutating: true,
      lane: 'page',
      description: 'Run a JavaScript expression in the page and return its value as JSON. Needs the eval scope and a server started with allowEvaluate.',
    },
    'page/evaluate',
  ),
  'action/click': actionMethod('action/click', action.ClickParamsSchema, 'Click an element.'),
  'action/dblclick': actionMethod('action/dblclick', action.ClickParamsSchema, 'Double-click an element.'),
  'action/type': actionMethod(
    'action/type',
    action.TypeParamsSchema,
    'Type text key by key into an element (fires key events); see action/fill for setting a value at once.',
  ),
  'action/fill': actionMethod('action/fill', action.FillParamsSchema, 'Set the value of an input, textarea or editable.'),
  'action/clear': actionMethod('action/clear', action.ElementActionParamsSchema, 'Empty an input, textarea or editable.'),
  'action/press': actionMethod(
    'action/press',
    action.PressParamsSchema,
    'Press a key or chord (`Enter`, `Control+a`), on an element or on whatever has focus.',
  ),
  'action/hover': actionMethod('action/hover', action.HoverParamsSchema, 'Move the mouse over an element.'),
  'action/scroll': actionMethod(
    'action/scroll',
    action.ScrollParamsSchema,
    'Scroll the page or an element by a direction and amount, or bring an element into view.',
    action.ScrollResultSchema,
  ),
  'action/select': actionMethod(
    'action/select',
    action.SelectParamsSchema,
    'Select options of a <select> by value or label.',
    action.SelectResultSchema,
  ),
  'action/check': actionMethod('action/check', action.ElementActionParamsSchema, 'Check a checkbox or radio button.'),
  'action/uncheck': actionMethod('action/uncheck', action.ElementActionParamsSchema, 'Uncheck a checkbox.'),
  'action/drag': actionMethod('action/drag', action.DragParamsSchema, 'Drag an element onto another element or point.'),
  'action/upload': actionMethod(
    'action/upload',
    files.UploadParamsSchema,
    'Put files into a file input, or into the file chooser that clicking the element opens.',
    files.UploadResultSchema,
  ),
  'action/armFileChooser': entry(
    'action/armFileChooser',
    files.ArmFileChooserParamsSchema,
    files.ArmFileChooserResultSchema,
    true,
    'immediate',
    'Arm the next file chooser of a page to receive server-side files, for the click that opens it; the last arm wins.',
  ),
  'observe/screenshot': method(
    {
      params: observe.ScreenshotParamsSchema,
      result: observe.ScreenshotResultSchema,
      mutating: false,
      lane: 'page',
      description: 'Capture the viewport, the full page, a clip or one element as PNG, JPEG or WebP (base64).',
      stream: streams.image,
    },
    'observe/screenshot',
  ),
  'observe/accessibility': method(
    {
      params: observe.AccessibilityParamsSchema,
      result: observe.SnapshotResultSchema,
      mutating: false,
      lane: 'page',
      description: 'The accessibility tree as JSON (with refs), plus the same tree as an AI snapshot.',
    },
    'observe/accessibility',
  ),
  'observe/ariaSnapshot': method(
    {
      params: observe.AriaSnapshotParamsSchema,
      result: observe.SnapshotResultSchema,
      mutating: false,
      lane: 'page',
      description: 'Playwright AI snapshot (YAML) with refs such as @e5 usable as {type:"ref"} selectors.',
      stream: streams.snapshot,
    },
    'observe/ariaSnapshot',
  ),
  'observe/dom': method(
    {
      params: observe.DomParamsSchema,
      result: observe.DomResultSchema,
      mutating: false,
      lane: 'page',
      description: 'Serialized HTML and text of the page or of one element (secret field values removed).',
      stream: streams.html,
    },
    'observe/dom',
  ),
  'observe/element': method(
    {
      params: observe.ElementParamsSchema,
      result: observe.ElementResultSchema,
      mutating: false,
      lane: 'page',
      description: 'Properties of one element: found, visible, enabled, text, value, bounds, role, name, …',
    },
    'observe/element',
  ),
  'observe/content': method(
    {
      params: observe.ContentParamsSchema,
      result: observe.ContentResultSchema,
      mutating: false,
      lane: 'page',
      description: 'Readable content of the page as text, markdown or html.',
      stream: streams.content,
    },
    'observe/content',
  ),
  'observe/console': entry(
    'observe/console',
    observe.ConsoleParamsSchema,
    observe.ConsoleResultSchema,
    false,
    'page',
    "The page's console messages the server kept (the last 1,000), optionally only those at least as severe as a level.",
  ),
  'observe/pdf': method(
    {
      params: observe.PdfParamsSchema,
      result: observe.PdfResultSchema,
      mutating: false,
      lane: 'page',
      description: 'Print the page to PDF (base64).',
      stream: streams.pdf,
    },
    'observe/pdf',
  ),
  'context/create': entry(
    'context/create',
    context.ContextCreateParamsSchema,
    context.ContextCreateResultSchema,
    true,
    'session',
    'Create an isolated browser context (own cookies, storage, cache) with optional emulation settings.',
  ),
  'context/list': entry(
    'context/list',
    EmptyParamsSchema,
    context.ContextListResultSchema,
    false,
    'session',
    "This session's contexts, with page counts and limits.",
  ),
  'context/destroy': entry(
    'context/destroy',
    context.ContextDestroyParamsSchema,
    context.ContextDestroyResultSchema,
    true,
    'session',
    'Close a context and all its pages.',
  ),
  'frame/list': entry('frame/list', frame.FrameListParamsSchema, frame.FrameListResultSchema, false, 'page', "The page's frames, with stable ids."),
  'frame/switch': entry(
    'frame/switch',
    frame.FrameSwitchParamsSchema,
    frame.FrameSwitchResultSchema,
    true,
    'page',
    'Run later actions and observations of this page inside a frame, found by id, iframe selector or URL pattern.',
  ),
  'frame/main': entry('frame/main', frame.FrameMainParamsSchema, frame.FrameMainResultSchema, true, 'page', 'Go back to the top frame.'),
  'storage/getState': entry(
    'storage/getState',
    storage.StorageGetStateParamsSchema,
    storage.StorageGetStateResultSchema,
    false,
    'session',
    "A context's cookies and localStorage, in Playwright's storageState shape.",
  ),
  'storage/setState': entry(
    'storage/setState',
    storage.StorageSetStateParamsSchema,
    EmptyResultSchema,
    true,
    'session',
    "Replace a context's cookies and add localStorage entries from a storageState.",
  ),
  'storage/getCookies': entry(
    'storage/getCookies',
    storage.StorageGetCookiesParamsSchema,
    storage.StorageGetCookiesResultSchema,
    false,
    'session',
    "A context's cookies, optionally only those sent to some URLs.",
  ),
  'storage/setCookies': entry('storage/setCookies', storage.StorageSetCookiesParamsSchema, EmptyResultSchema, true, 'session', 'Add or replace cookies in a context.'),
  'storage/clearCookies': entry(
    'storage/clearCookies',
    storage.StorageClearCookiesParamsSchema,
    storage.StorageClearCookiesResultSchema,
    true,
    'session',
    "Delete a context's cookies, all or those matching name, domain, path or URLs.",
  ),
  'emulate/setViewport': entry(
    'emulate/setViewport',
    emulate.SetViewportParamsSchema,
    EmptyResultSchema,
    true,
    'page',
    'Resize the viewport, optionally with device scale factor, mobile and touch emulation.',
  ),
  'emulate/setUserAgent': entry(
    'emulate/setUserAgent',
    emulate.SetUserAgentParamsSchema,
    EmptyResultSchema,
    true,
    'page',
    "Override this page's user agent (header and navigator), platform and languages.",
  ),
  'emulate/setGeolocation': entry(
    'emulate/setGeolocation',
    emulate.SetGeolocationParamsSchema,
    EmptyResultSchema,
    true,
    'page',
    "Set the position the page's context reports, and grant it geolocation permission.",
  ),
  'emulate/setOffline': entry(
    'emulate/setOffline',
    emulate.SetOfflineParamsSchema,
    EmptyResultSchema,
    true,
    'page',
    "Take the page's context offline or back online.",
  ),
  'dialog/handle': entry(
    'dialog/handle',
    dialog.DialogHandleParamsSchema,
    dialog.DialogHandleResultSchema,
    true,
    'immediate',
    'Accept or dismiss the open dialog of a page, or arm the answer for the next one.',
  ),
  'dialog/setPolicy': entry(
    'dialog/setPolicy',
    dialog.DialogSetPolicyParamsSchema,
    EmptyResultSchema,
    true,
    'page',
    'Choose what happens to dialogs nothing is armed for: dismiss (default), accept, or queue for dialog/handle.',
  ),
  'download/list': entry('download/list', files.DownloadListParamsSchema, files.DownloadListResultSchema, false, 'immediate', "The session's downloads and their states."),
  'download/get': method(
    {
      params: files.DownloadGetParamsSchema,
      result: files.DownloadGetResultSchema,
      mutating: false,
      lane: 'immediate',
      description: "A finished download's bytes (base64), waiting for it to finish if needed.",
      stream: streams.download,
    },
    'download/get',
  ),
  'network/intercept': entry(
    'network/intercept',
    network.NetworkInterceptParamsSchema,
    network.NetworkInterceptResultSchema,
    true,
    'session',
    "Intercept a context's requests matching URL patterns, resource types or methods.",
  ),
  'network/fulfill': entry('network/fulfill', network.NetworkFulfillParamsSchema, EmptyResultSchema, true, 'immediate', 'Answer a paused request with a response.'),
  'network/abort': entry('network/abort', network.NetworkAbortParamsSchema, EmptyResultSchema, true, 'immediate', 'Fail a paused request.'),
  'network/continue': entry(
    'network/continue',
    network.NetworkContinueParamsSchema,
    EmptyResultSchema,
    true,
    'immediate',
    'Let a paused request go on, optionally changing its URL, method, headers or body.',
  ),
  'trace/start': entry(
    'trace/start',
    trace.TraceStartParamsSchema,
    EmptyResultSchema,
    true,
    'session',
    "Start recording a Playwright trace of a context (actions, DOM snapshots, screenshots, network).",
  ),
  'trace/stop': entry(
    'trace/stop',
    trace.TraceStopParamsSchema,
    trace.TraceStopResultSchema,
    true,
    'session',
    'Stop recording and return the trace zip, viewable with the Playwright trace viewer.',
  ),
  'discovery/discover': method(
    {
      params: discovery.DiscoverParamsSchema,
      result: discovery.DiscoverResultSchema,
      scope: 'observe:discover',
      mutating: false,
      lane: 'page',
      description: 'WebMCP tools the page exposes (declarative <form toolname> and navigator.modelContext).',
    },
    'discovery/discover',
  ),
  'agent/observe': entry(
    'agent/observe',
    agent.AgentObserveParamsSchema,
    agent.AgentObserveResultSchema,
    false,
    'page',
    'Everything to plan the next step in one call: metadata, interactive elements with refs, optional snapshot and set-of-marks screenshot, budgeted, optionally only what changed.',
  ),
  'agent/extract': entry(
    'agent/extract',
    agent.AgentExtractParamsSchema,
    agent.AgentExtractResultSchema,
    false,
    'page',
    "Data shaped by a JSON Schema, read from the page's tables, lists, forms, definitions, sections, links and metadata; each value with its ref.",
  ),
  'stream/cancel': entry(
    'stream/cancel',
    stream.StreamCancelParamsSchema,
    stream.StreamCancelResultSchema,
    false,
    'immediate',
    'Stop a stream: no more stream/chunk notifications are sent for it.',
  ),
  'approval/respond': entry(
    'approval/respond',
    approval.ApprovalRespondParamsSchema,
    approval.ApprovalRespondResultSchema,
    false,
    'immediate',
    'Answer an approval/required notification: approve, approve-once, approve-session or deny the waiting request.',
  ),
} satisfies Record<string, MethodSpec>;

type BaseMethods = typeof baseMethods;
/** Methods an agent/act step may run. */
export type ActStepMethod = Extract<keyof BaseMethods, `action/${string}` | `page/${string}`>;
export const actStepMethods = Object.keys(baseMethods).filter((m): m is ActStepMethod => /^(action|page)\//.test(m));

export type ActStep = {
  [M in ActStepMethod]: { action: M; params?: z.input<BaseMethods[M]['params']> } & z.input<z.ZodObject<typeof agent.ActStepShape>>;
}[ActStepMethod];
export type ParsedActStep = {
  [M in ActStepMethod]: { action: M; params: z.output<BaseMethods[M]['params']> } & z.output<z.ZodObject<typeof agent.ActStepShape>>;
}[ActStepMethod];

/** One step per method, discriminated on `action`, so a bad step is named down to its field. */
const ActStepSchema = z.discriminatedUnion(
  'action',
  actStepMethods.map((name) =>
    z.strictObject({ action: z.literal(name), params: (baseMethods[name].params as z.ZodType).prefault({}), ...agent.ActStepShape }),
  ) as unknown as [z.ZodObject, ...z.ZodObject[]],
) as unknown as z.ZodType<ParsedActStep, ActStep>;

export const AgentActParamsSchema = z.strictObject({
  ...agent.ActOptionsShape,
  steps: z.array(ActStepSchema).min(1).max(50),
});

/** Every request method of the protocol: the single table the server, client, CLI and docs derive from. */
export const methods = {
  ...baseMethods,
  'agent/act': entry(
    'agent/act',
    AgentActParamsSchema,
    agent.AgentActResultSchema,
    true,
    'session',
    'Run up to 50 action/* and page/* steps in one round trip, with conditions, retries and per-step results.',
  ),
} satisfies Record<string, MethodSpec>;

export type Methods = typeof methods;
export type MethodName = keyof Methods;
export type MethodParams<M extends MethodName> = z.input<Methods[M]['params']>;
export type MethodResult<M extends MethodName> = z.output<Methods[M]['result']>;
/** Methods that take `stream: true` and can answer with stream/chunk notifications. */
export type StreamableMethod = { [M in MethodName]: 'stream' extends keyof MethodParams<M> ? M : never }[MethodName];
/** Params as the server sees them after validation (defaults applied). */
export type ParsedParams<M extends MethodName> = z.output<Methods[M]['params']>;

export const methodNames = Object.keys(methods) as MethodName[];

export function isMethodName(name: string): name is MethodName {
  return Object.hasOwn(methods, name);
}

/** Client → server notifications. */
export const clientNotifications = { 'notifications/initialized': z.strictObject({}).optional() } as const;
