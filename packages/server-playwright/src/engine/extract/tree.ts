import type { AccessibilityNode } from '@browseragentprotocol/protocol';
import { REDACTED } from '../ariaTree.js';

/** A snapshot node with its parent and its place in document order. */
export interface TreeNode {
  readonly node: AccessibilityNode;
  readonly role: string;
  readonly parent: TreeNode | null;
  readonly children: TreeNode[];
  /** Position in document order across the whole snapshot. */
  readonly order: number;
}

/** Roles whose text is the value the user entered or picked, not their label. */
export const FIELD_ROLES = new Set(['textbox', 'searchbox', 'spinbutton', 'slider', 'combobox', 'checkbox', 'radio', 'switch', 'listbox']);

/** Links the snapshot's nodes to their parents; `all` lists every node in document order. */
export function buildTree(nodes: readonly AccessibilityNode[]): { roots: TreeNode[]; all: TreeNode[] } {
  const all: TreeNode[] = [];
  const make = (node: AccessibilityNode, parent: TreeNode | null): TreeNode => {
    const t: TreeNode = { node, role: node.role, parent, children: [], order: all.length };
    all.push(t);
    for (const child of node.children ?? []) t.children.push(make(child, t));
    return t;
  };
  return { roots: nodes.map((n) => make(n, null)), all };
}

/** The ref a value read from this node points at: its own, or its nearest ancestor's for text fragments. */
export function refOf(t: TreeNode): string | undefined {
  for (let at: TreeNode | null = t; at; at = at.parent) if (at.node.ref) return at.node.ref;
  return undefined;
}

const texts = new WeakMap<TreeNode, string>();

/**
 * What a user reads in a node, whitespace collapsed: a field's value (never its label), a cell's
 * or link's name, or its children's text joined. Redacted secrets read as empty.
 */
export function textOf(t: TreeNode): string {
  let text = texts.get(t);
  if (text === undefined) {
    text = clean(rawText(t));
    texts.set(t, text);
  }
  return text;
}

function rawText(t: TreeNode): string {
  const { node } = t;
  if (node.text === REDACTED) return '';
  if (t.role === 'text') return node.name ?? node.text ?? '';
  if (t.role === 'combobox') return selectedOptions(t)[0]?.node.name ?? node.text ?? '';
  if (FIELD_ROLES.has(t.role)) return t.role === 'listbox' || isToggle(t) ? '' : (node.text ?? '');
  if (!t.children.length) return node.text ?? node.name ?? '';
  return [node.text ?? '', ...t.children.map(textOf)].join(' ');
}

function clean(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

export function isToggle(t: TreeNode): boolean {
  return t.role === 'checkbox' || t.role === 'radio' || t.role === 'switch';
}

export function selectedOptions(t: TreeNode): TreeNode[] {
  return descendants(t).filter((d) => d.role === 'option' && d.node.selected);
}

/** Every node under `t`, in document order (not `t` itself). */
export function descendants(t: TreeNode): TreeNode[] {
  const out: TreeNode[] = [];
  const visit = (n: TreeNode) => {
    for (const c of n.children) {
      out.push(c);
      visit(c);
    }
  };
  visit(t);
  return out;
}

/** The nodes of a scope and everything under them, in document order. */
export function within(roots: readonly TreeNode[]): TreeNode[] {
  return roots.flatMap((r) => [r, ...descendants(r)]);
}

export function isInside(t: TreeNode, roles: ReadonlySet<string>): boolean {
  for (let at = t.parent; at; at = at.parent) if (roles.has(at.role)) return true;
  return false;
}

/** The first link in or at `t`, or undefined. */
export function firstLink(t: TreeNode): TreeNode | undefined {
  return t.role === 'link' ? t : descendants(t).find((d) => d.role === 'link' && d.node.url !== undefined);
}
