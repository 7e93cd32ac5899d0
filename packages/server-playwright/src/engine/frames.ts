import type { Frame, Locator, Page } from 'playwright-core';
import {
  BAPError,
  ErrorCodes,
  describeSelector,
  type FrameInfo,
  type MethodResult,
  type ParsedParams,
  type Selector,
} from '@browseragentprotocol/protocol';
import { toBAPError } from './errors.js';
import { compileUrlPattern } from './urlPattern.js';

const MAIN = 'main';
const LIST_HINT = 'Call frame/list for the frames of this page and their ids.';

/** The frames of one page: stable ids, and the frame actions and observations run in. */
export class FrameTracker {
  private currentFrame: Frame | null = null;
  /** Ids live as long as their frame object, which survives navigations inside the frame. */
  private readonly ids = new WeakMap<Frame, string>();
  private nextId = 1;

  constructor(
    private readonly page: Page,
    private readonly actionTimeout: number,
  ) {
    // Numbered in attach order, so ids do not depend on when an agent first lists the frames.
    page.on('frameattached', (frame) => this.idOf(frame));
  }

  /** The frame selectors (other than refs) resolve in: the switched-to frame, or the main frame. */
  current(): Frame {
    if (this.currentFrame?.isDetached()) this.currentFrame = null;
    return this.currentFrame ?? this.page.mainFrame();
  }

  currentId(): string {
    return this.idOf(this.current());
  }

  async list(): Promise<MethodResult<'frame/list'>> {
    const current = this.current();
    const frames = this.page.frames().map((frame): FrameInfo => {
      const parent = frame.parentFrame();
      const info: FrameInfo = {
        frameId: this.idOf(frame),
        name: frame.name(),
        url: frame.url(),
        isMain: parent === null,
        current: frame === current,
      };
      if (parent) info.parentFrameId = this.idOf(parent);
      return info;
    });
    return { frames, currentFrameId: this.idOf(current) };
  }

  /** Makes one frame current, found by id, by its <iframe> element, or by its URL. */
  async switch(
    params: ParsedParams<'frame/switch'>,
    element: (selector: Selector) => Promise<Locator>,
  ): Promise<MethodResult<'frame/switch'>> {
    let frame: Frame;
    if (params.frameId !== undefined) frame = this.byId(params.frameId);
    else if (params.selector !== undefined) frame = await this.bySelector(params.selector, element);
    else frame = this.byUrl(params.url ?? '');
    this.currentFrame = frame === this.page.mainFrame() ? null : frame;
    return { frameId: this.idOf(frame), url: frame.url() };
  }

  async main(): Promise<MethodResult<'frame/main'>> {
    this.currentFrame = null;
    return { frameId: MAIN };
  }

  private idOf(frame: Frame): string {
    if (frame === this.page.mainFrame()) return MAIN;
    let id = this.ids.get(frame);
    if (!id) {
      id = `frame-${this.nextId++}`;
      this.ids.set(frame, id);
    }
    return id;
  }

  private byId(frameId: string): Frame {
    const frame = this.page.frames().find((f) => this.idOf(f) === frameId);
    if (frame) return frame;
    throw new BAPError(ErrorCodes.FrameNotFound, `frameId: no frame "${frameId}" on this page (it may have been removed).`, {
      details: { frameId, frames: this.page.frames().map((f) => this.idOf(f)) },
      recoveryHint: LIST_HINT,
    });
  }

  private async bySelector(selector: Selector, element: (selector: Selector) => Promise<Locator>): Promise<Frame> {
    const locator = await element(selector);
    const timeout = this.actionTimeout;
    const handle = await locator.elementHandle({ timeout }).catch((error: unknown) => {
      throw toBAPError(error, { action: 'frame/switch', selector: describeSelector(selector), timeout });
    });
    try {
      const frame = await handle.contentFrame();
      if (frame) return frame;
      const tag = await handle.evaluate((el) => el.tagName.toLowerCase()).catch(() => 'element');
      throw new BAPError(
        ErrorCodes.FrameNotFound,
        `selector: ${describeSelector(selector)} is a <${tag}>, not an <iframe> or <frame>.`,
        { details: { selector: describeSelector(selector), tagName: tag }, recoveryHint: 'Select the <iframe> element itself, or switch by frameId or url.' },
      );
    } finally {
      await handle.dispose().catch(() => {});
    }
  }

  /** The frame inside the page whose URL matches; the top document is reached with frame/main. */
  private byUrl(pattern: string): Frame {
    const matches = compileUrlPattern(pattern, 'params.url');
    const main = this.page.mainFrame();
    const found = this.page.frames().filter((f) => f !== main && matches(f.url()));
    const describe = (frames: Frame[]) => frames.map((f) => ({ frameId: this.idOf(f), url: f.url() }));
    if (found.length === 1) return found[0]!;
    if (found.length === 0) {
      throw new BAPError(ErrorCodes.FrameNotFound, `url: no frame of this page has a URL matching "${pattern}".`, {
        details: { url: pattern, frames: describe(this.page.frames().filter((f) => f !== main)) },
        recoveryHint: LIST_HINT,
      });
    }
    throw new BAPError(ErrorCodes.SelectorAmbiguous, `url: "${pattern}" matches ${found.length} frames.`, {
      details: { url: pattern, candidates: describe(found) },
      recoveryHint: 'Switch by one of the candidates\' frameId, or use a more specific pattern.',
    });
  }
}
