import { BAPError, ErrorCodes, type ParsedParams, type ScreenshotResult } from '@browseragentprotocol/protocol';
import type { PageHandle } from './pageHandle.js';

/** observe/screenshot with `options.annotate`: a set-of-marks screenshot. */
export async function annotatedScreenshot(h: PageHandle, p: ParsedParams<'observe/screenshot'>): Promise<ScreenshotResult> {
  void h;
  void p;
  throw new BAPError(ErrorCodes.InternalError, 'annotate: under construction');
}
