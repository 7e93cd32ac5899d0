import type { BrowserContext } from 'playwright-core';
import type { ContextInfo, ContextOptions } from '@browseragentprotocol/protocol';

/** One browser context of a session and what the session knows about it. */
export class ContextEntry {
  readonly created = Date.now();
  readonly pageIds = new Set<string>();
  tracing = false;

  constructor(
    readonly id: string,
    readonly context: BrowserContext,
    readonly options: ContextOptions,
    readonly isDefault: boolean,
  ) {}

  info(): ContextInfo {
    const { storageState: _secret, ...options } = this.options;
    const info: ContextInfo = { id: this.id, pageCount: this.pageIds.size, created: this.created, isDefault: this.isDefault };
    if (Object.keys(options).length) info.options = options;
    return info;
  }
}
