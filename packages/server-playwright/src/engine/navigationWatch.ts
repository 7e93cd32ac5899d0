import type { CDPSession, Frame, Page } from 'playwright-core';

/**
 * Watches for a main-frame navigation an input starts, the way Playwright's click does: a
 * navigation requested while watching is waited for until it commits (an error page counts), or
 * the frame stops loading without committing (a download, a 204).
 */
export class NavigationWatch {
  private requested = false;
  private done = false;
  private wake: (() => void) | null = null;

  constructor(
    private readonly page: Page,
    /** A CDP session of the page with Page events enabled. */
    private readonly cdp: CDPSession,
    private readonly mainFrameId: () => string,
  ) {
    cdp.on('Page.frameRequestedNavigation', this.onRequested);
    cdp.on('Page.frameStoppedLoading', this.onStopped);
    page.on('framenavigated', this.onNavigated);
    page.on('download', this.finish);
    page.on('close', this.finish);
  }

  /** Resolves once no navigation is pending, or none was started. */
  async settled(): Promise<void> {
    if (!this.requested || this.done) return;
    await new Promise<void>((resolve) => {
      this.wake = resolve;
    });
    // Playwright lets the navigation's own events land before the action returns.
    await new Promise((resolve) => setImmediate(resolve));
  }

  dispose(): void {
    this.cdp.off('Page.frameRequestedNavigation', this.onRequested);
    this.cdp.off('Page.frameStoppedLoading', this.onStopped);
    this.page.off('framenavigated', this.onNavigated);
    this.page.off('download', this.finish);
    this.page.off('close', this.finish);
  }

  private readonly onRequested = (e: { frameId: string; disposition: string }) => {
    if (e.frameId === this.mainFrameId() && e.disposition === 'currentTab') this.requested = true;
  };

  private readonly onStopped = (e: { frameId: string }) => {
    if (this.requested && e.frameId === this.mainFrameId()) this.finish();
  };

  private readonly onNavigated = (frame: Frame) => {
    if (frame === this.page.mainFrame()) this.finish();
  };

  private readonly finish = () => {
    this.done = true;
    this.wake?.();
  };
}
