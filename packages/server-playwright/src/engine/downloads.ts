import type { MethodResult, ParsedParams } from '@browseragentprotocol/protocol';
import type { Emit } from './events.js';
import type { PageHandle } from './pageHandle.js';

/** A session's downloads: events while they run, their bytes once done. */
export class DownloadRegistry {
  constructor(private readonly emit: Emit) {}

  watchPage(_handle: PageHandle): void {}

  async list(_pageId: string | undefined): Promise<MethodResult<'download/list'>> {
    throw new Error('unfinished');
  }

  async get(_params: ParsedParams<'download/get'>): Promise<MethodResult<'download/get'>> {
    throw new Error('unfinished');
  }
}
