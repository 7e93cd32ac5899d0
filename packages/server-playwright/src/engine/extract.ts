import { BAPError, ErrorCodes, type MethodResult, type ParsedParams } from '@browseragentprotocol/protocol';
import type { PageHandle } from './pageHandle.js';

/** agent/extract. */
export async function extract(h: PageHandle, p: ParsedParams<'agent/extract'>): Promise<MethodResult<'agent/extract'>> {
  void h;
  void p;
  throw new BAPError(ErrorCodes.InternalError, 'agent/extract: under construction');
}
