import { limitError } from './errors.js';
import type { Frame, Locator, Page } from 'playwright-core';
import { BAPError, ErrorCodes, type AccessibilityNode } from '@browseragentprotocol/protocol';
import { collectRefs, toAccessibilityNodes, type RawAriaNode, type RefEntry } from './ariaTree.js';
import { walkRefsResolvable } from './browserHost.js';
import type { ElementNode } from './interactive.js';
import { runWalk, toElementNode, WALK_REF } from './interactiveWalk.js';
import { SENSITIVE_FIELDS, sensitiveValues } from './secrets.js';
import { changeStamp, installChangeTracker, REF_ENGINE } from './pageScripts.js';

interface RefTarget {
  role: string;
  name: string;
  /** Inside an iframe: no role+name fallback there, the main frame's getByRole cannot see it. */
  inFrame: boolean;
  /** Index among the main-frame nodes of the same role and name, in document order. */
  nth: number;
  /** The main frame's document it was seen in (a count of navigations): no fallback into another. */
  document: number;
}

/** The interactive elements of the main frame, by the in-page walk (interactiveWalk.ts). */
export interface Walk {
  elements: ElementNode[];
  /** The focused element when it is not among them. */
  focus: ElementNode | null;
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
  /** Counts the main frame's navigations: role+name fallback must not hop to another document. */
  private document = 0;
  /** Refs of the last walk (`@b<n>`), and the walk while the page's change stamp holds. */
  private walkRefs = new Map<string, RefTarget & { table: string }>();
  private walked: { table: string; stamp: string | null; boxes: boolean; walk: Walk } | null = null;

  constructor(
    private readonly page: Page,
    private readonly maxRefs: number,
  ) {
    page.on('framenavigated', (frame) => {
      this.unchanged = null;
      if (frame === page.mainFrame()) this.document++;
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

  /**
   * The interactive elements of the main frame by one pass in the page, for the candidates alone
   * (a snapshot names every node): null where the walk cannot stand in for the snapshot, a page
   * with child frames or one whose scripts broke it. Reused while the page has not changed.
   */
  async walk(boxes: boolean): Promise<Walk | null> {
    const frame = this.page.mainFrame();
    if (!walkRefsResolvable() || frame.childFrames().length) return null;
    const last = this.walked;
    const args = { stamp: last?.boxes === boxes ? last.stamp : null, table: last?.table ?? null, boxes, sensitive: SENSITIVE_FIELDS };
    const document = this.document;
    const result = await runWalk(frame, args).catch(() => null);
    if (!result || document !== this.document) return null;
    // The page says unchanged only to the stamp of a last walk.
    if (result.unchanged) return last?.walk ?? null;
    if (result.elements.length > this.maxRefs) {
      throw limitError('refs', this.maxRefs, result.elements.length, 'Observe part of the page: pass a selector (or root) to snapshot one region.');
    }
    const walk: Walk = { elements: result.elements.map(toElementNode), focus: result.focus ? toElementNode(result.focus) : null };
    const listed = walk.focus ? [...walk.elements, walk.focus] : walk.elements;
    const targets = withNth(listed.map(({ ref, role, name }) => [ref, { role, name, inFrame: false }] as const), document);
    this.walkRefs = new Map(targets.map(([ref, target]) => [ref, { ...target, table: result.table }]));
    this.walked = { table: result.table, stamp: result.stamp, boxes, walk };
    return walk;
  }

  /** A locator for a ref, or ElementNotFound within milliseconds when it cannot be resolved. */
  async resolve(input: string): Promise<Locator> {
    const ref = input.startsWith('@') ? input : `@${input}`;
    const walked = WALK_REF.test(ref) ? this.walkRefs.get(ref) : undefined;
    const target = walked ?? this.refs.get(ref);
    if (!target) {
      throw new BAPError(ErrorCodes.ElementNotFound, `Unknown ref ${ref}: it is not in the latest snapshot (or observation) of this page.`, {
        retryable: false,
        details: { ref },
        recoveryHint: SNAPSHOT_HINT,
      });
    }
    const direct = walked ? this.page.mainFrame().locator(`${REF_ENGINE}=${walked.table}:${ref.slice(2)}`) : this.page.locator(`aria-ref=${ref.slice(1)}`);
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
    if (target.document !== this.document || target.inFrame || !target.name || target.role === 'generic') return null;
    const candidates = this.page.getByRole(target.role as Parameters<Page['getByRole']>[0], {
      name: target.name,
      exact: true,
    });
    const count = await candidates.count();
    if (count === 1) return candidates;
    return count > target.nth ? candidates.nth(target.nth) : null;
  }

  private remember(nodes: AccessibilityNode[]): void {
    this.refs = new Map(withNth([...collectRefs(nodes)], this.document));
  }
}

/** Each ref's index among the main-frame refs of its role and name (only they fall back to getByRole). */
function withNth(entries: ReadonlyArray<readonly [string, RefEntry]>, document: number): Array<[string, RefTarget]> {
  const seen = new Map<string, number>();
  return entries.map(([ref, { role, name, inFrame }]) => {
    const key = `${role}\u0000${name}`;
    const nth = seen.get(key) ?? 0;
    if (!inFrame) seen.set(key, nth + 1);
    return [ref, { role, name, inFrame, nth, document }];
  });
}

function sameStamps(a: readonly (string | null)[], b: readonly (string | null)[]): boolean {
  return a.length === b.length && a.every((stamp, i) => stamp !== null && stamp === b[i]);
}

function hasText(nodes: readonly RawAriaNode[]): boolean {
  return nodes.some((n) => typeof n === 'object' && (typeof n.text === 'string' || (Array.isArray(n.children) && hasText(n.children))));
}
