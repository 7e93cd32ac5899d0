/*
 * Runs in the page (bundled by scripts/bundle-page.mjs with dom-accessibility-api): the
 * interactive tier of an observation in one pass over the document, for the candidates alone.
 * It lists what Playwright's AI snapshot would give a ref and our collectInteractive would keep
 * (engine/interactive.ts): visible elements that receive pointer events and have an interactive
 * role, or a pointer cursor no listed ancestor already covers. Roles follow Playwright's
 * (HTML-AAM) mapping; names are dom-accessibility-api's accessible names. Each listed element
 * keeps its id in this document's ref table for as long as it lives, so refs stay stable across
 * observations; the `bap_ref` selector engine (engine/pageScripts.ts refEngine) reads the table.
 */
import { computeAccessibleName } from 'dom-accessibility-api';
import type { ElementNode } from '../engine/interactive.js';
import { changeStamp, installFastLabels, type RefTable } from '../engine/pageScripts.js';
import { CHECKABLE_ROLES, INTERACTIVE_ROLES, VALUE_ROLES } from './roles.js';

export interface WalkArgs {
  /** The document's change stamp at the last walk: when it has not moved, nothing is walked. */
  stamp: string | null;
  /** The table's id at the last walk: another one is another document. */
  table: string | null;
  boxes: boolean;
  /** CSS of password and card fields (SENSITIVE_FIELDS): their values never leave the page. */
  sensitive: string;
}

/** An element as the walk lists it: the tier's element, with the id of its ref and its box as numbers. */
export type WalkedElement = Omit<ElementNode, 'ref' | 'bounds' | 'inFrame'> & {
  id: number;
  /** The value is a secret (a password or card field's, or equal to one): left out. */
  redacted?: true;
  box?: [number, number, number, number];
};

export type WalkResult =
  | { unchanged: true; table: string; stamp: string | null }
  | {
      unchanged: false;
      table: string;
      stamp: string | null;
      elements: WalkedElement[];
      /** The focused element when it is not listed (a focusable heading, say): the metadata names it. */
      focus?: WalkedElement;
    };

const TABLE = Symbol.for('bap.refTable');

const CHECKED_ROLES = new Set(['checkbox', 'menuitemcheckbox', 'option', 'radio', 'switch', 'menuitemradio', 'treeitem']);
const EXPANDED_ROLES = new Set(['application', 'button', 'checkbox', 'combobox', 'gridcell', 'link', 'listbox', 'menuitem', 'row', 'rowheader', 'tab', 'treeitem', 'columnheader', 'menuitemcheckbox', 'menuitemradio', 'switch']);
const SELECTED_ROLES = new Set(['gridcell', 'option', 'row', 'tab', 'rowheader', 'columnheader', 'treeitem']);
const DISABLE_ROLES = new Set(['application', 'button', 'composite', 'gridcell', 'group', 'input', 'link', 'menuitem', 'scrollbar', 'separator', 'tab', 'checkbox', 'columnheader', 'combobox', 'grid', 'listbox', 'menu', 'menubar', 'menuitemcheckbox', 'menuitemradio', 'option', 'radio', 'radiogroup', 'row', 'rowheader', 'searchbox', 'select', 'slider', 'spinbutton', 'switch', 'tablist', 'textbox', 'toolbar', 'tree', 'treegrid', 'treeitem']);
const VALID_ROLES = new Set([...INTERACTIVE_ROLES, 'alert', 'alertdialog', 'application', 'article', 'banner', 'blockquote', 'caption', 'cell', 'code', 'columnheader', 'complementary', 'contentinfo', 'definition', 'deletion', 'dialog', 'directory', 'document', 'emphasis', 'feed', 'figure', 'form', 'generic', 'grid', 'gridcell', 'group', 'heading', 'img', 'insertion', 'list', 'listbox', 'listitem', 'log', 'main', 'mark', 'marquee', 'math', 'meter', 'menu', 'menubar', 'navigation', 'none', 'note', 'paragraph', 'presentation', 'progressbar', 'radiogroup', 'region', 'row', 'rowgroup', 'rowheader', 'scrollbar', 'search', 'separator', 'status', 'strong', 'subscript', 'superscript', 'table', 'tablist', 'tabpanel', 'term', 'time', 'timer', 'toolbar', 'tooltip', 'tree', 'treegrid']);
/** Tags whose implicit role can be interactive (upper case, as `tagName` of HTML elements). */
const MAY_INTERACT = new Set(['A', 'AREA', 'BUTTON', 'INPUT', 'SELECT', 'TEXTAREA', 'OPTION']);
const PRESENTATION = new Set(['none', 'presentation']);
/** Global ARIA attributes that keep an element's own role under role="none" (ARIA's conflict resolution). */
const GLOBAL_ARIA = ['aria-atomic', 'aria-busy', 'aria-controls', 'aria-current', 'aria-describedby', 'aria-details', 'aria-dropeffect', 'aria-flowto', 'aria-grabbed', 'aria-hidden', 'aria-keyshortcuts', 'aria-label', 'aria-labelledby', 'aria-live', 'aria-owns', 'aria-relevant', 'aria-roledescription'];
const TEXT_INPUTS = new Set(['email', 'search', 'tel', 'text', 'url', '']);
const INPUT_ROLES: Record<string, string> = { button: 'button', checkbox: 'checkbox', image: 'button', number: 'spinbutton', radio: 'radio', range: 'slider', reset: 'button', submit: 'button', file: 'button' };
const LANDMARK_BLOCKERS = 'article:not([role]), aside:not([role]), main:not([role]), nav:not([role]), section:not([role]), [role=article], [role=complementary], [role=main], [role=navigation], [role=region]';
/** Children whose implicit role follows a presentational parent (a list item of a list with role="none"). */
const INHERITS_PRESENTATION: Record<string, string[]> = { DD: ['DL', 'DIV'], DIV: ['DL'], DT: ['DL', 'DIV'], LI: ['OL', 'UL'], TBODY: ['TABLE'], TD: ['TR'], TFOOT: ['TABLE'], TH: ['TR'], THEAD: ['TABLE'], TR: ['THEAD', 'TBODY', 'TFOOT', 'TABLE'] };
const TAG_ROLES: Record<string, string> = {
  ARTICLE: 'article', ASIDE: 'complementary', BLOCKQUOTE: 'blockquote', BUTTON: 'button', CAPTION: 'caption', CODE: 'code', DATALIST: 'listbox', DD: 'definition', DEL: 'deletion', DETAILS: 'group', DFN: 'term', DIALOG: 'dialog', DT: 'term', EM: 'emphasis', FIELDSET: 'group', FIGURE: 'figure',
  H1: 'heading', H2: 'heading', H3: 'heading', H4: 'heading', H5: 'heading', H6: 'heading', HR: 'separator', HTML: 'document', INS: 'insertion', LI: 'listitem', MAIN: 'main', MARK: 'mark', MATH: 'math', MENU: 'list', METER: 'meter', NAV: 'navigation', OL: 'list', OPTGROUP: 'group', OPTION: 'option', OUTPUT: 'status', P: 'paragraph', PROGRESS: 'progressbar',
  SEARCH: 'search', STRONG: 'strong', SUB: 'subscript', SUP: 'superscript', SVG: 'img', TABLE: 'table', TBODY: 'rowgroup', TD: 'cell', TEXTAREA: 'textbox', TFOOT: 'rowgroup', TH: 'columnheader', THEAD: 'rowgroup', TIME: 'time', TR: 'row', UL: 'list',
};

const tagOf = (el: Element) => el.tagName.toUpperCase();
const parentOrHost = (el: Element): Element | null => el.parentElement ?? ((el.parentNode as ShadowRoot | null)?.host || null);
const normalize = (text: string) => text.replace(/[\u200b\u00ad]/g, '').trim().replace(/\s+/g, ' ');
const hasGlobalAria = (el: Element) => GLOBAL_ARIA.some((a) => el.hasAttribute(a));
const hasTabIndex = (el: Element) => !Number.isNaN(Number(String(el.getAttribute('tabindex'))));
const nativelyDisabled = (el: Element) => ['BUTTON', 'INPUT', 'SELECT', 'TEXTAREA', 'OPTION', 'OPTGROUP'].includes(tagOf(el)) && el.matches(':disabled');

function focusable(el: Element): boolean {
  if (nativelyDisabled(el)) return false;
  const tag = tagOf(el);
  if (['BUTTON', 'DETAILS', 'SELECT', 'TEXTAREA'].includes(tag)) return true;
  if (tag === 'A' || tag === 'AREA') return el.hasAttribute('href');
  if (tag === 'INPUT') return !(el as HTMLInputElement).hidden;
  return hasTabIndex(el);
}

function explicitRole(el: Element): string | null {
  for (const token of (el.getAttribute('role') ?? '').toLowerCase().split(/\s+/)) if (VALID_ROLES.has(token)) return token;
  return null;
}

function tagRole(el: Element): string | null {
  const tag = tagOf(el);
  switch (tag) {
    case 'A':
    case 'AREA':
      return el.hasAttribute('href') ? 'link' : null;
    case 'FOOTER':
    case 'HEADER':
      return parentOrHost(el)?.closest(LANDMARK_BLOCKERS) ? null : tag === 'FOOTER' ? 'contentinfo' : 'banner';
    case 'FORM':
    case 'SECTION':
      return el.hasAttribute('aria-label') || el.hasAttribute('aria-labelledby') ? (tag === 'FORM' ? 'form' : 'region') : null;
    case 'IMG':
      return el.getAttribute('alt') === '' && !el.getAttribute('title') && !hasGlobalAria(el) && !el.hasAttribute('tabindex') ? 'presentation' : 'img';
    case 'INPUT': {
      const input = el as HTMLInputElement;
      const type = input.type.toLowerCase();
      if (TEXT_INPUTS.has(type)) {
        const list = input.getAttribute('list');
        if (list && el.ownerDocument.getElementById(list)?.tagName === 'DATALIST') return 'combobox';
        return type === 'search' ? 'searchbox' : 'textbox';
      }
      return type === 'hidden' ? null : (INPUT_ROLES[type] ?? 'textbox');
    }
    case 'SELECT': {
      const select = el as HTMLSelectElement;
      return select.multiple || select.size > 1 ? 'listbox' : 'combobox';
    }
    default:
      return TAG_ROLES[tag] ?? null;
  }
}

function implicitRole(el: Element): string | null {
  const role = tagRole(el);
  if (!role) return null;
  for (let child = el; ; ) {
    const parent = parentOrHost(child);
    if (!parent || !INHERITS_PRESENTATION[tagOf(child)]?.includes(tagOf(parent))) return role;
    const parentRole = explicitRole(parent);
    if (parentRole && PRESENTATION.has(parentRole) && !hasGlobalAria(parent) && !focusable(parent)) return parentRole;
    child = parent;
  }
}

/** Playwright's role of an element: null for none; 'generic' for an element without one. */
function roleOf(el: Element): string | null {
  const explicit = explicitRole(el);
  if (explicit && !PRESENTATION.has(explicit)) return explicit;
  const implicit = implicitRole(el);
  if (explicit && !(hasGlobalAria(el) || focusable(el))) return null;
  return implicit && PRESENTATION.has(implicit) ? null : (implicit ?? 'generic');
}

function ariaDisabled(el: Element | null, ancestor: boolean, role: string | null): boolean {
  if (!el) return false;
  if (!ancestor && !DISABLE_ROLES.has(role ?? '')) return false;
  const value = (el.getAttribute('aria-disabled') ?? '').toLowerCase();
  if (value === 'true') return true;
  if (value === 'false') return false;
  return ariaDisabled(parentOrHost(el), true, null);
}

function checkedOf(el: Element, role: string): boolean | 'mixed' | undefined {
  if (!CHECKED_ROLES.has(role)) return undefined;
  if (tagOf(el) === 'INPUT') {
    const input = el as HTMLInputElement;
    if (input.indeterminate) return 'mixed';
    if (input.type === 'checkbox' || input.type === 'radio') return input.checked;
  }
  const value = el.getAttribute('aria-checked');
  return value === 'true' ? true : value === 'mixed' ? 'mixed' : false;
}

/** Playwright's box: visible (style and a non-empty rect), and whether the element is inline. */
function boxOf(el: Element, style: CSSStyleDeclaration): { visible: boolean; rect?: DOMRect } {
  if (style.display === 'contents') {
    for (let child = el.firstChild; child; child = child.nextSibling) {
      if (child.nodeType === 1 && boxOf(child as Element, getComputedStyle(child as Element)).visible) return { visible: true };
      if (child.nodeType === 3 && child.nodeValue?.trim()) return { visible: true };
    }
    return { visible: false };
  }
  if (!el.checkVisibility() || style.visibility !== 'visible') return { visible: false };
  const rect = el.getBoundingClientRect();
  return { visible: rect.width > 0 && rect.height > 0, rect };
}

function tableOf(): RefTable {
  const host = globalThis as unknown as Record<symbol, RefTable | undefined>;
  let table = host[TABLE];
  if (!table) {
    table = { id: Math.random().toString(36).slice(2, 10), next: 1, ids: new WeakMap(), elements: new Map() };
    Object.defineProperty(globalThis, TABLE, { value: table });
  }
  return table;
}

export function walk(args: WalkArgs): WalkResult {
  const table = tableOf();
  const stamp = changeStamp();
  if (stamp !== null && stamp === args.stamp && table.id === args.table) return { unchanged: true, table: table.id, stamp };

  // The table holds what this walk lists; ids stay with their elements for the document's life.
  table.elements = new Map();
  const out: WalkedElement[] = [];
  const roots: Array<Document | ShadowRoot> = [document];
  const active = document.hasFocus() ? document.activeElement : null;
  // aria-owns can bring an element in twice: only then is each visit remembered.
  const visited = document.querySelector('[aria-owns]') ? new Set<Element>() : null;

  const describe = (el: Element, role: string, rect: DOMRect | undefined): WalkedElement => {
    let id = table.ids.get(el);
    if (id === undefined) {
      id = table.next++;
      table.ids.set(el, id);
    }
    table.elements.set(id, new WeakRef(el));
    const item: WalkedElement = { id, role, name: nameOf(el) };
    const raw = VALUE_ROLES.has(role) ? valueOf(el, role) : undefined;
    const value = raw === undefined ? raw : normalize(raw);
    if (value !== undefined && value !== '' && el.matches(args.sensitive)) item.redacted = true;
    else if (value !== undefined) item.value = value;
    const checked = checkedOf(el, role);
    if (checked === true || checked === 'mixed') item.checked = checked;
    else if (CHECKABLE_ROLES.has(role)) item.checked = false;
    if (EXPANDED_ROLES.has(role) && el.getAttribute('aria-expanded') === 'true') item.expanded = true;
    if (tagOf(el) === 'OPTION' ? (el as HTMLOptionElement).selected : SELECTED_ROLES.has(role) && el.getAttribute('aria-selected') === 'true') item.selected = true;
    if (nativelyDisabled(el) || ariaDisabled(el, false, role)) item.disabled = true;
    if (el === active) item.focused = true;
    if (role === 'link' && el.hasAttribute('href')) item.url = truncateDataUrl(el.getAttribute('href')!);
    if (args.boxes && rect) item.box = [Math.round(rect.x), Math.round(rect.y), Math.round(rect.width), Math.round(rect.height)];
    return item;
  };

  const visit = (el: Element, covered: boolean): void => {
    if (visited) {
      if (visited.has(el)) return;
      visited.add(el);
    }
    const style = getComputedStyle(el);
    if (style.display === 'none') return;
    let listed = false;
    // Only elements that may have an interactive role, or a pointer cursor of their own, need a role.
    const role = MAY_INTERACT.has(el.tagName) || el.hasAttribute('role') || (!covered && style.cursor === 'pointer') ? roleOf(el) : null;
    if (role && style.pointerEvents !== 'none') {
      const interactive = INTERACTIVE_ROLES.has(role);
      const pointer = !interactive && !covered && style.cursor === 'pointer' && !(role === 'generic' && style.display === 'inline' && el.childNodes.length === 1 && el.firstChild!.nodeType === 3);
      if (interactive || pointer) {
        const box = boxOf(el, style);
        if (box.visible) {
          out.push(describe(el, role, box.rect));
          listed = true;
        }
      }
    }
    const inner = covered || listed;
    if (el.tagName === 'SLOT') {
      const assigned = (el as HTMLSlotElement).assignedElements();
      if (assigned.length) {
        for (const child of assigned) visit(child, inner);
        return;
      }
    }
    for (let child = el.firstElementChild; child; child = child.nextElementSibling) if (!child.assignedSlot) visit(child, inner);
    const shadow = el.shadowRoot;
    if (shadow) {
      roots.push(shadow);
      for (let child = shadow.firstElementChild; child; child = child.nextElementSibling) visit(child, inner);
    }
    const owns = el.getAttribute('aria-owns');
    if (owns) for (const id of owns.split(/\s+/)) {
      const owned = document.getElementById(id);
      if (owned) visit(owned, inner);
    }
  };

  const undoLabels = installFastLabels();
  try {
    if (document.documentElement) visit(document.documentElement, false);
  } finally {
    undoLabels();
  }
  let focus: WalkedElement | undefined;
  if (active && active !== document.body && active !== document.documentElement && !out.some((item) => item.focused)) {
    const role = roleOf(active);
    const style = getComputedStyle(active);
    const box = role && style.pointerEvents !== 'none' ? boxOf(active, style) : null;
    if (role && box?.visible) focus = describe(active, role, box.rect);
  }
  // A field echoing a secret (the value of a password or card field) is blanked too, as the browser would print it.
  const secrets = new Set<string>();
  for (const root of roots) {
    for (const field of root.querySelectorAll(args.sensitive)) {
      const value = (field as HTMLInputElement).value;
      if (value) secrets.add(value).add(normalize(value));
    }
  }
  if (secrets.size) {
    for (const item of focus ? [...out, focus] : out) {
      if (item.value === undefined || !secrets.has(item.value)) continue;
      delete item.value;
      item.redacted = true;
    }
  }
  return { unchanged: false, table: table.id, stamp, elements: out, ...(focus ? { focus } : {}) };
}

function valueOf(el: Element, role: string): string | undefined {
  const tag = tagOf(el);
  if (tag === 'INPUT') {
    const type = (el as HTMLInputElement).type;
    return type === 'checkbox' || type === 'radio' || type === 'file' ? undefined : (el as HTMLInputElement).value;
  }
  if (tag === 'TEXTAREA') return (el as HTMLTextAreaElement).value;
  if (tag === 'SELECT') {
    const option = (el as HTMLSelectElement).selectedOptions[0];
    return role === 'combobox' && option ? nameOf(option) : undefined;
  }
  // An ARIA field other than a textbox (a custom combobox, a slider): its text, when it is only text.
  return role !== 'textbox' && !el.firstElementChild && el.textContent ? normalize(el.textContent) : undefined;
}

/** The accessible name, whitespace collapsed; a field named by nothing else goes by its placeholder (HTML-AAM). */
function nameOf(el: Element): string {
  const name = normalize(computeAccessibleName(el));
  if (name || !(tagOf(el) === 'INPUT' || tagOf(el) === 'TEXTAREA')) return name;
  return normalize(el.getAttribute('placeholder') ?? '');
}

function truncateDataUrl(url: string): string {
  const comma = url.indexOf(',');
  return url.startsWith('data:') && comma !== -1 ? `${url.slice(0, comma + 1)}…` : url;
}
