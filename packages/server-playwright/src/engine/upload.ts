import type { MethodResult, ParsedParams } from '@browseragentprotocol/protocol';
import type { PageHandle } from './pageHandle.js';

export interface UploadLimits {
  maxUploadBytes: number;
  uploadDirs: string[];
}

/** action/upload: files into a file input, or into the chooser a click on the element opens. */
export async function upload(_h: PageHandle, _p: ParsedParams<'action/upload'>, _limits: UploadLimits): Promise<MethodResult<'action/upload'>> {
  throw new Error('unfinished');
}
