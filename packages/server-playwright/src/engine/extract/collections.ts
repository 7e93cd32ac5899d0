import { words } from './names.js';
import { isInside, textOf, within, type TreeNode } from './tree.js';

/** A set of similar things on the page that an array can be read from. */
export interface Collection {
  kind: 'table' | 'list';
  container: TreeNode;
  items: TreeNode[];
  /** Tables: each column's header words, by cell index. */
  headers?: string[][];
  /** Words of its caption or name and of the heading before it, for instruction and property names to match. */
  context: string[];
  /** In a navigation bar, header or footer: chosen last when nothing else tells. */
  chrome: boolean;
}

const TABLES = new Set(['table', 'grid', 'treegrid']);
const CELLS = new Set(['cell', 'gridcell', 'rowheader', 'columnheader']);
const REPEATABLE = new Set(['article', 'group', 'generic', 'region', 'listitem', 'figure', 'row']);
const NOT_REPEATED_IN = new Set(['list', 'rowgroup', 'row', 'table', 'grid', 'treegrid', 'listbox', 'combobox', 'radiogroup', 'menu', 'tablist']);
const CHROME = new Set(['navigation', 'banner', 'contentinfo']);

/**
 * Every table with column headers, every list, and every run of two or more siblings built
 * alike (cards as `<div>`s or `<article>`s), in document order.
 */
export function findCollections(roots: readonly TreeNode[]): Collection[] {
  const found: Collection[] = [];
  let lastHeading = '';
  for (const t of within(roots)) {
    if (t.role === 'heading') lastHeading = textOf(t);
    const context = (own: string) => words(`${own} ${lastHeading} ${surroundings(t)}`);
    const chrome = CHROME.has(t.role) || isInside(t, CHROME);
    if (TABLES.has(t.role)) {
      const table = tableOf(t);
      if (table) found.push({ kind: 'table', container: t, ...table, context: context(t.node.name ?? ''), chrome });
    } else if (t.role === 'list') {
      const items = t.children.filter((c) => c.role === 'listitem');
      if (items.length) found.push({ kind: 'list', container: t, items, context: context(t.node.name ?? ''), chrome });
    } else if (!NOT_REPEATED_IN.has(t.role)) {
      for (const items of repeatedChildren(t)) found.push({ kind: 'list', container: t, items, context: context(t.node.name ?? ''), chrome });
    }
  }
  return found;
}

const LANDMARKS = new Set(['navigation', 'banner', 'contentinfo', 'main', 'complementary', 'search', 'form', 'region']);
const NAMED_CONTAINERS = new Set([...LANDMARKS, 'group', 'article', 'dialog', 'tabpanel']);

/** The landmarks a collection sits in and the names of its ancestors ("navigation", "Deals"). */
function surroundings(t: TreeNode): string {
  const parts: string[] = [];
  for (let at = t.parent; at; at = at.parent) {
    if (LANDMARKS.has(at.role)) parts.push(at.role);
    if (at.node.name && NAMED_CONTAINERS.has(at.role)) parts.push(at.node.name);
  }
  return parts.join(' ');
}

/**
 * A table's data rows and column headers: the first row with `<th>`s, or else the first row
 * when rows have three or more cells (two-cell rows are label/value pairs, read as fields).
 */
function tableOf(table: TreeNode): { items: TreeNode[]; headers: string[][] } | undefined {
  const rows = within([table]).filter((r) => r.role === 'row' && nearestTable(r) === table);
  let headerAt = rows.findIndex((r) => r.children.some((c) => c.role === 'columnheader'));
  if (headerAt < 0 && rows.length > 1 && rowCells(rows[0]!).length >= 3) headerAt = 0;
  if (headerAt < 0) return undefined;
  const headers = rowCells(rows[headerAt]!).map((c) => words(textOf(c)));
  const items = rows.slice(headerAt + 1).filter((r) => r.children.some((c) => CELLS.has(c.role) && c.role !== 'columnheader'));
  return { items, headers };
}

function nearestTable(t: TreeNode): TreeNode | undefined {
  for (let at = t.parent; at; at = at.parent) if (TABLES.has(at.role)) return at;
  return undefined;
}

/** Runs of children with the same role whose first children have the same roles (a card grid). */
function repeatedChildren(parent: TreeNode): TreeNode[][] {
  const groups = new Map<string, TreeNode[]>();
  for (const child of parent.children) {
    if (!REPEATABLE.has(child.role) || !child.children.length) continue;
    const signature = `${child.role}|${child.children.slice(0, 2).map((c) => c.role).join(',')}`;
    groups.set(signature, [...(groups.get(signature) ?? []), child]);
  }
  return [...groups.values()].filter((g) => g.length >= 2);
}

/** The cells of a table row, by the index their header has. */
export function rowCells(row: TreeNode): TreeNode[] {
  return row.children.filter((c) => CELLS.has(c.role));
}
