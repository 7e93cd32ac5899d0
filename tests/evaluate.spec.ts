import { ErrorCodes } from '@browseragentprotocol/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectBAPError } from './support/expectations.js';
import { startHarness, type Harness } from './support/harness.js';

// page/evaluate: page script behind two keys, the `eval` scope and the server's allowEvaluate.

let h: Harness;
let off: Harness;

beforeAll(async () => {
  [h, off] = await Promise.all([startHarness({ server: { allowEvaluate: true } }), startHarness()]);
});

afterAll(async () => {
  await Promise.all([h?.stop(), off?.stop()]);
});

describe('page/evaluate', () => {
  it('is refused with -32003 on a server without allowEvaluate, before a page is opened', async () => {
    const { error } = await expectBAPError(() => off.client.call('page/evaluate', { expression: '1 + 1' }), ErrorCodes.Unauthorized);
    expect(error.message).toContain('allowEvaluate (bap serve --allow-evaluate)');
    expect(error.data).toMatchObject({ retryable: false, details: { method: 'page/evaluate', option: 'allowEvaluate' } });
    expect(await off.client.call('page/list', {})).toEqual({ pages: [], activePage: null });
  });

  it('returns an expression’s value, or what a function returns, as JSON, promises awaited', async () => {
    const { pageId } = await h.client.call('page/navigate', { url: h.url('form.html') });
    const value = async (expression: string) => (await h.client.call('page/evaluate', { pageId, expression })).value;
    expect(await value('document.title')).toBe('Form fixture');
    expect(await value('() => document.querySelectorAll("input").length')).toBe(8);
    expect(await value('async () => { await new Promise((r) => setTimeout(r, 10)); return [1, "two", { three: null }]; }')).toEqual([1, 'two', { three: null }]);
    expect(await value('undefined')).toBeNull();
    expect(await value('({ big: 12345678901234567890n, map: new Map([["a", 1]]), set: new Set([1, 2]), f() {} })')).toEqual({ big: '12345678901234567890', map: { a: 1 }, set: [1, 2] });
  });

  it('a throw is -32021, a syntax error -32602 naming params.expression, a hang -32016 after its timeout', async () => {
    const thrown = await expectBAPError(() => h.client.call('page/evaluate', { expression: 'null.x' }), ErrorCodes.ActionFailed);
    expect(thrown.error.message).toContain('page/evaluate failed');
    const syntax = await expectBAPError(() => h.client.call('page/evaluate', { expression: 'return (' }), ErrorCodes.InvalidParams);
    expect(syntax.error.message).toMatch(/^params\.expression: /);
    const hang = await expectBAPError(() => h.client.call('page/evaluate', { expression: 'new Promise(() => {})', timeout: 200 }), ErrorCodes.Timeout);
    expect(hang.error.message).toBe('page/evaluate: the expression did not finish within 200 ms.');
    const cycle = await expectBAPError(() => h.client.call('page/evaluate', { expression: '(() => { const a = {}; a.self = a; return a; })()' }), ErrorCodes.ActionFailed);
    expect(cycle.error.message).toContain('circular');
  });

  it('runs as an agent/act step', async () => {
    const result = await h.client.call('agent/act', { steps: [{ action: 'page/evaluate', params: { expression: 'document.title' } }] });
    expect(result.results[0]).toMatchObject({ success: true, result: { value: 'Form fixture' } });
  });
});
