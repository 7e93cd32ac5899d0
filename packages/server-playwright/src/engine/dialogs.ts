import type { Page } from 'playwright-core';
import type { MethodResult, ParsedParams } from '@browseragentprotocol/protocol';
import type { Emit } from './events.js';

/** Answers a page's dialogs so they never freeze it: by policy, by an armed answer, or by the client. */
export class DialogController {
  constructor(
    private readonly page: Page,
    private readonly pageId: string,
    private readonly emit: Emit,
  ) {
    page.on('dialog', (dialog) => {
      void dialog.dismiss().catch(() => {});
    });
  }

  async handle(_params: ParsedParams<'dialog/handle'>): Promise<MethodResult<'dialog/handle'>> {
    throw new Error('unfinished');
  }

  async setPolicy(_params: ParsedParams<'dialog/setPolicy'>): Promise<MethodResult<'dialog/setPolicy'>> {
    throw new Error('unfinished');
  }
}
