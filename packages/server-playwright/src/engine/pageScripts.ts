/*
 * Functions that run inside the page through `evaluate`. Playwright sends their source text, so
 * each one is self-contained: no imports, no helpers from outside its own body.
 */

export interface ElementInfo {
  visible: boolean;
  enabled: boolean;
  checked: boolean | 'mixed' | null;
  focused: boolean;
  text: string;
  value: string | null;
  boundingBox: { x: number; y: number; width: number; height: number } | null;
  attributes: Record<string, string>;
  computedStyle: Record<string, string>;
  role: string;
  name: string;
  tagName: string;
}

/** Properties of one element; values of password and card fields come back as null. */
export function elementInfo(el: Element, sensitive: string): ElementInfo {
  const html = el as HTMLElement;
  const style = getComputedStyle(el);
  const rect = el.getBoundingClientRect();
  const visible = rect.width > 0 && rect.height > 0 && style.visibility !== 'hidden' && style.display !== 'none';
  const tag = el.tagName.toLowerCase();
  const input = el as HTMLInputElement;
  const secret = el.matches(sensitive);
  const implicit = (): string => {
    const type = (input.type || '').toLowerCase();
    const map: Record<string, string> = {
      a: input.hasAttribute('href') ? 'link' : 'generic', button: 'button', select: input.multiple ? 'listbox' : 'combobox',
      textarea: 'textbox', h1: 'heading', h2: 'heading', h3: 'heading', h4: 'heading', h5: 'heading', h6: 'heading',
      img: el.getAttribute('alt') === '' ? 'presentation' : 'img', ul: 'list', ol: 'list', li: 'listitem', table: 'table',
      tr: 'row', td: 'cell', th: 'columnheader', nav: 'navigation', main: 'main', form: 'form', dialog: 'dialog',
      header: 'banner', footer: 'contentinfo', aside: 'complementary', article: 'article', section: 'region',
      option: 'option', progress: 'progressbar', hr: 'separator', fieldset: 'group', p: 'paragraph', summary: 'button',
    };
    if (tag === 'input') {
      const inputs: Record<string, string> = {
        checkbox: 'checkbox', radio: 'radio', button: 'button', submit: 'button', reset: 'button', image: 'button',
        range: 'slider', number: 'spinbutton', search: 'searchbox', hidden: 'none',
      };
      return inputs[type] ?? (input.list ? 'combobox' : 'textbox');
    }
    return map[tag] ?? 'generic';
  };
  const name = (): string => {
    const byIds = el.getAttribute('aria-labelledby');
    if (byIds) {
      const text = byIds.split(/\s+/).map((id) => document.getElementById(id)?.textContent ?? '').join(' ').trim();
      if (text) return text;
    }
    const label = el.getAttribute('aria-label');
    if (label?.trim()) return label.trim();
    const labels = (input as { labels?: NodeListOf<HTMLLabelElement> | null }).labels;
    if (labels?.length) return [...labels].map((l) => l.innerText.trim()).join(' ');
    for (const attr of ['alt', 'title']) {
      const v = el.getAttribute(attr);
      if (v?.trim()) return v.trim();
    }
    if (tag === 'input' && ['button', 'submit', 'reset'].includes(input.type)) return input.value;
    if (['input', 'textarea', 'select'].includes(tag)) return el.getAttribute('placeholder') ?? '';
    return (html.innerText ?? el.textContent ?? '').replace(/\s+/g, ' ').trim().slice(0, 500);
  };
  const attributes: Record<string, string> = {};
  for (const attr of el.attributes) attributes[attr.name] = secret && attr.name === 'value' ? '' : attr.value;
  const computedStyle: Record<string, string> = {};
  for (const prop of ['display', 'visibility', 'opacity', 'position', 'z-index', 'color', 'background-color', 'font-size', 'font-weight', 'cursor', 'pointer-events', 'overflow']) {
    computedStyle[prop] = style.getPropertyValue(prop);
  }
  const hasValue = 'value' in el && ['input', 'textarea', 'select', 'button', 'option'].includes(tag);
  return {
    visible,
    enabled: !(el as HTMLButtonElement).disabled && el.getAttribute('aria-disabled') !== 'true' && !el.closest('fieldset[disabled]'),
    checked:
      tag === 'input' && ['checkbox', 'radio'].includes(input.type)
        ? input.indeterminate ? 'mixed' : input.checked
        : el.hasAttribute('aria-checked') ? (el.getAttribute('aria-checked') === 'mixed' ? 'mixed' : el.getAttribute('aria-checked') === 'true') : null,
    focused: document.activeElement === el || (el.getRootNode() as Document | ShadowRoot).activeElement === el,
    text: (html.innerText ?? el.textContent ?? '').trim().slice(0, 10_000),
    value: secret ? null : hasValue ? String((el as HTMLInputElement).value) : null,
    boundingBox: visible ? { x: rect.x, y: rect.y, width: rect.width, height: rect.height } : null,
    attributes,
    computedStyle,
    role: el.getAttribute('role')?.split(/\s+/)[0] || implicit(),
    name: name(),
    tagName: tag,
  };
}

/** Serialized HTML of `source` (with the doctype for the root element), secret field values removed. */
export function domSnapshot(source: Element, args: { sensitive: string; maxLength: number }) {
  const clone = source.cloneNode(true) as Element;
  const originals = [source, ...source.querySelectorAll('*')];
  const copies = [clone, ...clone.querySelectorAll('*')];
  originals.forEach((el, i) => {
    const copy = copies[i];
    if (!copy) return;
    if (el.matches(args.sensitive)) copy.removeAttribute('value');
    else if (el instanceof HTMLInputElement && copy instanceof HTMLInputElement && el.type !== 'file') copy.setAttribute('value', el.value);
  });
  let html = clone.outerHTML;
  if (source === document.documentElement && document.doctype) html = `<!DOCTYPE ${document.doctype.name}>\n${html}`;
  const text = ((source as HTMLElement).innerText ?? source.textContent ?? '').trim();
  const truncated = html.length > args.maxLength;
  return { html: truncated ? html.slice(0, args.maxLength) : html, text: text.slice(0, args.maxLength), truncated };
}

/** Readable Markdown of `root`: headings, paragraphs, links, lists, tables, code. */
export function toMarkdown(root: Element): string {
  const SKIP = new Set(['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'SVG', 'HEAD', 'IFRAME', 'CANVAS']);
  const hidden = (el: Element) => {
    const s = getComputedStyle(el);
    return s.display === 'none' || s.visibility === 'hidden';
  };
  const inline = (node: Node): string => {
    if (node.nodeType === Node.TEXT_NODE) return (node.textContent ?? '').replace(/\s+/g, ' ');
    if (node.nodeType !== Node.ELEMENT_NODE) return '';
    const el = node as HTMLElement;
    if (SKIP.has(el.tagName) || hidden(el)) return '';
    const inner = () => [...el.childNodes].map(inline).join('');
    switch (el.tagName) {
      case 'A': {
        const text = inner().trim();
        const href = el.getAttribute('href');
        return href && text ? `[${text}](${(el as HTMLAnchorElement).href})` : text;
      }
      case 'STRONG': case 'B': { const t = inner().trim(); return t ? `**${t}**` : ''; }
      case 'EM': case 'I': { const t = inner().trim(); return t ? `_${t}_` : ''; }
      case 'CODE': return `\`${el.textContent ?? ''}\``;
      case 'BR': return '\n';
      case 'IMG': { const alt = el.getAttribute('alt'); return alt ? `![${alt}](${(el as HTMLImageElement).src})` : ''; }
      case 'INPUT': case 'TEXTAREA': case 'SELECT': return '';
      default: return inner();
    }
  };
  const blocks: string[] = [];
  const block = (el: Element, prefix = ''): void => {
    if (SKIP.has(el.tagName) || hidden(el)) return;
    const tag = el.tagName;
    const heading = /^H([1-6])$/.exec(tag);
    if (heading) { blocks.push(`${'#'.repeat(Number(heading[1]))} ${inline(el).trim()}`); return; }
    if (tag === 'P') { const t = inline(el).trim(); if (t) blocks.push(prefix + t); return; }
    if (tag === 'PRE') { blocks.push('```\n' + (el.textContent ?? '').replace(/\n$/, '') + '\n```'); return; }
    if (tag === 'BLOCKQUOTE') { const t = inline(el).trim(); if (t) blocks.push(`> ${t}`); return; }
    if (tag === 'HR') { blocks.push('---'); return; }
    if (tag === 'UL' || tag === 'OL') {
      const items = [...el.children].filter((c) => c.tagName === 'LI');
      blocks.push(items.map((li, i) => `${tag === 'OL' ? `${i + 1}.` : '-'} ${inline(li).trim()}`).join('\n'));
      return;
    }
    if (tag === 'TABLE') {
      const rows = [...el.querySelectorAll('tr')].map((tr) => [...tr.children].map((c) => inline(c).trim().replace(/\|/g, '\\|')));
      if (rows.length) {
        const width = Math.max(...rows.map((r) => r.length));
        const line = (r: string[]) => `| ${[...r, ...Array(width - r.length).fill('')].join(' | ')} |`;
        blocks.push([line(rows[0]!), line(Array(width).fill('---')), ...rows.slice(1).map(line)].join('\n'));
      }
      return;
    }
    const hasBlockChild = [...el.children].some((c) => getComputedStyle(c).display !== 'inline' && !SKIP.has(c.tagName));
    if (!hasBlockChild) { const t = inline(el).trim(); if (t) blocks.push(prefix + t); return; }
    let run = '';
    for (const child of el.childNodes) {
      if (child.nodeType === Node.ELEMENT_NODE && getComputedStyle(child as Element).display !== 'inline') {
        if (run.trim()) blocks.push(run.trim());
        run = '';
        block(child as Element);
      } else run += inline(child);
    }
    if (run.trim()) blocks.push(run.trim());
  };
  block(root);
  return blocks.join('\n\n');
}

/** WebMCP tools: `<form toolname>` (declarative) and those registered through navigator.modelContext. */
export function discoverTools(includeSchemas: boolean) {
  type Tool = { name: string; description?: string; inputSchema?: Record<string, unknown>; source: string; formSelector?: string };
  const tools: Tool[] = [];
  document.querySelectorAll('form[toolname]').forEach((form, index) => {
    const properties: Record<string, Record<string, unknown>> = {};
    const required: string[] = [];
    for (const field of form.querySelectorAll<HTMLInputElement>('input[name], select[name], textarea[name]')) {
      if (['submit', 'button', 'reset', 'hidden', 'password'].includes(field.type)) continue;
      const type = field.type === 'number' || field.type === 'range' ? 'number' : field.type === 'checkbox' ? 'boolean' : 'string';
      const prop: Record<string, unknown> = { type };
      const description = field.getAttribute('toolparamdescription') ?? field.labels?.[0]?.innerText.trim();
      if (description) prop.description = description;
      if (field instanceof HTMLSelectElement) prop.enum = [...field.options].map((o) => o.value);
      properties[field.name] = prop;
      if (field.required) required.push(field.name);
    }
    const id = form.getAttribute('id');
    const tool: Tool = {
      name: form.getAttribute('toolname') ?? '',
      source: 'webmcp-declarative',
      formSelector: id ? `#${CSS.escape(id)}` : `form[toolname]:nth-of-type(${index + 1})`,
    };
    const description = form.getAttribute('tooldescription');
    if (description) tool.description = description;
    if (includeSchemas) tool.inputSchema = { type: 'object', properties, ...(required.length ? { required } : {}) };
    tools.push(tool);
  });
  const registry = (window as unknown as { __bapWebMCP?: { tools: Map<string, { name: string; description?: string; inputSchema?: Record<string, unknown> }>; native: boolean } }).__bapWebMCP;
  for (const t of registry?.tools.values() ?? []) {
    const tool: Tool = { name: t.name, source: 'webmcp-imperative' };
    if (t.description) tool.description = t.description;
    if (includeSchemas && t.inputSchema) tool.inputSchema = t.inputSchema;
    tools.push(tool);
  }
  return { tools, native: registry?.native ?? false };
}

/**
 * Installed before any page script: records tools registered through navigator.modelContext
 * (wrapping the browser's own API when it has one, providing a recording one otherwise).
 */
export function installWebMCPRecorder(): void {
  const tools = new Map<string, { name: string; description?: string; inputSchema?: Record<string, unknown> }>();
  const nav = navigator as unknown as { modelContext?: Record<string, (...args: unknown[]) => unknown> };
  const native = !!nav.modelContext;
  Object.defineProperty(window, '__bapWebMCP', { value: { tools, native }, enumerable: false });
  const record = (tool: unknown) => {
    const t = tool as { name?: unknown; description?: unknown; inputSchema?: unknown };
    if (typeof t?.name !== 'string') return;
    const entry: { name: string; description?: string; inputSchema?: Record<string, unknown> } = { name: t.name };
    if (typeof t.description === 'string') entry.description = t.description;
    if (t.inputSchema && typeof t.inputSchema === 'object') entry.inputSchema = JSON.parse(JSON.stringify(t.inputSchema));
    tools.set(t.name, entry);
  };
  const api = nav.modelContext ?? {};
  const call = (name: string, args: unknown[]) => (native && typeof api[name] === 'function' ? api[name]!(...args) : undefined);
  const wrapped = {
    registerTool: (tool: unknown) => { record(tool); return call('registerTool', [tool]); },
    unregisterTool: (name: unknown) => { tools.delete(String(name)); return call('unregisterTool', [name]); },
    provideContext: (ctx: unknown) => {
      tools.clear();
      for (const tool of (ctx as { tools?: unknown[] })?.tools ?? []) record(tool);
      return call('provideContext', [ctx]);
    },
    clearContext: () => { tools.clear(); return call('clearContext', []); },
  };
  Object.defineProperty(navigator, 'modelContext', { value: Object.assign(Object.create(api), wrapped), configurable: true });
}

/**
 * Installed in every document (an init script): counts what can change an AI snapshot —
 * DOM mutations (in open and closed shadow roots too), input, focus, scroll, resize, hover,
 * animations — so that an unchanged page need not be walked again. Exposed as a function on
 * `document` under a registered symbol; `changeStamp` reads it.
 */
export function installChangeTracker(): void {
  const key = Symbol.for('bap.changeStamp');
  if ((document as unknown as Record<symbol, unknown>)[key]) return;
  const id = Math.random().toString(36).slice(2);
  let changes = 0;
  const bump = () => void changes++;
  const observer = new MutationObserver(bump);
  const options = { subtree: true, childList: true, attributes: true, characterData: true };
  const roots: ShadowRoot[] = [];
  observer.observe(document, options);
  const attach = Element.prototype.attachShadow;
  Element.prototype.attachShadow = function (this: Element, init: ShadowRootInit) {
    const root = attach.call(this, init);
    roots.push(root);
    observer.observe(root, options);
    return root;
  };
  for (const type of ['input', 'change', 'scroll', 'resize', 'focusin', 'focusout', 'pointerover', 'pointerout', 'animationstart', 'animationend', 'transitionend', 'load', 'toggle']) {
    addEventListener(type, bump, { capture: true, passive: true });
  }
  // Script can set a field's value or checked state without any event or mutation: fold the
  // fields' state into a hash (values never leave the page), with the scroll and layout size.
  const fields = (root: Document | ShadowRoot, hash: number): number => {
    for (const el of root.querySelectorAll('input, textarea, select')) {
      const f = el as HTMLInputElement & HTMLSelectElement;
      const state = `${f.value}\u0000${f.checked ? 1 : 0}${f.selectedIndex ?? ''}`;
      for (let i = 0; i < state.length; i++) hash = Math.imul(hash ^ state.charCodeAt(i), 16777619);
    }
    return hash;
  };
  Object.defineProperty(document, key, {
    value: () => {
      let hash = fields(document, 2166136261);
      for (const root of roots) hash = fields(root, hash);
      const page = document.documentElement;
      return `${id}:${changes}:${hash >>> 0}:${scrollX},${scrollY},${innerWidth},${innerHeight},${page?.scrollWidth},${page?.scrollHeight}`;
    },
  });
}

/** The tracker's stamp of this document, or null where the tracker is not installed. */
export function changeStamp(): string | null {
  const read = (document as unknown as Record<symbol, (() => string) | undefined>)[Symbol.for('bap.changeStamp')];
  return typeof read === 'function' ? read() : null;
}

/** Installed in every document of a BAP context (an init script): marks the page's own world. */
export function markPageWorld(): void {
  Object.defineProperty(globalThis, Symbol.for('bap.pageWorld'), { value: true });
}

/**
 * Answers `labels` of form controls from one pass over the document's labels, until the undo it
 * returns is called. Chromium's own getter walks the whole document the first time each control
 * asks, so a snapshot (or walk) of a fresh document with n controls cost O(n²): 4–5 s for 6,700
 * controls. The index lives for one task: a snapshot is one synchronous task, and the DOM cannot
 * change inside it. Controls in shadow roots keep the native getter (their labels are scoped), as
 * do hidden inputs.
 */
export function installFastLabels(): () => void {
  let index: Map<Element, HTMLLabelElement[]> | null = null;
  const labelsOf = (control: Element): HTMLLabelElement[] => {
    if (!index) {
      index = new Map();
      queueMicrotask(() => (index = null));
      for (const label of document.querySelectorAll('label')) {
        const target = label.control;
        if (!target) continue;
        const list = index.get(target);
        if (list) list.push(label);
        else index.set(target, [label]);
      }
    }
    return index.get(control) ?? [];
  };
  const restore: Array<() => void> = [];
  const controls = [HTMLInputElement, HTMLButtonElement, HTMLSelectElement, HTMLTextAreaElement, HTMLMeterElement, HTMLOutputElement, HTMLProgressElement];
  for (const { prototype } of controls) {
    const own = Object.getOwnPropertyDescriptor(prototype, 'labels');
    const native = own?.get;
    if (!own || !native || !own.configurable) continue;
    Object.defineProperty(prototype, 'labels', {
      ...own,
      get(this: HTMLElement) {
        if (this.getRootNode() !== document || (this instanceof HTMLInputElement && this.type === 'hidden')) return native.call(this);
        return labelsOf(this);
      },
    });
    restore.push(() => Object.defineProperty(prototype, 'labels', own));
  }
  return () => restore.forEach((undo) => undo());
}

/**
 * Evaluated by Playwright in each world where it injects its script (a selector engine's source,
 * registered in browserHost.ts, given `installFastLabels`); acts only outside the page's own
 * world, in Playwright's utility world where snapshots are taken, and stays for that world's life.
 */
export function fastLabelsEngine(install: () => () => void): { queryAll: () => Element[] } {
  if (!(globalThis as unknown as Record<symbol, unknown>)[Symbol.for('bap.pageWorld')]) install();
  return { queryAll: () => [] };
}

/** The interactive walk's ref table (page/walkInteractive.ts), under `Symbol.for('bap.refTable')` in the page's world. */
export interface RefTable {
  id: string;
  next: number;
  ids: WeakMap<Element, number>;
  elements: Map<number, WeakRef<Element>>;
}

export const REF_ENGINE = 'bap_ref';

/**
 * The `bap_ref` selector engine, in the page's world: `bap_ref=<table>:<id>` is the element the
 * interactive walk (page/walkInteractive.ts) gave that id, while it is in the document the table
 * belongs to. Self-contained: Playwright evaluates its source.
 */
export function refEngine() {
  return {
    queryAll(root: Node, selector: string): Element[] {
      const table = (globalThis as unknown as Record<symbol, RefTable | undefined>)[Symbol.for('bap.refTable')];
      const [id, n] = selector.split(':');
      const el = table && table.id === id ? table.elements.get(Number(n))?.deref() : undefined;
      if (!el || !el.isConnected) return [];
      const inside = root.nodeType === 9 ? el.ownerDocument === root : root === el || root.contains(el);
      return inside ? [el] : [];
    },
  };
}
