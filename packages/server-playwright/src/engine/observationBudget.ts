import type { AgentObserveResult, InteractiveElement } from '@browseragentprotocol/protocol';

/** The parts of an observation a budget may cut, in the order a slice is filled. */
export type PartKey = 'elements' | 'interactiveElements' | 'added' | 'changed' | 'removed' | 'snapshot';

type Item = string | InteractiveElement;

/** One cuttable part: line parts are joined with "\n" into one string, list parts stay arrays. */
export interface Part {
  key: PartKey;
  items: Item[];
  /** Characters each item adds to the JSON result, not counting its separator. */
  costs: number[];
}

/** What an observation carries besides its parts; only the first slice has more than the count. */
export type Head = Pick<AgentObserveResult, 'metadata' | 'elementCount' | 'screenshot' | 'annotations'>;

export interface Observation {
  head: Head;
  parts: Part[];
}

/** Where the next slice starts: an item of a part. */
export interface Position {
  part: number;
  item: number;
}

export interface Slice {
  result: AgentObserveResult;
  /** Null when nothing is left. */
  next: Position | null;
}

/** Characters kept free for the cursor of a cut result; cursors are never longer. */
export const CURSOR_ROOM = 24;
/** Below this many characters, a piece of an item would be too little to read. */
const MIN_ROOM = 40;
const LIST_PARTS: ReadonlySet<PartKey> = new Set(['interactiveElements', 'removed']);

export function part(key: PartKey, items: Item[]): Part {
  const list = LIST_PARTS.has(key);
  return { key, items, costs: items.map((item) => cost(item, list)) };
}

/**
 * The first slice: the whole observation when it fits the budget, else its head and as many
 * whole items as fit. A head that alone is over the budget is still returned, with no items.
 */
export function firstSlice(observation: Observation, budget: number): Slice {
  const whole = assemble(observation.head, observation.parts, observation.parts.map((p) => p.items), 'first', false);
  if (measure(whole) <= budget) return { result: whole, next: null };
  return cut(observation, observation.head, { part: 0, item: 0 }, budget, true);
}

/** A later slice: only the element count and the items that follow `from`. */
export function nextSlice(observation: Observation, from: Position, budget: number): Slice {
  return cut(observation, { elementCount: observation.head.elementCount }, from, budget, false);
}

/** Whether a position points at an item of the observation (cursors come from clients). */
export function isPosition(observation: Observation, at: Position): boolean {
  return at.part < observation.parts.length && at.item < observation.parts[at.part]!.items.length;
}

/** The screenshot is priced by its pixels, not its characters, so its data is not counted. */
export function measure(result: AgentObserveResult): number {
  return JSON.stringify(result).length - (result.screenshot?.data.length ?? 0);
}

function cut(observation: Observation, head: Head, from: Position, budget: number, first: boolean): Slice {
  const { parts } = observation;
  const empty = parts.map((_, i) => (i >= from.part ? [] : undefined));
  const base = measure({ ...assemble(head, parts, empty, 'all', true), cursor: 'x'.repeat(CURSOR_ROOM) });
  const taken = take(parts, from, budget - base, !first);
  const result = assemble(head, parts, taken.items, first ? 'first' : 'later', first || taken.next !== null || taken.shrunk);
  return { result, next: taken.next };
}

interface Taken {
  items: (Item[] | undefined)[];
  next: Position | null;
  /** An item too long for a whole slice was shortened. */
  shrunk: boolean;
}

/**
 * Whole items from `from` while they fit in `room`. When not even the first fits, it is
 * shortened to fit; a later slice (`mustProgress`) takes it even if its shortest form does not.
 */
function take(parts: Part[], from: Position, room: number, mustProgress: boolean): Taken {
  const items: (Item[] | undefined)[] = parts.map((_, i) => (i >= from.part ? [] : undefined));
  let at = { ...from };
  let used = 0;
  let count = 0;
  let shrunk = false;
  while (at.part < parts.length) {
    const p = parts[at.part]!;
    const taken = items[at.part]!;
    if (at.item >= p.items.length) {
      at = { part: at.part + 1, item: 0 };
      continue;
    }
    const separator = taken.length ? (LIST_PARTS.has(p.key) ? 1 : 2) : 0;
    if (used + separator + p.costs[at.item]! <= room) {
      taken.push(p.items[at.item]!);
      used += separator + p.costs[at.item]!;
      count++;
      at.item++;
      continue;
    }
    if (count === 0 && (room >= MIN_ROOM || mustProgress)) {
      const list = LIST_PARTS.has(p.key);
      const short = shorten(p.items[at.item]!, room, list);
      if (mustProgress || cost(short, list) <= room) {
        taken.push(short);
        shrunk = true;
        at.item++;
      }
    }
    break;
  }
  while (at.part < parts.length && at.item >= parts[at.part]!.items.length) at = { part: at.part + 1, item: 0 };
  return { items, next: at.part < parts.length ? at : null, shrunk };
}

/**
 * Which parts a result shows: `all` those chosen, even empty (to measure the most a slice can
 * take); else those with items in the slice, and in the `first` slice also the parts that have
 * nothing at all, shown empty ("no elements", "no changes"). A part still to come is left out.
 */
type Shown = 'all' | 'first' | 'later';

/** The result in the protocol's key order. */
function assemble(head: Head, parts: Part[], chosen: (Item[] | undefined)[], shown: Shown, truncated: boolean): AgentObserveResult {
  const by = new Map<PartKey, Item[]>();
  parts.forEach((p, i) => {
    const items = chosen[i];
    if (items && (items.length || shown === 'all')) by.set(p.key, items);
  });
  const none = (...keys: PartKey[]) =>
    shown === 'first' && parts.some((p) => keys.includes(p.key)) && parts.every((p) => !keys.includes(p.key) || !p.items.length);
  const has = (key: PartKey) => by.has(key) || none(key);
  const lines = (key: PartKey) => (by.get(key) as string[] | undefined)?.join('\n') ?? '';
  const changes = by.has('added') || by.has('changed') || by.has('removed') || none('added', 'changed', 'removed');
  return {
    ...(head.metadata ? { metadata: head.metadata } : {}),
    ...(has('snapshot') ? { snapshot: lines('snapshot') } : {}),
    ...(has('elements') ? { elements: lines('elements') } : {}),
    ...(has('interactiveElements') ? { interactiveElements: (by.get('interactiveElements') ?? []) as InteractiveElement[] } : {}),
    elementCount: head.elementCount,
    ...(changes ? { changes: { added: lines('added'), changed: lines('changed'), removed: (by.get('removed') ?? []) as string[] } } : {}),
    ...(head.screenshot ? { screenshot: head.screenshot } : {}),
    ...(head.annotations ? { annotations: head.annotations } : {}),
    truncated,
  };
}

/** An item cut down to about `room` characters: a line's end, or an element's name, value and URL. */
function shorten(item: Item, room: number, list: boolean): Item {
  if (typeof item === 'string') return cutText(item, list ? room - 2 : room);
  const fields = (['name', 'value', 'url'] as const).filter((f) => item[f] !== undefined);
  // A cut name no longer finds the element by role and name; the ref still does.
  const bare: InteractiveElement = { ...item, selector: { type: 'ref', ref: item.ref } };
  for (const f of fields) bare[f] = '';
  const share = Math.floor((room - cost(bare, true)) / fields.length);
  for (const f of fields) bare[f] = cutText(item[f]!, share);
  return bare;
}

/** The longest start of `text` that takes at most `max` characters in JSON, marked with an ellipsis when cut. */
function cutText(text: string, max: number): string {
  if (escapedLength(text) <= max) return text;
  let out = '';
  let used = 1;
  for (const char of text) {
    const n = escapedLength(char);
    if (used + n > max) break;
    out += char;
    used += n;
  }
  return `${out}…`;
}

/** Characters in the JSON: a list item with its quotes or braces, a line without quotes (it sits inside the joined string). */
function cost(item: Item, list: boolean): number {
  return typeof item === 'string' && !list ? escapedLength(item) : JSON.stringify(item).length;
}

function escapedLength(text: string): number {
  return JSON.stringify(text).length - 2;
}
