import { BAPError, ErrorCodes, type AgentObserveResult, type ParsedParams } from '@browseragentprotocol/protocol';
import type { PageHandle } from './pageHandle.js';

export type ObserveOptions = Omit<ParsedParams<'agent/observe'>, 'pageId'>;

/** agent/observe. */
export async function agentObserve(h: PageHandle, p: ObserveOptions): Promise<AgentObserveResult> {
  void h;
  void p;
  throw new BAPError(ErrorCodes.InternalError, 'agent/observe: under construction');
}
