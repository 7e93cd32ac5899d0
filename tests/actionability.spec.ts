import type { BAPClient } from '@browseragentprotocol/client';
import { BAPError, ErrorCodes } from '@browseragentprotocol/protocol';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './support/harness.js';
import { css, inspect, textOf, valueOf } from './support/observe.js';

// The fast action path against Playwright's own: one server with fastActions, one without, the
// same scenarios (tests/fixtures/actionability.html?case=…), the same outcome expected from both.

/** Failing scenarios wait this long on both paths; those that succeed get room for a loaded machine. */
const TIMEOUT = 1_500;
const ROOM = 5_000;

interface Side {
  h: Harness;
  /** The server's debug log: which path each action took. */
  lines: string[];
}

let fast: Side;
let slow: Side;

async function start(fastActions: boolean): Promise<Side> {
  const lines: string[] = [];
  const logger = pino({ level: 'debug' }, { write: (line: string) => void lines.push(line) });
  return { h: await startHarness({ server: { allowEvaluate: true, fastActions, logger } }), lines };
}

beforeAll(async () => {
  [fast, slow] = await Promise.all([start(true), start(false)]);
});

afterAll(async () => {
  await Promise.all([fast?.h.stop(), slow?.h.stop()]);
});

type Act = (client: BAPClient, pageId: string, options: { timeout: number }) => Promise<unknown>;

interface Scenario {
  name: string;
  /** The fixture's case. */
  page: string;
  act: Act;
  /** Playwright's outcome: null for success, else the error code. */
  error: number | null;
  /** What the page recorded (window.log of the frame acted in). */
  log: string[];
  /** Reads a field's state after the action, and what it should be. */
  read?: (client: BAPClient, pageId: string) => Promise<unknown>;
  state?: unknown;
  /** The fast path taken (true), or the reason it gives way to Playwright's. */
  fast: true | string;
  /** Act in the page's iframe (frame/switch first). */
  inFrame?: boolean;
}

const click: Act = (c, pageId, options) => c.call('action/click', { pageId, selector: css('#target'), options });
const fillWith = (value: string): Act => (c, pageId, options) => c.call('action/fill', { pageId, selector: css('#field'), value, options });
const fill = fillWith('hello');
const check: Act = (c, pageId, options) => c.call('action/check', { pageId, selector: css('#box'), options });
const select = (value: string): Act => (c, pageId, options) => c.call('action/select', { pageId, selector: css('#choice'), values: value, options });
const hover: Act = (c, pageId, options) => c.call('action/hover', { pageId, selector: css('#target'), options });
const fieldValue = (c: BAPClient, pageId: string) => valueOf(c, css('#field'), pageId);
const checked = async (c: BAPClient, pageId: string) => (await inspect(c, css('#box'), pageId)).checked;
const choice = (c: BAPClient, pageId: string) => valueOf(c, css('#choice'), pageId);

const { Timeout, ElementNotEnabled, ElementNotVisible, ActionFailed } = ErrorCodes;

const SCENARIOS: Scenario[] = [
  { name: 'click: actionable', page: 'button', act: click, error: null, log: ['target:click'], fast: true },
  {
    name: 'click: actionable, found by role',
    page: 'button',
    act: (c, pageId, options) => c.call('action/click', { pageId, selector: { type: 'role', role: 'button', name: 'Target' }, options }),
    error: null,
    log: ['target:click'],
    fast: true,
  },
  { name: 'click: covered by an overlay', page: 'covered', act: click, error: Timeout, log: [], fast: 'covered' },
  { name: 'click: disabled', page: 'disabled', act: click, error: ElementNotEnabled, log: [], fast: 'disabled' },
  { name: 'click: detached when pressed', page: 'detached-on-press', act: click, error: null, log: ['target:pointerdown'], fast: true },
  { name: 'click: replaced when hovered', page: 'replaced-on-hover', act: click, error: null, log: ['target:click'], fast: 'missed' },
  { name: 'click: animating', page: 'animating', act: click, error: Timeout, log: [], fast: 'animating' },
  { name: 'click: off-screen', page: 'offscreen', act: click, error: null, log: ['target:click'], fast: 'offscreen' },
  { name: 'click: inside an iframe', page: 'iframe', inFrame: true, act: click, error: null, log: ['target:click'], fast: true },
  { name: 'click: inside a shadow root', page: 'shadow', act: click, error: null, log: ['target:click'], fast: true },
  { name: 'click: moving on hover', page: 'moving-on-hover', act: click, error: null, log: ['target:click'], fast: 'missed' },
  { name: 'click: zero-size', page: 'zero-size', act: click, error: ElementNotVisible, log: [], fast: 'zero-size' },
  { name: 'click: pointer-events none', page: 'no-pointer-events', act: click, error: Timeout, log: [], fast: 'pointer-events-none' },
  {
    name: 'dblclick: actionable',
    page: 'button',
    act: (c, pageId, options) => c.call('action/dblclick', { pageId, selector: css('#target'), options }),
    error: null,
    log: ['target:click', 'target:click'],
    fast: true,
  },
  { name: 'fill: actionable', page: 'field', act: fill, error: null, log: [], read: fieldValue, state: 'hello', fast: true },
  {
    name: 'fill: actionable, found by label',
    page: 'field',
    act: (c, pageId, options) => c.call('action/fill', { pageId, selector: { type: 'label', value: 'Field' }, value: 'hello', options }),
    error: null,
    log: [],
    read: fieldValue,
    state: 'hello',
    fast: true,
  },
  {
    name: 'fill: replaces the content, with the input events of inserted text',
    page: 'field-prefilled',
    act: fill,
    error: null,
    log: ['field:beforeinput:insertText', 'field:input:insertText'],
    read: fieldValue,
    state: 'hello',
    fast: true,
  },
  {
    name: 'fill: an empty value is a Delete key press',
    page: 'field-prefilled',
    act: fillWith(''),
    error: null,
    log: ['field:keydown', 'field:beforeinput:deleteContentForward', 'field:input:deleteContentForward'],
    read: fieldValue,
    state: '',
    fast: true,
  },
  { name: 'fill: a number field', page: 'field-number', act: fillWith('42'), error: null, log: ['field:beforeinput:insertText', 'field:input:insertText'], read: fieldValue, state: '42', fast: true },
  {
    name: 'fill: a beforeinput listener cancels it',
    page: 'field-guarded',
    act: fill,
    error: null,
    log: ['field:beforeinput:insertText'],
    read: fieldValue,
    state: 'old text',
    fast: true,
  },
  {
    // Chromium inserts line by line: one beforeinput, an input per piece.
    name: 'fill: a textarea, over several lines',
    page: 'textarea',
    act: fillWith('one\ntwo'),
    error: null,
    log: ['field:beforeinput:insertText', 'field:input:insertText', 'field:input:insertText', 'field:input:insertText'],
    read: fieldValue,
    state: 'one\ntwo',
    fast: true,
  },
  { name: 'fill: disabled', page: 'field-disabled', act: fill, error: ElementNotEnabled, log: [], read: fieldValue, state: '', fast: 'disabled' },
  { name: 'fill: read-only', page: 'field-readonly', act: fill, error: ElementNotEnabled, log: [], read: fieldValue, state: '', fast: 'readonly' },
  { name: 'fill: covered (fill needs no pointer)', page: 'field-covered', act: fill, error: null, log: [], read: fieldValue, state: 'hello', fast: true },
  { name: 'fill: off-screen', page: 'field-offscreen', act: fill, error: null, log: [], read: fieldValue, state: 'hello', fast: true },
  {
    name: 'type: actionable',
    page: 'field',
    act: (c, pageId, options) => c.call('action/type', { pageId, selector: css('#field'), text: 'abc', options }),
    error: null,
    log: [],
    read: fieldValue,
    state: 'abc',
    fast: true,
  },
  { name: 'check: actionable', page: 'checkbox', act: check, error: null, log: ['box:click'], read: checked, state: true, fast: true },
  { name: 'check: covered', page: 'checkbox-covered', act: check, error: Timeout, log: [], read: checked, state: false, fast: 'covered' },
  { name: 'check: the page undoes the click', page: 'checkbox-prevented', act: check, error: ActionFailed, log: ['box:click'], read: checked, state: false, fast: true },
  { name: 'select: actionable', page: 'select', act: select('Beta'), error: null, log: ['choice:change'], read: choice, state: 'b', fast: true },
  { name: 'select: disabled', page: 'select-disabled', act: select('Beta'), error: ElementNotEnabled, log: [], read: choice, state: 'a', fast: 'disabled' },
  { name: 'select: no such option', page: 'select', act: select('Gamma'), error: Timeout, log: [], read: choice, state: 'a', fast: 'options-not-found' },
  { name: 'hover: actionable', page: 'hover', act: hover, error: null, log: ['target:mouseenter'], fast: true },
  { name: 'hover: covered', page: 'hover-covered', act: hover, error: Timeout, log: [], fast: 'covered' },
];

interface Outcome {
  error: number | null;
  log: unknown;
  state?: unknown;
}

/** The last path decision the server logged since `mark`. */
function pathSince(side: Side, mark: number): Record<string, unknown> | undefined {
  const entries = side.lines.slice(mark).map((line) => JSON.parse(line) as Record<string, unknown>);
  return entries.filter((e) => e.msg === 'action path').at(-1);
}

async function open(side: Side, page: string): Promise<string> {
  return (await side.h.client.call('page/navigate', { url: side.h.url(`actionability.html?case=${page}`) })).pageId;
}

async function run(side: Side, s: Scenario): Promise<{ outcome: Outcome; path: Record<string, unknown> | undefined }> {
  const { client } = side.h;
  const pageId = await open(side, s.page);
  if (s.inFrame) await client.call('frame/switch', { pageId, selector: css('iframe') });
  const mark = side.lines.length;
  const error = await s.act(client, pageId, { timeout: s.error === null ? ROOM : TIMEOUT }).then(
    () => null,
    (e: unknown) => (e instanceof BAPError ? e.code : -1),
  );
  const path = pathSince(side, mark);
  const outcome: Outcome = { error, log: (await client.call('page/evaluate', { pageId, expression: 'window.log' })).value };
  if (s.inFrame) await client.call('frame/main', { pageId });
  if (s.read) outcome.state = await s.read(client, pageId);
  return { outcome, path };
}

describe('fast actions: the same outcome as Playwright’s path', () => {
  it.each(SCENARIOS)('$name', async (s) => {
    const [first, onSlow] = await Promise.all([run(fast, s), run(slow, s)]);
    let onFast = first;
    // A probe the loaded machine answered too late gave way to Playwright's path: that says nothing of the scenario.
    if (['late', 'slow-page'].includes(String(first.path?.reason))) onFast = await run(fast, s);
    expect(onSlow.outcome).toMatchObject({ error: s.error, log: s.log, ...(s.read ? { state: s.state } : {}) });
    expect(onFast.outcome).toEqual(onSlow.outcome);
    expect(onSlow.path).toMatchObject({ fast: false, reason: 'disabled' });
    expect(onFast.path).toMatchObject(s.fast === true ? { fast: true } : { fast: false, reason: s.fast });
  });
});

describe('fast actions: what must not change', () => {
  it('a click that navigates returns once the navigation has committed', async () => {
    for (const side of [fast, slow]) {
      for (const page of ['link', 'submit']) {
        const pageId = await open(side, page);
        const mark = side.lines.length;
        await side.h.client.call('action/click', { pageId, selector: css('#target'), options: { timeout: 5_000 } });
        const { pages } = await side.h.client.call('page/list', {});
        expect(pages.find((p) => p.id === pageId)?.url, `${page} on ${side === fast ? 'fast' : 'slow'}`).toContain('/slow?ms=300');
        expect(pathSince(side, mark)).toMatchObject({ fast: side === fast });
      }
    }
  });

  it('a password filled on the fast path is learned by the redactor before it is written', async () => {
    const secret = 'Fast-Path-Secret-8841';
    const pageId = await open(fast, 'password');
    const mark = fast.lines.length;
    await fast.h.client.call('action/fill', { pageId, selector: css('#field'), value: secret });
    expect(pathSince(fast, mark)).toMatchObject({ fast: true });
    // The page echoes the field: only the redactor can hide the value there.
    expect(await textOf(fast.h.client, css('#echo'), pageId)).toBe('typed [REDACTED]');
    const observed = JSON.stringify(await fast.h.client.call('agent/observe', { pageId }));
    expect(observed).not.toContain(secret);
  });

  it('a ref from a snapshot takes the fast path too', async () => {
    for (const side of [fast, slow]) {
      const pageId = await open(side, 'button');
      const { snapshot } = await side.h.client.call('observe/ariaSnapshot', { pageId });
      const ref = /button "Target" \[ref=(@?\w+)\]/.exec(snapshot)?.[1];
      expect(ref, snapshot).toBeTruthy();
      const mark = side.lines.length;
      await side.h.client.call('action/click', { pageId, selector: { type: 'ref', ref: ref! } });
      expect(pathSince(side, mark)).toMatchObject(side === fast ? { fast: true } : { fast: false, reason: 'disabled' });
      expect((await side.h.client.call('page/evaluate', { pageId, expression: 'window.log' })).value).toEqual(['target:click']);
    }
  });

  it('options the fast path does not handle go through Playwright’s path', async () => {
    const pageId = await open(fast, 'button');
    const mark = fast.lines.length;
    await fast.h.client.call('action/click', { pageId, selector: css('#target'), options: { position: { x: 5, y: 5 } } });
    expect(pathSince(fast, mark)).toMatchObject({ fast: false, reason: 'option-position' });
    expect((await fast.h.client.call('page/evaluate', { pageId, expression: 'window.log' })).value).toEqual(['target:click']);
  });
});
