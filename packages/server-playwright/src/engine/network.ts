import type { Page } from 'playwright-core';
import type { MethodResult, ParsedParams } from '@browseragentprotocol/protocol';
import type { ContextEntry } from './contextEntry.js';
import type { Emit } from './events.js';
import type { PageHandle } from './pageHandle.js';

type Empty = Record<string, never>;

/** A session's network events and request interception. */
export class NetworkController {
  constructor(
    private readonly emit: Emit,
    private readonly handleFor: (page: Page) => PageHandle | undefined,
  ) {}

  watchPage(_handle: PageHandle): void {}

  forgetContext(_contextId: string): void {}

  async intercept(_entry: ContextEntry, _params: ParsedParams<'network/intercept'>): Promise<MethodResult<'network/intercept'>> {
    throw new Error('unfinished');
  }

  async fulfill(_params: ParsedParams<'network/fulfill'>): Promise<Empty> {
    throw new Error('unfinished');
  }

  async abort(_params: ParsedParams<'network/abort'>): Promise<Empty> {
    throw new Error('unfinished');
  }

  async continue(_params: ParsedParams<'network/continue'>): Promise<Empty> {
    throw new Error('unfinished');
  }
}
