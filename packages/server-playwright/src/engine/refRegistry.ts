import { limitError } from './errors.js';
import type { Frame, Locator, Page } from 'playwright-core';
import { BAPError, ErrorCodes, type AccessibilityNode } from '@browseragentprotocol/protocol';
import { collectRefs, toAccessibilityNodes, type RawAriaNode } from './ariaTree.js';
import { sensitiveValues } from './secrets.js';
import { changeStamp, installChangeTracker } from './pageScripts.js';

interface RefTarget {
  role: string;
  name: string;
  /** Inside an iframe: no role+name fallback there, the main frame's getByRole cannot see it. */
  inFrame: boolean;
  /** Index among the main-frame nodes of the same role and name, in document order. */
  nth: number;
}

export interface CaptureOptions {
  /** Snapshot only this element; wins over `frame`. */
  root?: Locator;
  /** Snapshot only this frame (and the frames inside it) when it is not the main frame. */
  frame?: Frame;
  depth?: number;
  boxes?: boolean;
  timeout?: number;
}

const SNAPSHOT_HINT = 'Take a new observe/ariaSnapshot (or observe/accessibility) of this page and use a ref from it.';

/**
 * The one owner of a page's AI snapshots. Playwright keeps a single ref table per frame and any
 * later snapshot in that frame replaces it; taking every snapshot here keeps our table and
 * Playwright's in step, so refs are never invalidated behind the agent's back.
 */
export class RefRegistry {
  private refs = new Map<string, RefTarget>();
  /**
   * The last whole-frame snapshot and the change stamps of every frame taken just before it: while
   * the stamps stay the same, the page has not changed and the snapshot (and Playwright's ref
   * table, which only a new snapshot replaces) still hold.
   */
  private unchanged: { frame: Frame | undefined; boxes: boolean; stamps: (string | null)[]; nodes: AccessibilityNode[] } | null = null;
  /** Set when the main frame navigates: role+name fallback must not hop to another document. */
  private navigatedSinceSnapshot = false;

  constructor(
    private readonly page: Page,
    private readonly maxRefs: number,
  ) {
    page.on('framenavigated', (frame) => {
      this.unchanged = null;
      if (frame === page.mainFrame()) this.navigatedSinceSnapshot = true;
    });
    page.on('frameattached', () => (this.unchanged = null));
    page.on('framedetached', () => (this.unchanged = null));
    // Documents loaded before this (a page opened at a URL) just go without: their snapshots are never reused.
    page.addInitScript(installChangeTracker).catch(() => {});
  }

  get size(): number {
    return this.refs.size;
  }

  async capture(options: CaptureOptions = {}): Promise<AccessibilityNode[]> {
    const whole = !options.root && options.depth === undefined;
    const key = { frame: options.frame, boxes: options.boxes ?? false };
    const stamps = whole ? await this.stamps() : null;
    const last = this.unchanged;
    this.unchanged = null;
    if (stamps && last && last.frame === key.frame && last.boxes === key.boxes && sameStamps(last.stamps, stamps)) {
      this.unchanged = last;
      return last.nodes;
    }
    const nodes = await this.snapshot(options);
    if (stamps) this.unchanged = { ...key, stamps, nodes };
    return nodes;
  }

  /** Every frame's change stamp; null for one without the tracker (nothing is reused then). */
  private stamps(): Promise<(string | null)[]> {
    return Promise.all(this.page.frames().map((f) => f.evaluate(changeStamp).catch(() => null)));
  }

  private async snapshot(options: CaptureOptions): Promise<AccessibilityNode[]> {
    const { depth, boxes, timeout } = options;
    // A child frame's own snapshot prints the same refs (`f2e3`) as the page-wide one.
    const root = options.root ?? (options.frame?.parentFrame() ? options.frame.locator('body') : undefined);
    const snapshotOptions = { mode: 'ai' as const, timeout: timeout ?? 0, boxes: boxes ?? false };
    const raw = (await (root ?? this.page).ariaSnapshotJSON(
      depth === undefined ? snapshotOptions : { ...snapshotOptions, depth },
    )) as RawAriaNode[];
    // Field values only show on nodes with text; most snapshots need no second look at the page.
    const secrets = hasText(raw) ? await sensitiveValues(this.page) : new Set<string>();
    const nodes = toAccessibilityNodes(raw, secrets);
    const count = collectRefs(nodes).size;
    if (count > this.maxRefs) {
      throw limitError('refs', this.maxRefs, count, 'Observe part of the page: pass a selector (or root) to snapshot one region.');
    }
    // A partial snapshot replaced Playwright's table with a subset: restore the whole page's.
    const full = root || depth !== undefined ? toAccessibilityNodes((await this.page.ariaSnapshotJSON({ mode: 'ai' })) as RawAriaNode[], secrets) : nodes;
    this.remember(full);
    return nodes;
  }

  /** A locator for a ref, or ElementNotFound within milliseconds when it cannot be resolved. */
  async resolve(input: string): Promise<Locator> {
    const ref = input.startsWith('@') ? input : `@${input}`;
    const target = this.refs.get(ref);
    if (!target) {
      throw new BAPError(ErrorCodes.ElementNotFound, `Unknown ref ${ref}: it is not in the latest snapshot of this page.`, {
        retryable: false,
        details: { ref },
        recoveryHint: SNAPSHOT_HINT,
      });
    }
    const direct = this.page.locator(`aria-ref=${ref.slice(1)}`);
    if ((await direct.count()) === 1) return direct;
    const fallback = await this.fallback(ref, target);
    if (fallback) return fallback;
    const what = target.name ? `${target.role} "${target.name}"` : target.role;
    throw new BAPError(ErrorCodes.ElementNotFound, `Ref ${ref} is stale: its element (${what}) is no longer on the page.`, {
      retryable: false,
      details: { ref, role: target.role, name: target.name },
      recoveryHint: SNAPSHOT_HINT,
    });
  }

  private async fallback(ref: string, target: RefTarget): Promise<Locator | null> {
    // Refs inside iframes and nameless generics have no trustworthy role+name twin.
    if (this.navigatedSinceSnapshot || target.inFrame || !target.name || target.role === 'generic') return null;
    const candidates = this.page.getByRole(target.role as Parameters<Page['getByRole']>[0], {
      name: target.name,
      exact: true,
    });
    const count = await candidates.count();
    if (count === 1) return candidates;
    return count > target.nth ? candidates.nth(target.nth) : null;
  }

  private remember(nodes: AccessibilityNode[]): void {
    const seen = new Map<string, number>();
    this.refs = new Map();
    for (const [ref, { role, name, inFrame }] of collectRefs(nodes)) {
      // Only main-frame refs can fall back to getByRole, so only they are counted for `nth`.
      const key = `${role}\u0000${name}`;
      const nth = seen.get(key) ?? 0;
      if (!inFrame) seen.set(key, nth + 1);
      this.refs.set(ref, { role, name, inFrame, nth });
    }
    this.navigatedSinceSnapshot = false;
  }
}

function sameStamps(a: readonly (string | null)[], b: readonly (string | null)[]): boolean {
  return a.length === b.length && a.every((stamp, i) => stamp !== null && stamp === b[i]);
}

function hasText(nodes: readonly RawAriaNode[]): boolean {
  return nodes.some((n) => typeof n === 'object' && (typeof n.text === 'string' || (Array.isArray(n.children) && hasText(n.children))));
}
