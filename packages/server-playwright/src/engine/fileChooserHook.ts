import type { FileChooser, Page } from 'playwright-core';

/**
 * The files armed for a page's next file chooser (action/armFileChooser): whatever opens the
 * chooser afterwards — a click by the agent, a script — gets them. Armed once; a later arm
 * replaces it; it lapses after its timeout. Only while armed does the page's file chooser go
 * through us.
 */
export class FileChooserHook {
  private armed: { paths: string[]; timer: NodeJS.Timeout } | null = null;
  private readonly onChooser = (chooser: FileChooser) => void this.fire(chooser);

  constructor(private readonly page: Page) {
    page.on('close', () => this.disarm());
  }

  arm(paths: string[], timeout: number): void {
    this.disarm();
    this.armed = { paths, timer: setTimeout(() => this.disarm(), timeout) };
    this.page.on('filechooser', this.onChooser);
  }

  /** A chooser for one file armed with several gets none: picking one of them would be a guess. */
  private async fire(chooser: FileChooser): Promise<void> {
    const armed = this.armed;
    if (!armed) return;
    this.disarm();
    await chooser.setFiles(chooser.isMultiple() || armed.paths.length === 1 ? armed.paths : []).catch(() => {});
  }

  private disarm(): void {
    if (!this.armed) return;
    clearTimeout(this.armed.timer);
    this.armed = null;
    this.page.off('filechooser', this.onChooser);
  }
}
