import { ErrorCodes, type BAPError, type MethodParams } from '@browseragentprotocol/protocol';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './support/harness.js';
import { css } from './support/observe.js';

let h: Harness;
let pageId: string;

beforeAll(async () => {
  h = await startHarness();
});

afterAll(async () => {
  await h?.stop();
});

beforeEach(async () => {
  pageId = (await h.client.call('page/create', { url: h.url('login.html') })).id;
});

type Steps = MethodParams<'agent/act'>['steps'];

const loginSteps: Steps = [
  { label: 'user', action: 'action/fill', params: { selector: css('#user'), value: 'ada' } },
  { label: 'password', action: 'action/fill', params: { selector: css('#pass'), value: 'correct horse' } },
  { label: 'remember', action: 'action/check', params: { selector: { type: 'label', value: 'Remember me' } } },
  {
    label: 'sign in',
    action: 'action/click',
    params: { selector: { type: 'role', role: 'button', name: 'Sign in' } },
    condition: { selector: css('#signin'), state: 'enabled', timeout: 2_000 },
  },
  { label: 'welcome', action: 'page/waitFor', params: { text: 'Welcome, ada' } },
];

async function text(selector: string): Promise<string | undefined> {
  return (await h.client.call('observe/element', { pageId, selector: css(selector), properties: ['text'] })).text;
}

async function actError(params: MethodParams<'agent/act'>): Promise<BAPError> {
  return h.client.call('agent/act', params).then(
    () => {
      throw new Error('agent/act should have failed');
    },
    (error: unknown) => error as BAPError,
  );
}

describe('agent/act', () => {
  it('runs a whole login flow in one call', async () => {
    const result = await h.client.call('agent/act', { pageId, steps: loginSteps });
    expect(result).toMatchObject({ success: true, completed: 5, total: 5 });
    expect(result.failedAt).toBeUndefined();
    expect(result.results.map((r) => [r.step, r.label, r.action, r.success, r.retries])).toEqual([
      [0, 'user', 'action/fill', true, 0],
      [1, 'password', 'action/fill', true, 0],
      [2, 'remember', 'action/check', true, 0],
      [3, 'sign in', 'action/click', true, 0],
      [4, 'welcome', 'page/waitFor', true, 0],
    ]);
    expect(result.results.every((r) => r.duration >= 0)).toBe(true);
    expect(result.duration).toBeGreaterThanOrEqual(300);
    expect(await text('#welcome')).toBe('Welcome, ada (remembered)');
  });

  it('observes before and after the sequence when asked', async () => {
    const result = await h.client.call('agent/act', {
      pageId,
      steps: [loginSteps[0]!],
      preObserve: true,
      postObserve: { responseTier: 'minimal', filterRoles: ['textbox'] },
    });
    expect(result.preObservation?.elements).toContain('textbox "Username"');
    expect(result.preObservation?.elements).not.toContain('= "ada"');
    expect(result.postObservation?.elements?.split('\n').every((line) => line.includes(' textbox '))).toBe(true);
    expect(result.postObservation?.metadata?.pageId).toBe(pageId);
  });

  it('stops at a failing step and says which and why; later steps are reported as skipped', async () => {
    const steps: Steps = [
      loginSteps[0]!,
      { label: 'missing', action: 'action/click', params: { selector: css('#nope'), options: { timeout: 300 } } },
      loginSteps[1]!,
    ];
    const result = await h.client.call('agent/act', { pageId, steps });
    expect(result).toMatchObject({ success: false, completed: 1, total: 3, failedAt: 1 });
    const failed = result.results[1]!;
    expect(failed.success).toBe(false);
    expect(failed.error?.code).toBe(ErrorCodes.ElementNotFound);
    expect(failed.error?.message).toContain('#nope');
    expect(result.results[2]).toMatchObject({ step: 2, skipped: true, success: false, duration: 0 });
    // The password step did not run: the button still waits for both fields.
    expect(await h.client.call('observe/element', { pageId, selector: css('#signin'), properties: ['enabled'] })).toMatchObject({ enabled: false });
  });

  it('onError skip goes on past the failure; the sequence is not a success', async () => {
    const steps: Steps = [
      { action: 'action/click', params: { selector: css('#nope'), options: { timeout: 200 } }, onError: 'skip' },
      loginSteps[0]!,
    ];
    const result = await h.client.call('agent/act', { pageId, steps });
    expect(result.failedAt).toBeUndefined();
    expect(result).toMatchObject({ success: false, completed: 1 });
    expect(result.results[0]).toMatchObject({ success: false, retries: 0 });
    expect(result.results[1]).toMatchObject({ success: true });
  });

  it('stopOnFirstError false makes skip the default', async () => {
    const steps: Steps = [{ action: 'action/click', params: { selector: css('#nope'), options: { timeout: 200 } } }, loginSteps[0]!];
    const result = await h.client.call('agent/act', { pageId, steps, stopOnFirstError: false });
    expect(result.failedAt).toBeUndefined();
    expect(result.results.map((r) => r.success)).toEqual([false, true]);
  });

  it('onError retry tries again until the element appears', async () => {
    const steps: Steps = [
      { action: 'action/click', params: { selector: css('#reveal') } },
      { action: 'action/click', params: { selector: css('#late'), options: { timeout: 150 } }, onError: 'retry', maxRetries: 5, retryDelay: 200 },
    ];
    const result = await h.client.call('agent/act', { pageId, steps });
    expect(result.success).toBe(true);
    expect(result.results[1]!.retries).toBeGreaterThanOrEqual(1);
    expect(result.results[1]!.retries).toBeLessThanOrEqual(5);
    expect((await h.client.call('page/list')).pages.find((p) => p.id === pageId)?.title).toBe('late clicked');
  });

  it('onError retry gives up after maxRetries and stops the sequence', async () => {
    const steps: Steps = [
      { action: 'action/click', params: { selector: css('#nope'), options: { timeout: 100 } }, onError: 'retry', maxRetries: 2, retryDelay: 100 },
      loginSteps[0]!,
    ];
    const result = await h.client.call('agent/act', { pageId, steps });
    expect(result).toMatchObject({ failedAt: 0, success: false });
    expect(result.results[0]!.retries).toBe(2);
    expect(result.results[1]!.skipped).toBe(true);
  });

  it('a condition that is not met fails the step with a specific error, or skips it with continueOnConditionFail', async () => {
    const step: Steps[number] = {
      action: 'action/click',
      params: { selector: css('#signin') },
      condition: { selector: css('#signin'), state: 'enabled', timeout: 300 },
    };
    const failed = await h.client.call('agent/act', { pageId, steps: [step] });
    expect(failed.failedAt).toBe(0);
    expect(failed.results[0]!.error?.code).toBe(ErrorCodes.ElementNotEnabled);
    expect(failed.results[0]!.error?.message).toMatch(/#signin.*not enabled/);

    const skipped = await h.client.call('agent/act', { pageId, steps: [step, loginSteps[0]!], continueOnConditionFail: true });
    expect(skipped.success).toBe(true);
    expect(skipped.results[0]).toMatchObject({ success: false, skipped: true });
    expect(skipped.results[0]!.error?.code).toBe(ErrorCodes.ElementNotEnabled);
    expect(skipped.results[1]!.success).toBe(true);
  });

  it('conditions wait for visible, hidden, exists and disabled', async () => {
    const steps: Steps = [
      { action: 'action/click', params: { selector: css('#reveal') } },
      { action: 'action/click', params: { selector: css('#late') }, condition: { selector: css('#late'), state: 'visible', timeout: 3_000 } },
      { action: 'page/list', condition: { selector: css('#welcome'), state: 'hidden' } },
      { action: 'page/list', condition: { selector: css('#signin'), state: 'exists' } },
      { action: 'page/list', condition: { selector: css('#signin'), state: 'disabled' } },
    ];
    const result = await h.client.call('agent/act', { pageId, steps });
    expect(result.results.map((r) => r.success)).toEqual([true, true, true, true, true]);
  });

  it('the overall timeout stops a sequence that runs out of time', async () => {
    const started = Date.now();
    const result = await h.client.call('agent/act', {
      pageId,
      timeout: 600,
      steps: [
        { action: 'page/waitFor', params: { text: 'never shown anywhere' } },
        loginSteps[0]!,
      ],
    });
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(result).toMatchObject({ failedAt: 0, success: false });
    expect(result.results[0]!.error?.code).toBe(ErrorCodes.Timeout);
    expect(result.results[1]!.skipped).toBe(true);
  });

  it('a step that ignores the clamped timeouts is cut at the deadline', async () => {
    const result = await h.client.call('agent/act', { pageId, timeout: 400, steps: [{ action: 'page/waitFor', params: { time: 5_000 } }] });
    expect(result.failedAt).toBe(0);
    expect(result.results[0]!.error?.message).toContain('ran out of time');
    expect(result.duration).toBeLessThan(2_000);
  });

  it('validates every step before running any, naming the field', async () => {
    const bad = await actError({
      pageId,
      steps: [loginSteps[0]!, { action: 'action/fill', params: { selector: css('#pass') } } as unknown as Steps[number]],
    });
    expect(bad.code).toBe(ErrorCodes.InvalidParams);
    expect(bad.message).toContain('params.steps.1.params.value');
    expect(await h.client.call('observe/element', { pageId, selector: css('#user'), properties: ['value'] })).toMatchObject({ value: '' });

    const unknown = await actError({ pageId, steps: [{ action: 'observe/dom', params: {} } as unknown as Steps[number]] });
    expect(unknown.code).toBe(ErrorCodes.InvalidParams);
    expect(unknown.message).toContain('params.steps.0.action');

    const tooMany = await actError({ pageId, steps: Array.from({ length: 51 }, () => loginSteps[0]!) });
    expect(tooMany.message).toContain('params.steps');

    const retries = await actError({ pageId, steps: [{ ...loginSteps[0]!, onError: 'retry', maxRetries: 9 }] });
    expect(retries.message).toContain('params.steps.0.maxRetries');
  });

  it("runs steps on the sequence's page, whichever page is active", async () => {
    const other = (await h.client.call('page/create', { url: h.url('login.html') })).id;
    expect((await h.client.call('page/list')).activePage).toBe(other);
    const result = await h.client.act([loginSteps[0]!], { pageId });
    expect(result.success).toBe(true);
    expect(await h.client.call('observe/element', { pageId, selector: css('#user'), properties: ['value'] })).toMatchObject({ value: 'ada' });
    expect(await h.client.call('observe/element', { pageId: other, selector: css('#user'), properties: ['value'] })).toMatchObject({ value: '' });
  });

  it('page steps navigate and create pages inside a sequence', async () => {
    const result = await h.client.call('agent/act', {
      steps: [
        { action: 'page/create', params: { url: h.url('form.html') } },
        { action: 'page/navigate', params: { url: h.url('login.html') } },
        { action: 'page/waitFor', params: { url: '**/login.html' } },
      ],
    });
    expect(result.success).toBe(true);
    expect(result.results[1]!.result).toMatchObject({ url: h.url('login.html'), status: 200 });
  });
});

describe('page/waitFor', () => {
  it('waits for text to appear and to go', async () => {
    await h.client.call('action/click', { pageId, selector: css('#reveal') });
    const appeared = await h.client.call('page/waitFor', { pageId, text: 'late button', timeout: 5_000 });
    expect(appeared.waited).toBeGreaterThan(200);
    await h.client.call('action/fill', { pageId, selector: css('#user'), value: 'x' });
    await h.client.call('action/fill', { pageId, selector: css('#pass'), value: 'y' });
    await h.client.call('action/click', { pageId, selector: css('#signin') });
    await h.client.call('page/waitFor', { pageId, textGone: 'Remember me', timeout: 5_000 });
  });

  it('waits for an element state, a URL, a load state and a time', async () => {
    await h.client.call('action/click', { pageId, selector: css('#reveal') });
    await h.client.call('page/waitFor', { pageId, selector: css('#late'), timeout: 5_000 });
    await h.client.call('page/waitFor', { pageId, selector: css('#welcome'), state: 'hidden' });
    await h.client.call('page/waitFor', { pageId, url: '/login\\.html$/' });
    await h.client.call('page/waitFor', { pageId, loadState: 'load' });
    const paused = await h.client.call('page/waitFor', { pageId, time: 150 });
    expect(paused.waited).toBeGreaterThanOrEqual(140);
  });

  it('times out with -32016 and refuses zero or several conditions', async () => {
    await expect(h.client.call('page/waitFor', { pageId, text: 'not on the page', timeout: 200 })).rejects.toMatchObject({
      code: ErrorCodes.Timeout,
    });
    await expect(h.client.call('page/waitFor', { pageId })).rejects.toMatchObject({ code: ErrorCodes.InvalidParams });
    await expect(h.client.call('page/waitFor', { pageId, text: 'a', time: 5 })).rejects.toThrow(/exactly one of/);
    await expect(h.client.call('page/waitFor', { pageId, text: 'a', state: 'visible' })).rejects.toThrow(/params\.state/);
    await expect(h.client.call('page/waitFor', { pageId, url: '/(/' })).rejects.toThrow(/params\.url/);
  });
});
