import { BAPError, ErrorCodes, type MethodResult, type ParsedParams } from '@browseragentprotocol/protocol';
import { firstLine, invalidField, toBAPError } from './errors.js';
import type { PageHandle } from './pageHandle.js';

/**
 * page/evaluate: a JavaScript expression (or a function, which is called) in the page's current
 * frame. Refused unless the server was started with allowEvaluate, before any page is opened.
 */
export async function evaluate(page: () => Promise<PageHandle>, p: ParsedParams<'page/evaluate'>, allowed: boolean): Promise<MethodResult<'page/evaluate'>> {
  if (!allowed) {
    throw new BAPError(ErrorCodes.Unauthorized, 'Unauthorized: page/evaluate is disabled on this server; it runs page script only when started with allowEvaluate (bap serve --allow-evaluate).', {
      retryable: false,
      details: { method: 'page/evaluate', option: 'allowEvaluate' },
      recoveryHint: 'Use actions and observations instead, or ask the operator to enable evaluation.',
    });
  }
  const h = await page();
  const timeout = p.timeout ?? h.timeouts.action;
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new BAPError(ErrorCodes.Timeout, `page/evaluate: the expression did not finish within ${timeout} ms.`, { details: { timeout } })), timeout);
  });
  try {
    return { value: await Promise.race([run(h, p.expression), expired]) };
  } catch (error) {
    if (/SyntaxError/.test(firstLine(error))) throw invalidField('params.expression', error);
    throw toBAPError(error, { action: 'page/evaluate' });
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The expression's value, or, when it is a function, what calling it returns (promises awaited),
 * turned into JSON text in the page, where BigInts, Maps and Sets inside it can still be read (a
 * primitive result comes back by value, so a BigInt alone is lost before this).
 */
async function run(h: PageHandle, expression: string): Promise<unknown> {
  const handle = await h.frames.current().evaluateHandle(expression);
  try {
    const text = await handle.evaluate(async (value: unknown) => {
      const result = typeof value === 'function' ? await (value as () => unknown)() : value;
      const plain = (_key: string, v: unknown) => (typeof v === 'bigint' ? v.toString() : v instanceof Map ? Object.fromEntries(v) : v instanceof Set ? [...v] : v);
      return JSON.stringify(result, plain) ?? 'null';
    });
    return JSON.parse(text) as unknown;
  } finally {
    void handle.dispose().catch(() => {});
  }
}
