import type { AccessibilityNode } from '@browseragentprotocol/protocol';

/** A node of `ariaSnapshotJSON({mode: 'ai'})`: an element object or a static text fragment. */
export type RawAriaNode = string | { [key: string]: unknown; role?: string; children?: RawAriaNode[] };

const FLAG_KEYS = ['checked', 'disabled', 'expanded', 'selected', 'pressed', 'level'] as const;

/** Turns Playwright's JSON tree into protocol nodes: refs as `@e5`, `active` as `focused`, text as nodes. */
export function toAccessibilityNodes(raw: readonly RawAriaNode[], secrets: ReadonlySet<string>): AccessibilityNode[] {
  return raw.map((node) => toNode(node, secrets));
}

function toNode(raw: RawAriaNode, secrets: ReadonlySet<string>): AccessibilityNode {
  if (typeof raw === 'string') return { role: 'text', name: raw };
  const node: AccessibilityNode = { role: typeof raw.role === 'string' ? raw.role : 'generic' };
  if (typeof raw.name === 'string' && raw.name) node.name = raw.name;
  if (typeof raw.ref === 'string') node.ref = `@${raw.ref}`;
  if (typeof raw.text === 'string') node.text = secrets.has(raw.text) ? REDACTED : raw.text;
  for (const key of FLAG_KEYS) {
    const value = raw[key];
    if (value !== undefined && value !== false && value !== 0) (node as Record<string, unknown>)[key] = value;
  }
  if (raw.active === true) node.focused = true;
  if (typeof raw.url === 'string') node.url = raw.url;
  if (typeof raw.placeholder === 'string') node.placeholder = raw.placeholder;
  if (raw.cursor === 'pointer') node.clickable = true;
  const box = raw.box as { x: number; y: number; width: number; height: number } | undefined;
  if (box) node.boundingBox = { x: box.x, y: box.y, width: box.width, height: box.height };
  if (Array.isArray(raw.children) && raw.children.length) node.children = toAccessibilityNodes(raw.children, secrets);
  return node;
}

export const REDACTED = '••••••';

export interface RefEntry {
  role: string;
  name: string;
  /**
   * Under an `iframe` node. Only the tree tells: once the main frame has navigated away from a
   * page with iframes, Playwright prefixes the main frame's own refs too (`f3e1`).
   */
  inFrame: boolean;
}

/** Every ref in the tree, in document order, with the role and accessible name it was printed with. */
export function collectRefs(nodes: readonly AccessibilityNode[], inFrame = false, into = new Map<string, RefEntry>()) {
  for (const node of nodes) {
    if (node.ref) into.set(node.ref, { role: node.role, name: node.name ?? '', inFrame });
    if (node.children) collectRefs(node.children, inFrame || node.role === 'iframe', into);
  }
  return into;
}

/**
 * Renders nodes in the YAML of Playwright's AI snapshot (`- button "Go" [ref=@e5]`), from the
 * JSON tree rather than by rewriting Playwright's text, so a page cannot forge a ref inside a name.
 */
export function renderSnapshot(nodes: readonly AccessibilityNode[], { refs = true }: { refs?: boolean } = {}): string {
  const lines: string[] = [];
  for (const node of nodes) renderNode(node, '', lines, refs);
  return lines.join('\n');
}

/** With `refs` false, the marks only the AI snapshot has (`[ref=…]`, `[cursor=pointer]`) are left out. */
function renderNode(node: AccessibilityNode, indent: string, lines: string[], refs: boolean): void {
  if (node.role === 'text') {
    lines.push(`${indent}- text: ${yamlValue(node.name ?? '')}`);
    return;
  }
  let key = node.role;
  if (node.name) key += ` ${JSON.stringify(node.name)}`;
  if (node.checked !== undefined) key += node.checked === 'mixed' ? ' [checked=mixed]' : ' [checked]';
  if (node.disabled) key += ' [disabled]';
  if (node.expanded) key += ' [expanded]';
  if (node.focused) key += ' [active]';
  if (node.level) key += ` [level=${node.level}]`;
  if (node.pressed !== undefined) key += node.pressed === 'mixed' ? ' [pressed=mixed]' : ' [pressed]';
  if (node.selected) key += ' [selected]';
  if (refs && node.ref) key += ` [ref=${node.ref}]`;
  if (refs && node.clickable) key += ' [cursor=pointer]';
  if (node.boundingBox) {
    const b = node.boundingBox;
    key += ` [box=${[b.x, b.y, b.width, b.height].map(Math.round).join(',')}]`;
  }
  const props: string[] = [];
  if (node.url !== undefined) props.push(`/url: ${yamlValue(node.url)}`);
  if (node.placeholder !== undefined) props.push(`/placeholder: ${yamlValue(node.placeholder)}`);
  const children = node.children ?? [];
  const head = `${indent}- ${yamlKey(key)}`;
  if (!children.length && !props.length) {
    lines.push(node.text !== undefined ? `${head}: ${yamlValue(node.text)}` : head);
    return;
  }
  lines.push(`${head}:`);
  const inner = `${indent}  `;
  if (node.text !== undefined) lines.push(`${inner}- text: ${yamlValue(node.text)}`);
  for (const prop of props) lines.push(`${inner}- ${prop}`);
  for (const child of children) renderNode(child, inner, lines, refs);
}

function yamlKey(key: string): string {
  return /: |:$| #/.test(key) ? `'${key.replaceAll("'", "''")}'` : key;
}

function yamlValue(value: string): string {
  const needsQuotes =
    value === '' ||
    value !== value.trim() ||
    /^[-?:,[\]{}#&*!|>'"%@`]/.test(value) ||
    /: |:$| #|[\n\r\t]/.test(value) ||
    /^(true|false|null|~|yes|no|on|off)$/i.test(value) ||
    !Number.isNaN(Number(value));
  return needsQuotes ? JSON.stringify(value) : value;
}
