import type { AccessibilityNode, BoundingBox, InteractiveElement, Selector } from '@browseragentprotocol/protocol';
import { CHECKABLE_ROLES, INTERACTIVE_ROLES, VALUE_ROLES } from '../page/roles.js';

type Hint = InteractiveElement['actionHints'][number];

const HINTS: Record<string, Hint[]> = {
  textbox: ['fill', 'type'],
  searchbox: ['fill', 'type'],
  spinbutton: ['fill', 'type'],
  slider: ['fill'],
  checkbox: ['check', 'click'],
  radio: ['check', 'click'],
  switch: ['check', 'click'],
  combobox: ['select', 'fill'],
};

/** A node of the page's AI snapshot an agent can act on, with what the snapshot says about it. */
export interface ElementNode {
  ref: string;
  role: string;
  name: string;
  /** Field value (already blanked when secret). */
  value?: string;
  checked?: boolean | 'mixed';
  expanded?: boolean;
  selected?: boolean;
  disabled?: boolean;
  focused?: boolean;
  url?: string;
  bounds?: BoundingBox;
  /** Inside an iframe. */
  inFrame: boolean;
}

interface Offset {
  x: number;
  y: number;
}

/**
 * The interactive elements of a snapshot tree, in document order: nodes with an interactive role
 * and a ref, plus anything else the page marks clickable (`cursor: pointer`) that no interactive
 * ancestor already covers. Playwright measures each frame's boxes in that frame's own viewport;
 * boxes inside iframes are moved by their iframe's position, so all are in the observed
 * frame's viewport (the iframe's border aside).
 */
export function collectInteractive(nodes: readonly AccessibilityNode[]): ElementNode[] {
  const out: ElementNode[] = [];
  const visit = (list: readonly AccessibilityNode[], inFrame: boolean, covered: boolean, offset: Offset) => {
    for (const node of list) {
      const interactive = !!node.ref && (INTERACTIVE_ROLES.has(node.role) || (node.clickable === true && !covered));
      if (interactive) out.push(toElement(node, inFrame, offset));
      if (!node.children) continue;
      const box = node.role === 'iframe' ? node.boundingBox : undefined;
      const inner = box ? { x: offset.x + box.x, y: offset.y + box.y } : offset;
      visit(node.children, inFrame || node.role === 'iframe', covered || interactive, inner);
    }
  };
  visit(nodes, false, false, { x: 0, y: 0 });
  return out;
}

function toElement(node: AccessibilityNode, inFrame: boolean, offset: Offset): ElementNode {
  const el: ElementNode = { ref: node.ref!, role: node.role, name: node.name ?? '', inFrame };
  const value = node.role === 'combobox' ? (selectedOption(node) ?? node.text) : node.text;
  if (value !== undefined && VALUE_ROLES.has(node.role)) el.value = value;
  // The snapshot leaves out a false `checked`; an unchecked box says so in its object.
  if (node.checked !== undefined || CHECKABLE_ROLES.has(node.role)) el.checked = node.checked ?? false;
  if (node.expanded !== undefined) el.expanded = node.expanded;
  if (node.selected) el.selected = true;
  if (node.disabled) el.disabled = true;
  if (node.focused) el.focused = true;
  if (node.url !== undefined) el.url = node.url;
  if (node.boundingBox) el.bounds = { ...node.boundingBox, x: node.boundingBox.x + offset.x, y: node.boundingBox.y + offset.y };
  return el;
}

function selectedOption(node: AccessibilityNode): string | undefined {
  return node.children?.find((c) => c.role === 'option' && c.selected)?.name;
}

export function actionHints(el: ElementNode): Hint[] {
  const hints = [...(HINTS[el.role] ?? ['click'])];
  if (el.expanded !== undefined) hints.push('expand');
  return hints;
}

/**
 * A role+name selector to fall back on when the ref has gone stale; the ref itself when there is
 * no name, or inside an iframe, where a role selector run in the observed frame cannot reach.
 */
export function fallbackSelector(el: ElementNode): Selector {
  return el.name && !el.inFrame ? { type: 'role', role: el.role, name: el.name, exact: true } : { type: 'ref', ref: el.ref };
}

/**
 * One element as one short line, the interactive tier's format:
 * `@e5 button "Sign in" [disabled]`, `@e6 textbox "Email" = "a@b.c"`. `minimal` drops value and
 * states; `withBounds` appends `[box=x,y,width,height]` as Playwright's snapshots print it. Focus
 * is left out: the observation's metadata names the focused element, and a state that moves
 * with every click would make each incremental observation report two changed lines.
 */
export function elementLine(el: ElementNode, minimal = false, withBounds = false): string {
  let line = `${el.ref} ${el.role}`;
  if (el.name) line += ` ${JSON.stringify(el.name)}`;
  if (!minimal) line += states(el);
  if (withBounds && el.bounds) line += ` [box=${[el.bounds.x, el.bounds.y, el.bounds.width, el.bounds.height].map(Math.round).join(',')}]`;
  return line;
}

function states(el: ElementNode): string {
  let out = '';
  if (el.value !== undefined && el.value !== '') out += ` = ${JSON.stringify(el.value)}`;
  if (el.checked) out += el.checked === 'mixed' ? ' [mixed]' : ' [checked]';
  if (el.expanded) out += ' [expanded]';
  if (el.selected) out += ' [selected]';
  if (el.disabled) out += ' [disabled]';
  return out;
}

/** The full tier's object for an element. */
export function elementObject(el: ElementNode, withBounds: boolean): InteractiveElement {
  const out: InteractiveElement = { ref: el.ref, selector: fallbackSelector(el), role: el.role, name: el.name, actionHints: actionHints(el) };
  if (el.value !== undefined) out.value = el.value;
  if (el.checked !== undefined) out.checked = el.checked;
  if (el.expanded !== undefined) out.expanded = el.expanded;
  if (el.selected) out.selected = true;
  if (el.url !== undefined) out.url = el.url;
  if (withBounds && el.bounds) out.bounds = el.bounds;
  if (el.focused) out.focused = true;
  if (el.disabled) out.disabled = true;
  return out;
}
