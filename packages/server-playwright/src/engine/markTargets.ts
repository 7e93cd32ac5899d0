import type { Locator, Page } from 'playwright-core';
import type { AccessibilityNode, BoundingBox } from '@browseragentprotocol/protocol';
import { collectInteractive } from './interactive.js';
import { SENSITIVE_FIELDS } from './secrets.js';

/** An element that may wear a mark, with its box in CSS pixels of the viewport it was measured in. */
export interface MarkTarget {
  ref: string;
  role: string;
  name: string;
  box: BoundingBox;
}

export interface TargetFilter {
  interactive: boolean;
  roles: ReadonlySet<string> | null;
  minSize: number;
}

/** Roles a password or card-number `<input>` can have: only these are checked against SENSITIVE_FIELDS. */
const FIELD_ROLES = new Set(['textbox', 'searchbox', 'spinbutton', 'combobox']);

/** The snapshot's elements worth a mark, in document order, before anything is asked of the page. */
export function markCandidates(nodes: readonly AccessibilityNode[], filter: TargetFilter): MarkTarget[] {
  const boxes = frameBoxes(nodes);
  const pool = filter.interactive ? collectInteractive(nodes) : withNamedNodes(nodes);
  const out: MarkTarget[] = [];
  for (const el of pool) {
    const box = boxes.get(el.ref);
    if (!box || box.width < filter.minSize || box.height < filter.minSize) continue;
    if (filter.roles && !filter.roles.has(el.role)) continue;
    out.push({ ref: el.ref, role: el.role, name: el.name, box });
  }
  return out;
}

/** Each ref's box as the snapshot measured it, from its own frame's corner: placeTargets moves it. */
function frameBoxes(nodes: readonly AccessibilityNode[], into = new Map<string, BoundingBox>()): Map<string, BoundingBox> {
  for (const node of nodes) {
    if (node.ref && node.boundingBox) into.set(node.ref, node.boundingBox);
    if (node.children) frameBoxes(node.children, into);
  }
  return into;
}

type Candidate = { ref: string; role: string; name: string };

/**
 * Interactive elements plus every other named node with a ref (headings, images, named regions)
 * that holds no candidate itself and is not inside an interactive element: a named form or a
 * link's image would put a second badge on top of the ones already there.
 */
function withNamedNodes(nodes: readonly AccessibilityNode[]): Candidate[] {
  const interactive = new Map(collectInteractive(nodes).map((el) => [el.ref, el]));
  const out: Candidate[] = [];
  const visit = (list: readonly AccessibilityNode[], covered: boolean) => {
    for (const node of list) {
      const own = node.ref ? interactive.get(node.ref) : undefined;
      const at = out.length;
      if (node.children) visit(node.children, covered || !!own);
      if (own) out.splice(at, 0, own);
      else if (node.ref && node.name && !covered && out.length === at) out.push({ ref: node.ref, role: node.role, name: node.name });
    }
  };
  visit(nodes, false);
  return out;
}

/**
 * Brings every target into the page's viewport coordinates and drops password and card fields.
 * A snapshot measures elements inside an iframe from that frame's corner, so each frame's targets
 * move by the offset Playwright measures for one of them; fields are matched to the frame's
 * SENSITIVE_FIELDS by box. One or two calls per frame, never one per element. A frame that cannot
 * be measured loses its marks rather than risk a mark on the wrong spot or on a password.
 */
export async function placeTargets(page: Page, targets: readonly MarkTarget[], timeout: number): Promise<MarkTarget[]> {
  const frames = new Map<string, MarkTarget[]>();
  for (const target of targets) {
    const members = frames.get(frameKey(target.ref)) ?? [];
    members.push(target);
    frames.set(frameKey(target.ref), members);
  }
  const placed = new Map<string, BoundingBox>();
  await Promise.all(
    [...frames].map(async ([key, members]) => {
      const boxes = await placeFrame(page, key, members, timeout).catch(() => new Map<string, BoundingBox>());
      for (const [ref, box] of boxes) placed.set(ref, box);
    }),
  );
  return targets.flatMap((t) => (placed.has(t.ref) ? [{ ...t, box: placed.get(t.ref)! }] : []));
}

/** Refs of frame N's elements read `f<N>e<M>`; the main frame's are plain `e<M>` (until it navigates). */
function frameKey(ref: string): string {
  return ref.replace(/^@/, '').replace(/e\d+$/, '');
}

async function placeFrame(page: Page, key: string, members: readonly MarkTarget[], timeout: number): Promise<Map<string, BoundingBox>> {
  const anchor = members[0]!;
  const locator = page.locator(`aria-ref=${anchor.ref.replace(/^@/, '')}`);
  const fields = members.some((m) => FIELD_ROLES.has(m.role));
  const [offset, secret] = await Promise.all([
    key ? frameOffset(locator, anchor.box, timeout) : { x: 0, y: 0 },
    fields ? locator.evaluate(sensitiveBoxes, SENSITIVE_FIELDS, { timeout }) : [],
  ]);
  const secretKeys = new Set(secret.map(boxKey));
  const out = new Map<string, BoundingBox>();
  for (const m of members) {
    if (FIELD_ROLES.has(m.role) && secretKeys.has(boxKey(m.box))) continue;
    out.set(m.ref, { x: m.box.x + offset.x, y: m.box.y + offset.y, width: m.box.width, height: m.box.height });
  }
  return out;
}

async function frameOffset(anchor: Locator, box: BoundingBox, timeout: number): Promise<{ x: number; y: number }> {
  const onPage = await anchor.boundingBox({ timeout });
  if (!onPage) throw new Error('frame not measurable');
  return { x: onPage.x - box.x, y: onPage.y - box.y };
}

function boxKey(b: BoundingBox): string {
  return `${b.x},${b.y},${b.width},${b.height}`;
}

/** Runs in the page: the boxes of its frame's sensitive fields, rounded as the AI snapshot rounds them. */
function sensitiveBoxes(anchor: Element, selector: string): BoundingBox[] {
  const boxes: BoundingBox[] = [];
  const visit = (root: Document | ShadowRoot) => {
    for (const el of root.querySelectorAll(selector)) {
      const r = el.getBoundingClientRect();
      boxes.push({ x: Math.round(r.x), y: Math.round(r.y), width: Math.round(r.width), height: Math.round(r.height) });
    }
    for (const el of root.querySelectorAll('*')) if (el.shadowRoot) visit(el.shadowRoot);
  };
  visit(anchor.ownerDocument);
  return boxes;
}
