/*
 * The in-page half of the fast action path (fastActions.ts): one function, run once per action
 * through `locator.evaluateAll`, that decides whether the element is actionable right now by the
 * rules Playwright's auto-waiting applies, and if it is, prepares the action. Playwright sends
 * its source text, so it is self-contained: no imports, no helpers from outside its own body.
 */

export type ProbeKind = 'click' | 'hover' | 'check' | 'fill' | 'type' | 'select';

export interface ProbeArgs {
  kind: ProbeKind;
  /** CSS of password and card fields (SENSITIVE_FIELDS). */
  sensitive: string;
  /** `Symbol.for(key)` on the top window holds the hit-target guard until the action collects it. */
  key: string;
  /** Date.now() when sent, and how late the probe may start: after that the caller has given up on it. */
  sentAt: number;
  lateMs: number;
  /** fill: the value (a number field takes numbers only). */
  value?: string;
  /**
   * fill: write the value from here (see `insert`) when it is one line, not empty, into an input
   * or a textarea that is not sensitive: the action then costs one round trip. Secrets, line
   * breaks (CDP splits them into several insertions) and empty values (a Delete key press) are
   * left to the caller.
   */
  write?: boolean;
  /** type: replace the current content. */
  clear?: boolean;
  /** check: the state wanted. */
  checked?: boolean;
  /** select: option values or labels. */
  values?: string[];
}

export type ProbeResult =
  | { ok: false; reason: string; detail?: string }
  | {
      ok: true;
      /** A password or card field: the value is a secret. */
      sensitive: boolean;
      /** Where to dispatch pointer input, in main-frame viewport coordinates. */
      point?: { x: number; y: number };
      /** Nothing left to do (a checkbox already in the wanted state, a select already set, a field written). */
      done?: boolean;
      selected?: string[];
    };

/** What the guard says when collected: `done` or why the input missed, and a checkbox's state after it. */
export interface GuardReport {
  hit: string;
  checked?: boolean;
}

/**
 * Checks, in one pass, what Playwright's actionability checks would wait for: one attached
 * element, visible, enabled (and editable for fill/type), not inert, not animating; for pointer
 * input also fully inside the viewport (its frames' too) and the element itself at the hit point.
 * Frames must be same-origin (their geometry is readable from here); anything uncertain is a
 * refusal. When all pass it prepares the action: a hit-target guard for pointer input (Playwright's
 * own: the first event must land on the target, or all are blocked), focus and selection for text
 * input, or the selected options for a select (with input and change, as Playwright fires them).
 */
export function probeActionability(matches: Element | Element[], a: ProbeArgs): ProbeResult {
  const refuse = (reason: string, detail?: string): ProbeResult => (detail ? { ok: false, reason, detail } : { ok: false, reason });
  if (Date.now() - a.sentAt > a.lateMs) return refuse('late');
  const elements = Array.isArray(matches) ? matches : [matches];
  if (elements.length !== 1) return refuse(elements.length ? 'ambiguous' : 'not-found');
  const node = elements[0]!;
  const win = node.ownerDocument.defaultView;
  if (!node.isConnected || !win) return refuse('detached');

  const parentOrHost = (el: Element): Element | null => {
    if (el.parentElement) return el.parentElement;
    const parent = el.parentNode;
    return parent && parent.nodeType === 11 ? (parent as ShadowRoot).host : null;
  };
  const styleOf = (el: Element) => el.ownerDocument.defaultView!.getComputedStyle(el);
  const editable = (el: Element) => !!(el as HTMLElement).isContentEditable;
  const inChain = (el: Element, attribute: string) => {
    for (let e: Element | null = el; e; e = parentOrHost(e)) if (e.hasAttribute(attribute)) return true;
    return false;
  };
  const describe = (el: Element | undefined) => (el ? `<${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''}>` : 'nothing');

  // Playwright's retargeting: a span inside a button acts as the button, a label as its control.
  const retarget = (behavior: 'none' | 'follow-label' | 'no-follow-label' | 'button-link'): Element => {
    let el = node;
    if (behavior === 'none') return el;
    if (!el.matches('input, textarea, select') && !editable(el)) {
      const roles = behavior === 'button-link' ? 'button, [role=button], a, [role=link]' : 'button, [role=button], [role=checkbox], [role=radio]';
      el = el.closest(roles) ?? el;
    }
    if (behavior === 'follow-label' && !editable(el)) {
      const own = 'a, input, textarea, button, select, option, optgroup, [role=link], [role=button], [role=checkbox], [role=radio]';
      const control = el.matches(own) ? null : el.closest('label')?.control;
      if (control) el = control;
    }
    return el;
  };

  const invisibility = (el: Element): string | null => {
    const style = styleOf(el);
    if (style.display === 'contents') return 'display-contents';
    if (!el.checkVisibility() || style.visibility !== 'visible') return 'hidden';
    const r = el.getBoundingClientRect();
    return r.width > 0 && r.height > 0 ? null : 'zero-size';
  };

  const nativelyDisabled = (el: Element): boolean => {
    const tag = el.tagName.toUpperCase();
    if (!['BUTTON', 'INPUT', 'SELECT', 'TEXTAREA', 'OPTION', 'OPTGROUP'].includes(tag)) return false;
    if (el.hasAttribute('disabled') || (tag === 'OPTION' && el.closest('optgroup[disabled]'))) return true;
    const fieldset = el.closest('fieldset[disabled]');
    const legend = fieldset?.querySelector(':scope > legend');
    return !!fieldset && (!legend || !legend.contains(el));
  };
  // The nearest aria-disabled up the tree decides; whether it counts depends on the element's
  // role, which is Playwright's to compute: true is a refusal either way.
  const ariaDisabled = (el: Element): boolean => {
    for (let e: Element | null = el; e; e = parentOrHost(e)) {
      const value = (e.getAttribute('aria-disabled') ?? '').toLowerCase();
      if (value === 'true' || value === 'false') return value === 'true';
    }
    return false;
  };
  const unusable = (el: Element): string | null => {
    if (nativelyDisabled(el)) return 'disabled';
    if (ariaDisabled(el)) return 'aria-disabled';
    return inChain(el, 'inert') ? 'inert' : null;
  };

  // The same-origin frames between the element and the top window, innermost first.
  const frames: Element[] = [];
  let top: Window = win;
  try {
    while (top !== top.top) {
      const frame = top.frameElement;
      if (!frame?.ownerDocument.defaultView) return refuse('cross-origin-frame');
      frames.push(frame);
      top = frame.ownerDocument.defaultView;
    }
  } catch {
    return refuse('cross-origin-frame');
  }
  if ((top.visualViewport?.scale ?? 1) !== 1) return refuse('zoomed');

  // Geometry-changing animations on the element, its ancestors or its frames: not stable yet.
  const PAINT_ONLY = new Set(['opacity', 'color', 'backgroundColor', 'borderColor', 'outlineColor', 'boxShadow', 'textShadow', 'fill', 'stroke', 'caretColor']);
  const KEYFRAME_KEYS = new Set(['offset', 'computedOffset', 'easing', 'composite']);
  const animating = (): boolean => {
    const chain = new Set<Element>();
    for (const start of [node, ...frames]) for (let e: Element | null = start; e; e = parentOrHost(e)) chain.add(e);
    const documents = new Set([...chain].map((e) => e.ownerDocument));
    for (const doc of documents) {
      for (const animation of doc.getAnimations()) {
        if (animation.playState !== 'running' && !animation.pending) continue;
        const effect = animation.effect as KeyframeEffect | null;
        if (!effect?.target || !chain.has(effect.target)) continue;
        const properties = effect.getKeyframes().flatMap((k) => Object.keys(k).filter((p) => !KEYFRAME_KEYS.has(p)));
        if (properties.some((p) => !PAINT_ONLY.has(p))) return true;
      }
    }
    return false;
  };

  // Playwright's hit-target test: the element at `point` (through open shadow roots) must be `target` or inside it.
  const hitTarget = (point: { x: number; y: number }, target: Element): string => {
    const roots: (Document | ShadowRoot)[] = [];
    for (let el: Element | null = target; el; ) {
      let root: Node = el;
      while (root.parentNode) root = root.parentNode;
      if (root.nodeType !== 9 && root.nodeType !== 11) break;
      roots.push(root as Document | ShadowRoot);
      if (root.nodeType === 9) break;
      el = (root as ShadowRoot).host;
    }
    let hit: Element | undefined;
    for (let i = roots.length - 1; i >= 0; i--) {
      const root = roots[i]!;
      const hits = root.elementsFromPoint(point.x, point.y);
      const single = root.elementFromPoint(point.x, point.y);
      if (single && hits[0] && parentOrHost(single) === hits[0] && styleOf(single).display === 'contents') hits.unshift(single);
      if (hits[0] && hits[1] === single && roots.slice(i).some((r) => (r as ShadowRoot).host === hits[0])) hits.shift();
      if (!hits[0]) break;
      hit = hits[0];
      if (i && hit !== (roots[i - 1] as ShadowRoot).host) break;
    }
    const first = hit;
    while (hit && hit !== target) hit = hit.assignedSlot ?? parentOrHost(hit) ?? undefined;
    return hit === target ? 'done' : describe(first);
  };

  // Where Playwright would click: the middle of the first box, after checking that nothing needs scrolling.
  const pointerTarget = (): ProbeResult => {
    const inside = (r: DOMRect, w: Window) => r.left >= 0 && r.top >= 0 && r.right <= w.innerWidth && r.bottom <= w.innerHeight;
    if (!inside(node.getBoundingClientRect(), win)) return refuse('offscreen');
    const box = [...node.getClientRects()].find((r) => r.width * r.height > 0.99);
    if (!box) return refuse('zero-size');
    let x = box.left + box.width / 2;
    let y = box.top + box.height / 2;
    const framePoint = { x, y };
    const steps: { element: Element; point: { x: number; y: number } }[] = [];
    for (const frame of frames) {
      const style = styleOf(frame);
      for (let e: Element | null = frame; e; e = parentOrHost(e)) if (styleOf(e).transform !== 'none') return refuse('transformed-frame');
      const r = frame.getBoundingClientRect();
      if (!inside(r, frame.ownerDocument.defaultView!)) return refuse('offscreen');
      x += r.left + parseInt(style.borderLeftWidth, 10) + parseInt(style.paddingLeft, 10);
      y += r.top + parseInt(style.borderTopWidth, 10) + parseInt(style.paddingTop, 10);
      steps.push({ element: frame, point: { x: x, y: y } });
    }
    if (styleOf(node).pointerEvents === 'none') return refuse('pointer-events-none');
    const target = retarget('button-link');
    const own = hitTarget(framePoint, target);
    if (own !== 'done') return refuse('covered', own);
    for (const step of steps) {
      const covered = hitTarget(step.point, step.element);
      if (covered !== 'done') return refuse('frame-covered', covered);
    }
    guard(target, framePoint);
    return { ok: true, sensitive: false, point: { x: Math.trunc(x * 100) / 100, y: Math.trunc(y * 100) / 100 } };
  };

  // Playwright's hit-target interceptor: the first trusted pointer event must hit the target;
  // otherwise it and every later event of the action are blocked.
  const guard = (target: Element, point: { x: number; y: number }) => {
    const events = a.kind === 'hover' ? ['mousemove'] : ['mousedown', 'mouseup', 'pointerdown', 'pointerup', 'click', 'auxclick', 'dblclick', 'contextmenu'];
    let result: string | undefined;
    const listener = (event: Event) => {
      if (!event.isTrusted) return;
      const mouse = event as MouseEvent;
      result ??= hitTarget({ x: mouse.clientX ?? point.x, y: mouse.clientY ?? point.y }, target);
      if (result !== 'done') {
        event.preventDefault();
        event.stopImmediatePropagation();
      }
    };
    for (const type of events) win.addEventListener(type, listener, { capture: true, passive: false });
    const slot = Symbol.for(a.key);
    const topSlots = top as unknown as Record<symbol, unknown>;
    const collect = (): GuardReport => {
      for (const type of events) win.removeEventListener(type, listener, { capture: true });
      win.clearTimeout(timer);
      delete topSlots[slot];
      return a.kind === 'check' ? { hit: result ?? 'done', checked: (control as HTMLInputElement).checked } : { hit: result ?? 'done' };
    };
    // Nobody collects it if the caller went away: it must not outlive the action.
    const timer = win.setTimeout(collect, 10_000);
    topSlots[slot] = collect;
  };

  // The element's state checks, as Playwright runs them for each action.
  const control = retarget('follow-label');
  if (a.kind === 'check') {
    // Playwright looks at the state first: a box already as wanted needs nothing else.
    const input = control as HTMLInputElement;
    if (control.tagName !== 'INPUT' || !['checkbox', 'radio'].includes(input.type)) return refuse('not-a-checkbox');
    if (input.checked === a.checked) return { ok: true, sensitive: false, done: true };
    if (!a.checked && input.type === 'radio') return refuse('radio-uncheck');
  }
  const hidden = invisibility(node) ?? frames.map((frame) => invisibility(frame) && 'frame-hidden').find(Boolean);
  if (hidden) return refuse(hidden);
  if (a.kind !== 'hover') {
    const refusal = unusable(control);
    if (refusal) return refuse(refusal);
  }

  if (a.kind === 'select') {
    if (control.tagName !== 'SELECT') return refuse('not-a-select');
    const select = control as HTMLSelectElement;
    const normalize = (s: string) => s.replace(/[\u200b\u00ad]/g, '').trim().replace(/\s+/g, ' ');
    const picked: HTMLOptionElement[] = [];
    let wanted = [...(a.values ?? [])];
    if (!wanted.length) return refuse('no-values');
    for (const option of select.options) {
      const label = normalize(option.label);
      const matches = (v: string) => v === option.value || v === option.label || normalize(v) === label;
      if (!wanted.some(matches)) continue;
      if (nativelyDisabled(option) || ariaDisabled(option)) return refuse('option-disabled');
      picked.push(option);
      wanted = select.multiple ? wanted.filter((v) => !matches(v)) : [];
      if (!select.multiple) break;
    }
    if (wanted.length) return refuse('options-not-found');
    (select as unknown as { value: unknown }).value = undefined;
    for (const option of picked) option.selected = true;
    select.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
    select.dispatchEvent(new Event('change', { bubbles: true }));
    return { ok: true, sensitive: false, done: true, selected: picked.map((o) => o.value) };
  }

  if (a.kind === 'fill' || a.kind === 'type') {
    // type focuses the element itself (Playwright's pressSequentially does not follow labels).
    const field = a.kind === 'type' ? node : control;
    if (a.kind === 'type' && field !== control) return refuse('not-editable');
    const tag = field.tagName;
    if (tag === 'INPUT') {
      const input = field as HTMLInputElement;
      const type = input.type.toLowerCase();
      if (!['', 'email', 'number', 'password', 'search', 'tel', 'text', 'url'].includes(type)) return refuse('input-type', type);
      if (type === 'number' && a.kind === 'fill' && isNaN(Number((a.value ?? '').trim()))) return refuse('not-a-number');
      if (input.hasAttribute('readonly')) return refuse('readonly');
    } else if (tag === 'TEXTAREA') {
      if (field.hasAttribute('readonly')) return refuse('readonly');
    } else if (!editable(field) || field.hasAttribute('aria-readonly')) {
      return refuse('not-editable');
    }
    const sensitive = node.matches(a.sensitive) || field.matches(a.sensitive);
    if (a.kind === 'fill' || a.clear) selectAll(field);
    else focus(field);
    if (a.write && a.value && !sensitive && (tag === 'INPUT' || tag === 'TEXTAREA') && !/[\r\n]/.test(a.value)) return { ok: true, sensitive, done: insert(field, a.value) };
    return { ok: true, sensitive };
  }

  if (animating()) return refuse('animating');
  return pointerTarget();

  function selectAll(field: Element): void {
    if (field.tagName === 'INPUT') {
      (field as HTMLInputElement).select();
      (field as HTMLInputElement).focus();
      return;
    }
    if (field.tagName === 'TEXTAREA') {
      const area = field as HTMLTextAreaElement;
      area.selectionStart = 0;
      area.selectionEnd = area.value.length;
      area.focus();
      return;
    }
    let host = field as HTMLElement;
    while (host.isContentEditable && host.parentElement?.isContentEditable) host = host.parentElement;
    host.focus();
    const range = field.ownerDocument.createRange();
    range.selectNodeContents(field);
    const selection = win!.getSelection();
    selection?.removeAllRanges();
    selection?.addRange(range);
  }

  /**
   * Writes over the selected content as CDP's insertText does: a cancelable beforeinput (made
   * here, so not trusted), then, unless a listener cancelled it, the browser's own insertion,
   * which fires a trusted input event. True once written or cancelled, as typing would end.
   */
  function insert(field: Element, value: string): boolean {
    const init = { inputType: 'insertText', data: value, bubbles: true, cancelable: true, composed: true };
    if (!field.dispatchEvent(new (win as typeof globalThis).InputEvent('beforeinput', init))) return true;
    return field.ownerDocument.execCommand('insertText', false, value);
  }

  function focus(field: Element): void {
    const html = field as HTMLElement;
    const active = (field.getRootNode() as Document | ShadowRoot).activeElement as HTMLElement | null;
    const wasFocused = active === field && field.ownerDocument.hasFocus();
    if (html.isContentEditable && !wasFocused) active?.blur?.();
    html.focus();
    html.focus();
    if (!wasFocused && field.tagName === 'INPUT') {
      try {
        (field as HTMLInputElement).setSelectionRange(0, 0);
      } catch {
        // Input types without a text selection.
      }
    }
  }
}
