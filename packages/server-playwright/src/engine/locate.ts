import type { Frame, Locator } from 'playwright-core';
import {
  BAPError,
  ErrorCodes,
  describeSelector,
  type AccessibilityNode,
  type Selector,
} from '@browseragentprotocol/protocol';
import type { RefRegistry } from './refRegistry.js';

export type Target = { kind: 'element'; locator: Locator } | { kind: 'point'; x: number; y: number };

/**
 * Turns a protocol selector into a Playwright locator (or a viewport point for coordinates).
 * Refs are page-wide; the other selector types look inside `frame` (the page's current frame).
 * Playwright's css, text, role, label, placeholder and testId engines pierce open shadow roots;
 * xpath does not.
 */
export async function locate(frame: Frame, refs: RefRegistry, selector: Selector): Promise<Target> {
  switch (selector.type) {
    case 'coordinates':
      return { kind: 'point', x: selector.x, y: selector.y };
    case 'ref':
      return { kind: 'element', locator: await refs.resolve(selector.ref) };
    case 'semantic':
      return { kind: 'element', locator: await refs.resolve(await matchDescription(refs, frame, selector.description)) };
    default:
      return { kind: 'element', locator: locatorFor(frame, selector) };
  }
}

/** Locators for the selector types that need no snapshot. */
function locatorFor(frame: Frame, selector: Exclude<Selector, { type: 'ref' | 'semantic' | 'coordinates' }>): Locator {
  switch (selector.type) {
    case 'css':
      return frame.locator(`css=${selector.value}`);
    case 'xpath':
      return frame.locator(`xpath=${selector.value}`);
    case 'text':
      return frame.getByText(selector.value, exact(selector.exact));
    case 'label':
      return frame.getByLabel(selector.value, exact(selector.exact));
    case 'placeholder':
      return frame.getByPlaceholder(selector.value, exact(selector.exact));
    case 'testId':
      return frame.getByTestId(selector.value);
    case 'role': {
      const options: { name?: string; exact?: boolean } = {};
      if (selector.name !== undefined) options.name = selector.name;
      if (selector.exact !== undefined) options.exact = selector.exact;
      return frame.getByRole(selector.role as Parameters<Frame['getByRole']>[0], options);
    }
  }
}

function exact(value: boolean | undefined): { exact?: boolean } {
  return value === undefined ? {} : { exact: value };
}

/** Must a selector resolve to a DOM element (not a point)? Used by element-only actions. */
export function requireElement(target: Target, selector: Selector, action: string): Locator {
  if (target.kind === 'element') return target.locator;
  throw new BAPError(ErrorCodes.InvalidParams, `selector: ${action} needs an element, not ${describeSelector(selector)}.`, {
    recoveryHint: 'Use a role, label, text, css or ref selector.',
  });
}

const STOP_WORDS = new Set(['the', 'a', 'an', 'of', 'on', 'in', 'to', 'for', 'and', 'or', 'with', 'at', 'by', 'this', 'that']);

function words(text: string): string[] {
  return text.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter((w) => w.length > 0 && !STOP_WORDS.has(w));
}

/**
 * Resolves a free-text description to the ref of the element whose role and accessible name
 * share the most words with it, from a fresh snapshot of `frame` (what observe/ariaSnapshot
 * shows). No model is involved: a description that matches nothing, or two elements equally, is
 * an error rather than a guess.
 */
async function matchDescription(refs: RefRegistry, frame: Frame, description: string): Promise<string> {
  const wanted = words(description);
  const scored: { ref: string; score: number; label: string }[] = [];
  const visit = (nodes: AccessibilityNode[]) => {
    for (const node of nodes) {
      if (node.ref && node.role !== 'generic') {
        const have = new Set(words(`${node.role} ${node.name ?? ''} ${node.placeholder ?? ''}`));
        const nameWords = new Set(words(node.name ?? ''));
        let score = 0;
        for (const w of wanted) if (have.has(w)) score += nameWords.has(w) ? 2 : 1;
        if (score > 0) scored.push({ ref: node.ref, score, label: `${node.role} "${node.name ?? ''}"` });
      }
      if (node.children) visit(node.children);
    }
  };
  visit(await refs.capture({ frame }));
  scored.sort((a, b) => b.score - a.score);
  const [best, second] = scored;
  if (!best) {
    throw new BAPError(ErrorCodes.ElementNotFound, `Nothing on the page matches "${description}".`, {
      recoveryHint: 'Describe the element by its visible label or role, or pick a ref from observe/ariaSnapshot.',
    });
  }
  if (second && second.score === best.score) {
    const candidates = scored.filter((s) => s.score === best.score).slice(0, 5);
    throw new BAPError(ErrorCodes.SelectorAmbiguous, `"${description}" matches ${candidates.length} elements equally.`, {
      details: { candidates: candidates.map((c) => ({ ref: c.ref, element: c.label })) },
      recoveryHint: 'Use one of the candidate refs, or a more specific description.',
    });
  }
  return best.ref;
}
