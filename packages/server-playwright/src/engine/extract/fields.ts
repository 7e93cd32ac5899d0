import { words, type PropertyKind } from './names.js';
import { FIELD_ROLES, firstLink, isInside, isToggle, refOf, selectedOptions, textOf, within, type TreeNode } from './tree.js';

/** Where a value was read from, as `sources[].from` reports it. */
export type SourceKind = 'table' | 'list' | 'form' | 'definitions' | 'section' | 'links' | 'metadata' | 'json-ld' | 'opengraph' | 'selector';

/** A labelled value found on the page (or in its metadata) that a schema property may take. */
export interface Field {
  /** The label's words; empty for a field matched by property kind instead. */
  words: string[];
  /** Set on fields matched by what a property is (its name is a name, a URL, a price...), not its label. */
  kind?: PropertyKind;
  value: unknown;
  url?: string | undefined;
  ref?: string | undefined;
  from: SourceKind;
  /** Source priority among equally good label matches: lower wins. */
  rank: number;
  order: number;
}

/** Priorities, best first: what the page labels explicitly beats what it merely suggests. */
export const RANK = { form: 0, definitions: 1, table: 1, labelled: 2, jsonLd: 3, openGraph: 4, metadata: 5, heading: 6, link: 6.5, implicit: 7 } as const;

const LABEL_HOSTS = new Set(['paragraph', 'listitem', 'text', 'generic', 'cell', 'definition', 'caption', 'status', 'note', 'blockquote']);
const BLOCKS = new Set(['paragraph', 'listitem', 'list', 'table', 'row', 'heading', 'generic', 'article', 'group', 'region', 'form', 'definition', 'term']);
const MONEY = /^(?:[A-Z]{3}|[$€£¥₹₩₽¢]|kr|CHF|zł)?\s?[-+]?\d[\d.,'\s\u00a0]*\s?(?:[A-Z]{3}|[$€£¥₹₩₽¢]|kr|CHF|zł|,-)?$/;
const CURRENCY = /[$€£¥₹₩₽¢]|\b[A-Z]{3}\b|\bkr\b|\bCHF\b|zł/;
const LABEL_VALUE = /^([^:]{1,40}?)\s*:\s+(\S[\s\S]{0,1000})$/;

/** Every labelled value under `roots`: form fields, definition lists, key-value tables, "Label: value" text, headed sections, links. */
export function labelledFields(roots: readonly TreeNode[]): Field[] {
  const fields: Field[] = [];
  for (const t of within(roots)) {
    if (FIELD_ROLES.has(t.role)) formFields(t, fields);
    else if (t.role === 'term') definition(t, fields);
    else if (t.role === 'table') keyValueRows(t, fields);
    else if (t.role === 'heading') section(t, fields);
    else if (t.role === 'link' && t.node.url && textOf(t)) {
      fields.push({ words: words(textOf(t)), value: textOf(t), url: t.node.url, ref: t.node.ref, from: 'links', rank: RANK.link, order: t.order });
    }
    if (LABEL_HOSTS.has(t.role) && !t.children.some((c) => BLOCKS.has(c.role))) labelValue(t, fields);
  }
  return fields;
}

function formFields(t: TreeNode, into: Field[]): void {
  const label = words(t.node.name || t.node.placeholder || '');
  const base = { words: label, ref: t.node.ref, from: 'form' as const, rank: RANK.form, order: t.order };
  if (t.role === 'listbox') into.push({ ...base, value: selectedOptions(t).map((o) => o.node.name ?? '') });
  else if (isToggle(t)) {
    if (t.node.checked !== 'mixed') into.push({ ...base, value: t.node.checked === true });
    if (t.role === 'radio' && t.node.checked === true) radioGroup(t, into);
  } else if (textOf(t)) into.push({ ...base, value: textOf(t) });
}

/** A checked radio gives its group's label the radio's name as value. */
function radioGroup(radio: TreeNode, into: Field[]): void {
  for (let at = radio.parent; at; at = at.parent) {
    if ((at.role === 'radiogroup' || at.role === 'group') && at.node.name) {
      into.push({ words: words(at.node.name), value: radio.node.name ?? '', ref: radio.node.ref, from: 'form', rank: RANK.form, order: at.order });
      return;
    }
  }
}

function definition(term: TreeNode, into: Field[]): void {
  const siblings = term.parent?.children ?? [];
  const values: TreeNode[] = [];
  for (const next of siblings.slice(siblings.indexOf(term) + 1)) {
    if (next.role !== 'definition') break;
    values.push(next);
  }
  if (!values.length) return;
  into.push({
    words: words(textOf(term)),
    value: values.length === 1 ? textOf(values[0]!) : values.map(textOf),
    url: linkUrl(values[0]!),
    ref: values[0]!.node.ref,
    from: 'definitions',
    rank: RANK.definitions,
    order: term.order,
  });
}

/** A table without column headers whose rows pair a label with a value (specification sheets). */
function keyValueRows(table: TreeNode, into: Field[]): void {
  const rows = within([table]).filter((r) => r.role === 'row');
  const hasColumnHeaders = rows.some((r) => r.children.some((c) => c.role === 'columnheader'));
  const hasRowHeaders = rows.some((r) => r.children[0]?.role === 'rowheader');
  if (hasColumnHeaders && !hasRowHeaders) return;
  for (const row of rows) {
    const [key, value] = row.children;
    if (row.children.length !== 2 || !key || !value || value.role !== 'cell') continue;
    into.push({ words: words(textOf(key)), value: textOf(value), url: linkUrl(value), ref: value.node.ref, from: 'table', rank: RANK.table, order: row.order });
  }
}

/** A heading labels the content after it, up to the next heading of the same or a higher level. */
function section(heading: TreeNode, into: Field[]): void {
  const content = sectionContent(heading);
  const text = content.map(textOf).filter(Boolean).join(' ').slice(0, 2_000);
  if (!text) return;
  into.push({ words: words(textOf(heading)), value: text, ref: refOf(content[0]!), from: 'section', rank: RANK.heading, order: heading.order });
}

/** The siblings after a heading, up to the next heading of the same or a higher level. */
export function sectionContent(heading: TreeNode): TreeNode[] {
  const siblings = heading.parent?.children ?? [];
  const level = heading.node.level ?? 6;
  const content: TreeNode[] = [];
  for (const next of siblings.slice(siblings.indexOf(heading) + 1)) {
    if (next.role === 'heading' && (next.node.level ?? 6) <= level) break;
    content.push(next);
  }
  return content;
}

function labelValue(t: TreeNode, into: Field[]): void {
  const match = LABEL_VALUE.exec(textOf(t));
  if (!match || !/\p{L}/u.test(match[1]!)) return;
  into.push({ words: words(match[1]!), value: match[2]!.trim(), url: linkUrl(t), ref: refOf(t), from: 'section', rank: RANK.labelled, order: t.order });
}

function linkUrl(t: TreeNode): string | undefined {
  return firstLink(t)?.node.url;
}

/**
 * Values matched by what a property is rather than by a label: the top heading is a name, a
 * link (inside an item) is a URL, a money amount is a price, a plain paragraph is a description.
 */
export function implicitFields(roots: readonly TreeNode[], item: boolean): Field[] {
  const all = within(roots);
  const fields: Field[] = [];
  const base = { words: [], from: 'section' as const, rank: RANK.implicit };
  const headings = all.filter((t) => t.role === 'heading' && textOf(t));
  const top = headings.reduce<TreeNode | undefined>((best, h) => (!best || (h.node.level ?? 6) < (best.node.level ?? 6) ? h : best), undefined);
  const links = all.filter((t) => t.role === 'link' && t.node.url !== undefined && !isInside(t, NAVIGATION));
  const named = top ?? (item ? links.find((l) => textOf(l)) : undefined);
  if (named) fields.push({ ...base, kind: 'name', value: textOf(named), url: linkUrl(named), ref: refOf(named), order: named.order });
  const link = (top && firstLink(top)) ?? links[0];
  if (item && link?.node.url) fields.push({ ...base, kind: 'url', value: link.node.url, url: link.node.url, ref: refOf(link), from: 'links', order: link.order });
  const leaves = all.filter((t) => LABEL_HOSTS.has(t.role) && !t.children.some((c) => BLOCKS.has(c.role)) && textOf(t));
  const money = leaves.find((t) => isMoney(textOf(t)));
  if (money) fields.push({ ...base, kind: 'price', value: textOf(money), ref: refOf(money), order: money.order });
  const prose = leaves.find((t) => t.role !== 'cell' && !isMoney(textOf(t)) && !LABEL_VALUE.test(textOf(t)) && !isInside(t, NAVIGATION) && textOf(t).includes(' '));
  if (prose) fields.push({ ...base, kind: 'description', value: textOf(prose), ref: refOf(prose), order: prose.order });
  return fields;
}

const NAVIGATION = new Set(['navigation', 'banner', 'contentinfo']);

function isMoney(text: string): boolean {
  return text.length <= 40 && MONEY.test(text) && CURRENCY.test(text);
}
