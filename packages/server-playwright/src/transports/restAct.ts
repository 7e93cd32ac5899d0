import type { ActBody, MethodName, MethodParams, MethodResult, RestOutput, Selector } from '@browseragentprotocol/protocol';

/** One BAP call through the caller's REST session: its result, or its BAPError thrown. */
export type BapCall = <M extends MethodName>(method: M, params: MethodParams<M>) => Promise<MethodResult<M>>;

type ActResult = RestOutput<'act'>;

/** Per-key delay of `type {slowly: true}` (ms). */
const SLOW_TYPING_MS = 75;

/** `e5` and `@e5` alike. */
export function refSelector(ref: string): Selector {
  return { type: 'ref', ref: ref.startsWith('@') ? ref : `@${ref}` };
}

/** `targetId` as BAP's `pageId`; without it, the active page. */
export function onPage(body: { targetId?: string | undefined }): { pageId?: string } {
  return body.targetId === undefined ? {} : { pageId: body.targetId };
}

/** `POST /act`: each kind as the BAP method (or methods) that carries it out. */
export async function act(bap: BapCall, b: ActBody): Promise<ActResult> {
  const done: ActResult = { ok: true, kind: b.kind };
  const page = onPage(b);
  switch (b.kind) {
    case 'click':
      await bap(b.doubleClick ? 'action/dblclick' : 'action/click', {
        ...page,
        selector: refSelector(b.ref),
        options: { timeout: b.timeoutMs, button: b.button, modifiers: b.modifiers },
      });
      return done;
    case 'type': {
      const selector = refSelector(b.ref);
      await bap('action/type', { ...page, selector, text: b.text, options: { timeout: b.timeoutMs, delay: b.slowly ? SLOW_TYPING_MS : undefined } });
      if (b.submit) await bap('action/press', { ...page, selector, key: 'Enter', options: { timeout: b.timeoutMs } });
      return done;
    }
    case 'press':
      await bap('action/press', { ...page, key: b.key, selector: b.ref === undefined ? undefined : refSelector(b.ref), options: { timeout: b.timeoutMs } });
      return done;
    case 'hover':
      await bap('action/hover', { ...page, selector: refSelector(b.ref), options: { timeout: b.timeoutMs } });
      return done;
    case 'drag':
      await bap('action/drag', { ...page, source: refSelector(b.startRef), target: refSelector(b.endRef), options: { timeout: b.timeoutMs } });
      return done;
    case 'select': {
      const { selected } = await bap('action/select', { ...page, selector: refSelector(b.ref), values: b.values, options: { timeout: b.timeoutMs } });
      return { ...done, selected };
    }
    case 'fill':
      // In order: a field may appear only once the one before is filled.
      for (const field of b.fields) {
        const params = { ...page, selector: refSelector(field.ref), options: { timeout: b.timeoutMs } };
        if (typeof field.value === 'string') await bap('action/fill', { ...params, value: field.value });
        else await bap(field.value ? 'action/check' : 'action/uncheck', params);
      }
      return done;
    case 'wait': {
      const selector: Selector | undefined = b.selector === undefined ? undefined : { type: 'css', value: b.selector };
      const { waited, url } = await bap('page/waitFor', {
        ...page,
        time: b.timeMs,
        text: b.text,
        textGone: b.textGone,
        selector,
        url: b.url,
        loadState: b.loadState,
        timeout: b.timeoutMs,
      });
      return { ...done, waitedMs: waited, url };
    }
    case 'resize':
      await bap('emulate/setViewport', { ...page, width: b.width, height: b.height });
      return done;
    case 'close': {
      const { activePage } = await bap('page/close', page);
      return { ...done, activeTargetId: activePage };
    }
    case 'evaluate': {
      const { value } = await bap('page/evaluate', { ...page, expression: b.expression, timeout: b.timeoutMs });
      return { ...done, value };
    }
  }
}
