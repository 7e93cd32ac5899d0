import { formatZodError, isMethodName, methods } from '@browseragentprotocol/protocol';

/** Valid params for a spread of methods, with every selector type and option; mutations start here. */
export const VALID_PARAMS: ReadonlyArray<readonly [string, Record<string, unknown>]> = [
  ['page/navigate', { pageId: 'p-1', url: 'http://127.0.0.1:9/x', waitUntil: 'load', timeout: 1000, referer: 'http://a.test/' }],
  ['page/create', { url: 'http://127.0.0.1:9/', viewport: { width: 800, height: 600 }, waitUntil: 'commit', timeout: 10, activate: true }],
  ['page/reload', { pageId: 'p-1', waitUntil: 'domcontentloaded', timeout: 5 }],
  ['page/close', { pageId: 'p-1', runBeforeUnload: false }],
  ['page/activate', { pageId: 'p-1' }],
  [
    'action/click',
    {
      pageId: 'p-1',
      selector: { type: 'css', value: '#x' },
      options: { timeout: 100, force: false, noWaitAfter: true, trial: true, button: 'left', clickCount: 1, modifiers: ['Shift'], position: { x: 1, y: 2 }, delay: 0 },
    },
  ],
  ['action/type', { selector: { type: 'role', role: 'button', name: 'x', exact: true }, text: 'hi', options: { delay: 0, clear: true } }],
  ['action/fill', { selector: { type: 'label', value: 'x', exact: false }, value: 'v' }],
  ['action/press', { key: 'Enter', selector: { type: 'testId', value: 't' }, options: { delay: 1 } }],
  ['action/hover', { selector: { type: 'coordinates', x: 1, y: 2 }, options: { position: { x: 0, y: 0 }, modifiers: ['Alt'] } }],
  ['action/scroll', { selector: { type: 'ref', ref: '@e1' }, options: { direction: 'down', amount: 100 } }],
  ['action/select', { selector: { type: 'xpath', value: '//select' }, values: ['a', 'b'] }],
  ['action/drag', { source: { type: 'text', value: 'a' }, target: { x: 1, y: 2 } }],
  [
    'observe/screenshot',
    {
      options: {
        fullPage: true,
        clip: { x: 0, y: 0, width: 10, height: 10 },
        format: 'png',
        quality: 50,
        scale: 'css',
        mask: [{ type: 'placeholder', value: 'p' }],
        omitBackground: false,
        timeout: 1000,
      },
    },
  ],
  ['observe/element', { selector: { type: 'placeholder', value: 'p' }, properties: ['visible', 'text'] }],
  ['observe/content', { format: 'markdown', selector: { type: 'semantic', description: 'd' }, maxLength: 100 }],
  ['observe/dom', { options: { root: { type: 'css', value: 'body' }, maxLength: 10 } }],
  ['observe/ariaSnapshot', { options: { depth: 3, boxes: true, timeout: 100, includeTree: true, refs: false } }],
  ['observe/console', { pageId: 'p-1', level: 'warn' }],
  ['page/evaluate', { pageId: 'p-1', expression: '1 + 1', timeout: 100 }],
  ['action/armFileChooser', { pageId: 'p-1', paths: ['a.txt'], timeout: 1000 }],
  ['observe/accessibility', { options: { maxDepth: 3, interestingOnly: true, root: { type: 'css', value: 'body' } } }],
  ['events/subscribe', { events: ['page'] }],
  [
    'browser/launch',
    {
      browser: 'chromium',
      headless: true,
      args: ['--lang=en'],
      proxy: { server: 'http://p:1', bypass: 'x', username: 'u', password: 'p' },
      cdpUrl: 'http://127.0.0.1:9/',
      wsEndpoint: 'ws://127.0.0.1:9/',
    },
  ],
  ['discovery/discover', { options: { maxTools: 5, includeInputSchemas: true } }],
  [
    'context/create',
    {
      contextId: 'ctx-a',
      options: {
        storageState: { cookies: [{ name: 'n', value: 'v', domain: 'a.test', path: '/' }], origins: [{ origin: 'http://a.test', localStorage: [{ name: 'k', value: 'v' }] }] },
        viewport: { width: 800, height: 600 },
        locale: 'fr-FR',
        timezoneId: 'Europe/Paris',
        geolocation: { latitude: 1, longitude: 2, accuracy: 3 },
        permissions: ['geolocation'],
        colorScheme: 'dark',
        offline: false,
        extraHTTPHeaders: { 'x-a': 'b' },
      },
    },
  ],
  ['storage/setCookies', { contextId: 'ctx-a', cookies: [{ name: 'n', value: 'v', url: 'http://a.test/', httpOnly: true, sameSite: 'Lax' }] }],
  ['storage/clearCookies', { pageId: 'p-1', urls: ['http://a.test/'], name: 'n' }],
  ['emulate/setViewport', { width: 10, height: 10, deviceScaleFactor: 2, isMobile: true, hasTouch: false }],
  ['emulate/setGeolocation', { latitude: 1, longitude: 2, accuracy: 3 }],
  ['frame/switch', { pageId: 'p-1', selector: { type: 'css', value: 'iframe' } }],
  ['dialog/handle', { action: 'accept', promptText: 'x', timeout: 1000 }],
  ['dialog/setPolicy', { policy: 'queue', timeout: 1000 }],
  ['network/intercept', { patterns: [{ urlPattern: '**/api/*', resourceType: 'fetch', method: 'GET' }], handler: 'respond', response: { status: 200, body: 'ok' }, timeout: 10 }],
  ['network/continue', { requestId: 'req-1', overrides: { url: 'http://a.test/', method: 'POST', headers: { a: 'b' }, postData: 'x' } }],
  ['action/upload', { selector: { type: 'css', value: 'input' }, files: [{ name: 'a.txt', mimeType: 'text/plain', buffer: 'aGk=' }] }],
  ['trace/start', { contextId: 'ctx-a', name: 'n', screenshots: true, snapshots: false, sources: false }],
  ['observe/pdf', { options: { format: 'A4', landscape: true, scale: 1, margin: { top: '1cm', left: 2 }, pageRanges: '1', printBackground: true } }],
  ['download/get', { downloadId: 'dl-1', timeout: 10 }],
  ['page/waitFor', { pageId: 'p-1', selector: { type: 'css', value: '#x' }, state: 'hidden', timeout: 10 }],
  ['page/waitFor', { text: 'Welcome', timeout: 10 }],
  [
    'agent/act',
    {
      pageId: 'p-1',
      stopOnFirstError: false,
      continueOnConditionFail: true,
      timeout: 1000,
      preObserve: true,
      postObserve: { responseTier: 'minimal', maxChars: 1000 },
      steps: [
        {
          label: 'go',
          action: 'action/click',
          params: { selector: { type: 'css', value: '#go' }, options: { timeout: 10 } },
          condition: { selector: { type: 'text', value: 'Go' }, state: 'enabled', timeout: 10 },
          onError: 'retry',
          maxRetries: 2,
          retryDelay: 100,
        },
        { action: 'page/navigate', params: { url: 'http://127.0.0.1:9/', waitUntil: 'commit' } },
      ],
    },
  ],
  [
    'agent/observe',
    {
      pageId: 'p-1',
      responseTier: 'full',
      includeMetadata: true,
      includeAccessibility: false,
      includeInteractiveElements: true,
      includeScreenshot: false,
      annotateScreenshot: { style: 'marks', filter: { maxLabels: 5, minSize: 4 }, appearance: { labelFormat: 'alpha', opacity: 0.5 } },
      maxElements: 10,
      filterRoles: ['button'],
      viewportOnly: true,
      includeBounds: true,
      incremental: true,
      maxChars: 1000,
    },
  ],
  ['agent/extract', { pageId: 'p-1', schema: { type: 'object' }, selector: { type: 'css', value: 'main' }, instruction: 'prices', maxItems: 5, timeout: 10 }],
  ['stream/cancel', { streamId: 'stream-1' }],
  ['approval/respond', { requestId: 'r-1', decision: 'deny', reason: 'no' }],
  ['observe/dom', { options: { maxLength: 10 }, stream: true, chunkSize: 2048 }],
  ['shutdown', { saveState: true, closePages: false }],
];

const WRONG_VALUES: unknown[] = [null, true, false, 0, -1, 1.5, 1e9, 'str', '', [], {}, [1], { x: 1 }, 'x'.repeat(12_000)];
const UNKNOWN_KEYS = ['unknownField', 'extra', '__proto__', 'constructor', 'prototype', 'toString', 'PageId', 'selectors'];

type Path = Array<string | number>;
export type Params = Record<string, unknown>;

/**
 * For every field (at any depth) of every entry of VALID_PARAMS, the params with a wrong value
 * there: one group per field, so a sample can hit every field before any twice.
 */
export function wrongValueGroups(): Array<Array<[string, Params]>> {
  const groups: Array<Array<[string, Params]>> = [];
  for (const [method, base] of VALID_PARAMS) {
    assertValid(method, base);
    for (const path of pathsOf(base)) groups.push(WRONG_VALUES.map((value) => [method, withValueAt(base, path, value)]));
  }
  return groups;
}

/** For every object (at any depth) of every entry of VALID_PARAMS, the params with an extra member there. */
export function unknownMemberGroups(): Array<Array<[string, Params]>> {
  const groups: Array<Array<[string, Params]>> = [];
  for (const [method, base] of VALID_PARAMS) {
    for (const path of objectPathsOf(base)) {
      // agent/extract's schema is a JSON Schema: any member is allowed there.
      if (path[0] === 'schema') continue;
      groups.push(UNKNOWN_KEYS.map((key) => [method, withKeyAt(base, path, key)]));
    }
  }
  return groups;
}

function* pathsOf(value: unknown, prefix: Path = []): Generator<Path> {
  if (typeof value !== 'object' || value === null) return;
  for (const [key, child] of Object.entries(value)) {
    const path = [...prefix, Array.isArray(value) ? Number(key) : key];
    yield path;
    yield* pathsOf(child, path);
  }
}

function* objectPathsOf(value: unknown, prefix: Path = []): Generator<Path> {
  if (typeof value !== 'object' || value === null) return;
  if (!Array.isArray(value)) yield prefix;
  for (const [key, child] of Object.entries(value)) yield* objectPathsOf(child, [...prefix, Array.isArray(value) ? Number(key) : key]);
}

function withValueAt(base: Params, path: Path, value: unknown): Params {
  const copy = structuredClone(base);
  let node: Record<string | number, unknown> = copy;
  for (const key of path.slice(0, -1)) node = node[key] as Record<string | number, unknown>;
  node[path.at(-1)!] = value;
  return copy;
}

/** Adds an own enumerable key, even `__proto__`, so JSON.stringify writes it as a plain member. */
function withKeyAt(base: Params, path: Path, key: string): Params {
  const copy = structuredClone(base);
  let node: Record<string | number, unknown> = copy;
  for (const segment of path) node = node[segment] as Record<string | number, unknown>;
  Object.defineProperty(node, key, { value: { polluted: 'yes' }, enumerable: true, configurable: true, writable: true });
  return copy;
}

function assertValid(method: string, params: unknown): void {
  if (!isMethodName(method)) throw new Error(`VALID_PARAMS: ${method} is not a method`);
  const result = methods[method].params.safeParse(params);
  if (!result.success) throw new Error(`VALID_PARAMS of ${method}: ${formatZodError(result.error).message}`);
}
