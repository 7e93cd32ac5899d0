import type { Frame } from 'playwright-core';
import type { AccessibilityNode, AgentObserveResult, AnnotateOptions, BoundingBox, ParsedParams } from '@browseragentprotocol/protocol';
import { renderSnapshot } from './ariaTree.js';
import { toBAPError } from './errors.js';
import { collectInteractive, elementLine, elementObject, type ElementNode } from './interactive.js';
import { part, type Head, type Part } from './observationBudget.js';
import { observationsOf, type PageObservations } from './observationCache.js';
import { blockedMetadata, focusedNode, metadataOf, readFrameState, type Focused, type FrameState } from './observationMetadata.js';
import type { Walk } from './refRegistry.js';
import { screenshot } from './observe.js';
import { unlessDialog } from './dialogRace.js';
import type { PageHandle } from './pageHandle.js';

export type ObserveOptions = Omit<ParsedParams<'agent/observe'>, 'pageId'>;

const DEFAULT_MAX_CHARS = 40_000;

/** The options of one observation, with the tier's defaults filled in. */
interface Plan {
  tier: NonNullable<ObserveOptions['responseTier']>;
  metadata: boolean;
  elements: boolean;
  snapshot: boolean;
  bounds: boolean;
  viewportOnly: boolean;
  roles: ReadonlySet<string> | null;
  maxElements: number;
  incremental: boolean;
  maxChars: number;
  /** Null: no screenshot; `annotate` asks for set-of-marks. */
  screenshot: { annotate?: AnnotateOptions } | null;
}

function plan(p: ObserveOptions): Plan {
  const tier = p.responseTier ?? 'interactive';
  const full = tier === 'full';
  const cap = Math.min(p.maxChars ?? Infinity, (p.maxTokens ?? Infinity) * 4);
  const annotate = p.annotateScreenshot;
  return {
    tier,
    metadata: p.includeMetadata ?? true,
    elements: p.includeInteractiveElements ?? true,
    snapshot: p.includeAccessibility ?? full,
    bounds: p.includeBounds ?? full,
    viewportOnly: p.viewportOnly ?? false,
    roles: p.filterRoles ? new Set(p.filterRoles.map((r) => r.toLowerCase())) : null,
    maxElements: p.maxElements ?? Infinity,
    incremental: p.incremental ?? false,
    maxChars: cap === Infinity ? DEFAULT_MAX_CHARS : cap,
    screenshot: annotate ? { annotate: annotate === true ? {} : annotate } : p.includeScreenshot ? {} : null,
  };
}

/**
 * agent/observe: one snapshot of the current frame, turned into what an agent plans with —
 * element lines or objects, the snapshot YAML, metadata, a screenshot — cut to a character
 * budget, with a cursor to the rest.
 */
export async function agentObserve(h: PageHandle, p: ObserveOptions): Promise<AgentObserveResult> {
  const memory = observationsOf(h);
  if (p.cursor !== undefined) return memory.resume(p.cursor);
  const o = plan(p);
  const page = h.dialogs.open().length ? null : await unlessDialog(h, read(h, o));
  if (!page) {
    const head: Head = { elementCount: 0, ...(o.metadata ? { metadata: await blockedMetadata(h, memory.lastScroll) } : {}) };
    return memory.first({ head, parts: [] }, o.maxChars);
  }
  const { frame, state, elements, nodes } = page;
  memory.lastScroll = state.scroll;
  const matched = elements.filter((el) => selected(el, o, state));
  // Walk refs and snapshot refs name the same elements differently: a baseline holds for its own kind.
  const baseline = `${state.document} ${nodes ? 'snapshot' : 'walk'}`;
  const parts = o.elements ? elementParts(matched.slice(0, o.maxElements), o, memory, baseline) : [];
  if (nodes && o.snapshot) parts.push(part('snapshot', snapshotLines(nodes)));
  const head: Head = { elementCount: matched.length, ...page.shot };
  if (o.metadata) head.metadata = metadataOf(h, frame, state, page.focused);
  return memory.first({ head, parts }, o.maxChars);
}

interface Reading {
  frame: Frame;
  state: FrameState;
  elements: ElementNode[];
  /** The snapshot, when one was taken. */
  nodes: AccessibilityNode[] | null;
  focused: Focused;
  shot?: Pick<Head, 'screenshot' | 'annotations'>;
}

/**
 * Everything an observation reads from the page: one evaluate and, beside it, the walk of the
 * interactive elements, or a snapshot where the walk cannot stand in for it (the tree asked for,
 * set-of-marks labels, which carry the snapshot's refs, a frame other than a main frame without
 * iframes); then the screenshot asked for.
 */
async function read(h: PageHandle, o: Plan): Promise<Reading> {
  const frame = h.frames.current();
  const [state, elements] = await Promise.all([readFrameState(frame, h.frames.currentId()), readElements(h, o, frame)]);
  return { frame, state, ...elements, ...(o.screenshot ? { shot: await shot(h, o.screenshot) } : {}) };
}

async function readElements(h: PageHandle, o: Plan, frame: Frame): Promise<Pick<Reading, 'elements' | 'nodes' | 'focused'>> {
  const boxes = o.bounds || o.viewportOnly;
  try {
    const walk = !o.snapshot && !o.screenshot?.annotate && frame === h.page.mainFrame() ? await h.refs.walk(boxes) : null;
    if (walk) return { elements: walk.elements, nodes: null, focused: focusedOf(walk) };
    const nodes = await h.refs.capture({ frame, boxes, timeout: h.timeouts.action });
    return { elements: collectInteractive(nodes), nodes, focused: focusedNode(nodes) };
  } catch (error) {
    throw toBAPError(error, { action: 'agent/observe' });
  }
}

function focusedOf(walk: Walk): Focused {
  const el = walk.elements.find((e) => e.focused) ?? walk.focus;
  return el ? { ref: el.ref, role: el.role, name: el.name } : null;
}

function selected(el: ElementNode, o: Plan, state: FrameState): boolean {
  if (o.roles && !o.roles.has(el.role)) return false;
  return !o.viewportOnly || (!!el.bounds && inViewport(el.bounds, state.viewport));
}

function inViewport(b: BoundingBox, viewport: FrameState['viewport']): boolean {
  return b.x + b.width >= 0 && b.y + b.height >= 0 && b.x < viewport.width && b.y < viewport.height;
}

/**
 * The element parts, and the listed elements as the page's new baseline. With `incremental` and
 * a baseline of the same document, only what changed: lines whose ref is new (added) or whose
 * value or state differs (changed), and the refs that are gone.
 */
function elementParts(shown: ElementNode[], o: Plan, memory: PageObservations, document: string): Part[] {
  const lines = new Map(shown.map((el) => [el.ref, elementLine(el)]));
  const changes = o.incremental ? memory.changesSince(document, lines) : null;
  memory.setBaseline(document, lines);
  const full = o.tier === 'full';
  const object = (el: ElementNode) => elementObject(el, o.bounds);
  if (!changes) {
    if (full) return [part('interactiveElements', shown.map(object))];
    return [part('elements', shown.map((el) => elementLine(el, o.tier === 'minimal', o.bounds)))];
  }
  // In the full tier the objects carry the bounds; the lines need not repeat them.
  const line = (el: ElementNode) => elementLine(el, false, o.bounds && !full);
  const added = shown.filter((el) => changes.added.has(el.ref));
  const changed = shown.filter((el) => changes.changed.has(el.ref));
  const parts = [part('added', added.map(line)), part('changed', changed.map(line)), part('removed', changes.removed)];
  if (!full) return parts;
  const objects = shown.filter((el) => changes.added.has(el.ref) || changes.changed.has(el.ref)).map(object);
  return [part('interactiveElements', objects), ...parts];
}

/** The AI snapshot's lines; boxes are left out, the elements carry them. */
function snapshotLines(nodes: readonly AccessibilityNode[]): string[] {
  const text = renderSnapshot(withoutBoxes(nodes));
  return text ? text.split('\n') : [];
}

function withoutBoxes(nodes: readonly AccessibilityNode[]): AccessibilityNode[] {
  return nodes.map(({ boundingBox: _box, children, ...node }) => (children ? { ...node, children: withoutBoxes(children) } : node));
}

/** The screenshot, and the labels of a set-of-marks one as a field of their own. */
async function shot(h: PageHandle, request: NonNullable<Plan['screenshot']>): Promise<Pick<Head, 'screenshot' | 'annotations'>> {
  const { annotations, ...image } = await screenshot(h, request.annotate ? { options: { annotate: request.annotate } } : {});
  return annotations ? { screenshot: image, annotations } : { screenshot: image };
}
