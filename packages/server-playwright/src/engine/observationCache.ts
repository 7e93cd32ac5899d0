import { BAPError, ErrorCodes, type AgentObserveResult } from '@browseragentprotocol/protocol';
import { firstSlice, isPosition, nextSlice, type Observation, type Position } from './observationBudget.js';
import type { PageHandle } from './pageHandle.js';

/** Cut observations kept per page for their cursors; the least recently read goes first. */
const KEPT_PER_PAGE = 4;

export type Scroll = NonNullable<AgentObserveResult['metadata']>['scroll'];

export interface Changes {
  added: ReadonlySet<string>;
  changed: ReadonlySet<string>;
  /** Refs, in the order the previous observation listed them. */
  removed: string[];
}

interface Kept {
  observation: Observation;
  budget: number;
}

/**
 * What agent/observe remembers about one page between calls: the element lines it last listed
 * (the baseline of `incremental`), the last scroll position read, and cut observations waiting
 * for their cursors.
 */
export class PageObservations {
  /** The scroll position of the last observation, reported while a dialog keeps the page from being read. */
  lastScroll: Scroll | null = null;
  private baseline: { document: string; lines: ReadonlyMap<string, string> } | null = null;
  private readonly kept = new Map<number, Kept>();
  private nextId = 1;

  /**
   * What changed since the last listed elements, by ref; null without a baseline of the same
   * document, whose refs would name other elements.
   */
  changesSince(document: string, lines: ReadonlyMap<string, string>): Changes | null {
    const before = this.baseline;
    if (!before || before.document !== document) return null;
    const added = new Set<string>();
    const changed = new Set<string>();
    for (const [ref, line] of lines) {
      const previous = before.lines.get(ref);
      if (previous === undefined) added.add(ref);
      else if (previous !== line) changed.add(ref);
    }
    const removed = [...before.lines.keys()].filter((ref) => !lines.has(ref));
    return { added, changed, removed };
  }

  setBaseline(document: string, lines: ReadonlyMap<string, string>): void {
    this.baseline = { document, lines };
  }

  /** The first slice of an observation; a cut one is kept, and its result carries the cursor to the rest. */
  first(observation: Observation, budget: number): AgentObserveResult {
    const { result, next } = firstSlice(observation, budget);
    if (!next) return result;
    const id = this.nextId++;
    this.kept.set(id, { observation, budget });
    for (const old of this.kept.keys()) {
      if (this.kept.size <= KEPT_PER_PAGE) break;
      this.kept.delete(old);
    }
    return { ...result, cursor: cursorOf(id, next) };
  }

  /** The slice a cursor points at, with the cursor to the one after it. */
  resume(cursor: string): AgentObserveResult {
    const match = /^o(\d+)\.(\d+)\.(\d+)$/.exec(cursor);
    const id = Number(match?.[1]);
    const kept = this.kept.get(id);
    const at = { part: Number(match?.[2]), item: Number(match?.[3]) };
    if (!kept || !isPosition(kept.observation, at)) throw unknownCursor(cursor);
    this.kept.delete(id);
    this.kept.set(id, kept);
    const { result, next } = nextSlice(kept.observation, at, kept.budget);
    return next ? { ...result, cursor: cursorOf(id, next) } : result;
  }
}

function cursorOf(id: number, at: Position): string {
  return `o${id}.${at.part}.${at.item}`;
}

function unknownCursor(cursor: string): BAPError {
  return new BAPError(ErrorCodes.InvalidParams, `params.cursor: "${cursor.slice(0, 40)}" is not a cursor of a recent observation of this page.`, {
    details: { field: 'params.cursor' },
    recoveryHint: `Call agent/observe again without a cursor; only the last ${KEPT_PER_PAGE} cut observations of a page can be continued.`,
  });
}

/** Freed with the page: nothing outside the handle keeps it alive. */
const pages = new WeakMap<PageHandle, PageObservations>();

export function observationsOf(h: PageHandle): PageObservations {
  let memory = pages.get(h);
  if (!memory) {
    memory = new PageObservations();
    pages.set(h, memory);
  }
  return memory;
}
