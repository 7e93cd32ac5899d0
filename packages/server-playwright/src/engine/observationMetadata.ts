import type { Frame } from 'playwright-core';
import type { AccessibilityNode, AgentObserveResult } from '@browseragentprotocol/protocol';
import { toBAPError } from './errors.js';
import type { Scroll } from './observationCache.js';
import type { PageHandle } from './pageHandle.js';

export type ObservationMetadata = NonNullable<AgentObserveResult['metadata']>;
export type Focused = ObservationMetadata['focused'];

/** What one evaluate in the observed frame tells about it. */
export interface FrameState {
  title: string;
  scroll: Scroll;
  /** The frame's viewport in CSS pixels, the space the snapshot's boxes are measured in. */
  viewport: { width: number; height: number };
  /**
   * Different for every document the frame loads. A new document restarts Playwright's ref
   * numbering, so an `e5` from before names another element.
   */
  document: string;
}

export async function readFrameState(frame: Frame, frameId: string): Promise<FrameState> {
  try {
    const s = await frame.evaluate(() => {
      const root = document.scrollingElement ?? document.documentElement;
      return {
        title: document.title,
        x: window.scrollX,
        y: window.scrollY,
        width: root?.scrollWidth ?? 0,
        height: root?.scrollHeight ?? 0,
        viewport: { width: window.innerWidth, height: window.innerHeight },
        origin: performance.timeOrigin,
      };
    });
    return {
      title: s.title,
      scroll: { x: s.x, y: s.y, width: s.width, height: s.height },
      viewport: s.viewport,
      document: `${frameId} ${s.origin}`,
    };
  } catch (error) {
    throw toBAPError(error, { action: 'agent/observe' });
  }
}

export function metadataOf(h: PageHandle, frame: Frame, state: FrameState, focused: Focused): ObservationMetadata {
  return {
    ...common(h, frame),
    title: state.title,
    viewport: h.page.viewportSize() ?? (frame === h.page.mainFrame() ? state.viewport : null),
    scroll: state.scroll,
    focused,
  };
}

/** What the server knows of the page without asking it. */
function common(h: PageHandle, frame: Frame) {
  return {
    pageId: h.id,
    contextId: h.contextId,
    url: frame.url(),
    frameId: h.frames.currentId(),
    frameCount: h.page.frames().length - 1,
    dialogs: h.dialogs.open(),
  };
}

/**
 * Metadata while a dialog is open: the page's scripts are stopped, so nothing can be evaluated
 * in it. The browser still knows the main frame's title; the scroll is the last one read.
 */
export async function blockedMetadata(h: PageHandle, lastScroll: Scroll | null): Promise<ObservationMetadata> {
  const frame = h.frames.current();
  let title = '';
  if (frame === h.page.mainFrame()) {
    const info = await (await h.cdp()).send('Target.getTargetInfo').catch(() => null);
    title = info?.targetInfo.title ?? '';
  }
  return {
    ...common(h, frame),
    title,
    viewport: h.page.viewportSize(),
    scroll: lastScroll ?? { x: 0, y: 0, width: 0, height: 0 },
    focused: null,
  };
}

/**
 * The focused element with a ref, the innermost when focus is inside an iframe. A document's
 * body is what Playwright marks active when nothing has focus, so it does not count.
 */
export function focusedNode(nodes: readonly AccessibilityNode[]): Focused {
  let found: Focused = null;
  const visit = (list: readonly AccessibilityNode[], documentRoot: boolean) => {
    for (const node of list) {
      if (node.focused && node.ref && !(documentRoot && node.role === 'generic')) {
        found = { ref: node.ref, role: node.role, name: node.name ?? '' };
      }
      if (node.children) visit(node.children, node.role === 'iframe');
    }
  };
  visit(nodes, true);
  return found;
}
