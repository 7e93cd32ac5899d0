import type { Frame, Locator } from 'playwright-core';
import { BAPError, ErrorCodes } from '@browseragentprotocol/protocol';
import { firstLine, toBAPError } from '../errors.js';
import type { PageHandle } from '../pageHandle.js';
import { SENSITIVE_FIELDS } from '../secrets.js';
import type { Deadline } from '../deadline.js';
import { FIELD_ROLES, buildTree, firstLink, isToggle, textOf, type TreeNode } from './tree.js';

/** An element an `x-selector` found, as the page's snapshot shows it. */
export interface HintedElement {
  locator: Locator;
  /** Its snapshot subtree (the element itself first, when it has a role). */
  roots: TreeNode[];
  ref: string | undefined;
}

/** Where a hint's CSS selector is resolved: an item's element, the `selector` root, or the frame. */
export type HintBase = Locator | Frame;

/** Ancestors tried for a ref when the hinted element has none of its own (a bare `<span>`). */
const REF_ANCESTORS = 2;

/**
 * Resolves `x-selector` hints. Each element is read through a root capture of the page's
 * RefRegistry, so its value comes from the same redacted snapshot as everything else and its
 * ref is one the agent can act on; the page-wide ref table stays whole.
 */
export class HintReader {
  constructor(
    private readonly h: PageHandle,
    private readonly deadline: Deadline,
  ) {}

  /** The elements `css` matches under `base`, at most `limit`, password and card fields left out; `at` is the value's JSON Pointer. */
  async read(base: HintBase, css: string, limit: number, at: string): Promise<HintedElement[]> {
    const matches = base.locator(`css=${css}`);
    const count = await this.guard(() => matches.count(), css, at);
    const found: HintedElement[] = [];
    for (let i = 0; i < Math.min(count, limit); i++) {
      const locator = matches.nth(i);
      const sensitive = await this.guard(
        () => locator.evaluate((el, selector) => el.matches(selector), SENSITIVE_FIELDS, { timeout: this.deadline.remaining() }),
        css,
        at,
      );
      if (sensitive) continue;
      const roots = await this.capture(locator, css, at);
      found.push({ locator, roots, ref: roots[0]?.node.ref ?? (await this.ancestorRef(locator, css, at)) });
    }
    return found;
  }

  /** A locator for an item's element, from the ref the snapshot gave it. */
  async itemBase(ref: string | undefined): Promise<HintBase | undefined> {
    return ref ? this.h.refs.resolve(ref) : undefined;
  }

  private async capture(locator: Locator, css: string, at: string): Promise<TreeNode[]> {
    this.deadline.check();
    const nodes = await this.guard(() => this.h.refs.capture({ root: locator, timeout: this.deadline.remaining() }), css, at);
    return buildTree(nodes).roots;
  }

  private async ancestorRef(locator: Locator, css: string, at: string): Promise<string | undefined> {
    let ancestor = locator;
    for (let i = 0; i < REF_ANCESTORS; i++) {
      ancestor = ancestor.locator('xpath=..');
      const ref = (await this.capture(ancestor, css, at))[0]?.node.ref;
      if (ref) return ref;
    }
    return undefined;
  }

  /** A selector the browser cannot parse is the schema's fault: -32602 naming where it is. */
  private async guard<T>(run: () => Promise<T>, css: string, at: string): Promise<T> {
    try {
      return await run();
    } catch (error) {
      const mapped = toBAPError(error, { selector: css });
      if (mapped.code !== ErrorCodes.InvalidParams) throw mapped;
      throw new BAPError(ErrorCodes.InvalidParams, `params.schema: the x-selector "${css}" of ${at || 'the root'} is not a valid CSS selector (${firstLine(error)}).`, {
        details: { field: 'params.schema', path: at, selector: css },
      });
    }
  }
}

/** What a hinted element holds: a field's value or checked state, else its text and first link. */
export function hintedValue(roots: readonly TreeNode[]): { value: unknown; url: string | undefined } {
  const [only] = roots;
  if (roots.length === 1 && only && FIELD_ROLES.has(only.role) && isToggle(only)) return { value: only.node.checked === true, url: undefined };
  const text = roots.map(textOf).filter(Boolean).join(' ');
  const link = roots.map(firstLink).find((l) => l?.node.url);
  return { value: text, url: link?.node.url };
}
