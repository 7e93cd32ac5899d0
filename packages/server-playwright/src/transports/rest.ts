import type { HttpContext } from './httpApi.js';

/** The REST contract (docs/http.md). STUB: replaced by the real routes. */
export async function handleRest(ctx: HttpContext): Promise<boolean> {
  void ctx;
  return false;
}
