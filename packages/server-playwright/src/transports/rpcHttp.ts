import type { HttpContext } from './httpApi.js';

/** JSON-RPC over HTTP: POST /rpc (and /message), GET /events. STUB: replaced by the real routes. */
export async function handleRpc(ctx: HttpContext): Promise<boolean> {
  void ctx;
  return false;
}
