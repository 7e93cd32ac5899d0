import type { Frame, Locator, Page } from 'playwright-core';
import type { MethodResult, ParsedParams, Selector } from '@browseragentprotocol/protocol';

/** The frames of one page: stable ids, and the frame actions and observations run in. */
export class FrameTracker {
  private currentFrame: Frame | null = null;

  constructor(private readonly page: Page) {}

  /** The frame selectors (other than refs) resolve in: the switched-to frame, or the main frame. */
  current(): Frame {
    if (this.currentFrame?.isDetached()) this.currentFrame = null;
    return this.currentFrame ?? this.page.mainFrame();
  }

  async list(): Promise<MethodResult<'frame/list'>> {
    throw new Error('unfinished');
  }

  async switch(
    _params: ParsedParams<'frame/switch'>,
    _element: (selector: Selector) => Promise<Locator>,
  ): Promise<MethodResult<'frame/switch'>> {
    throw new Error('unfinished');
  }

  async main(): Promise<MethodResult<'frame/main'>> {
    this.currentFrame = null;
    return { frameId: 'main' };
  }
}
