import { ErrorCodes, type Selector } from '@browseragentprotocol/protocol';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { expectBAPError } from './support/expectations.js';
import { startHarness, type Harness } from './support/harness.js';
import { css, inspect, textOf, valueOf } from './support/observe.js';

let h: Harness;

beforeAll(async () => {
  h = await startHarness();
});

afterAll(async () => {
  await h?.stop();
});

const label = (value: string): Selector => ({ type: 'label', value });
const role = (roleName: string, name?: string): Selector =>
  name === undefined ? { type: 'role', role: roleName } : { type: 'role', role: roleName, name };

async function open(path: string): Promise<void> {
  await h.client.call('page/navigate', { url: h.url(path) });
}

async function submitted(): Promise<Record<string, unknown>> {
  return JSON.parse(await textOf(h.client, css('#result'))) as Record<string, unknown>;
}

describe('actions: form fields', () => {
  beforeEach(async () => {
    await open('form.html');
  });

  it('action/fill sets values found by label, placeholder, test id, css and xpath', async () => {
    await h.client.call('action/fill', { selector: label('Full name'), value: 'Ada Lovelace' });
    await h.client.call('action/fill', { selector: { type: 'placeholder', value: 'you@example.com' }, value: 'ada@example.com' });
    await h.client.call('action/fill', { selector: { type: 'testId', value: 'password-input' }, value: 'correct horse' });
    await h.client.call('action/fill', { selector: css('#bio'), value: 'Mathematician' });
    expect(await valueOf(h.client, css('#name'))).toBe('Ada Lovelace');
    expect(await valueOf(h.client, { type: 'xpath', value: '//input[@id="email"]' })).toBe('ada@example.com');
    expect(await valueOf(h.client, css('#bio'))).toBe('Mathematician');

    await h.client.call('action/click', { selector: role('button', 'Submit') });
    expect(await submitted()).toMatchObject({
      name: 'Ada Lovelace',
      email: 'ada@example.com',
      passwordLength: 'correct horse'.length,
      bio: 'Mathematician',
    });
  });

  it('action/fill replaces what was there; action/clear empties it', async () => {
    expect(await valueOf(h.client, css('#bio'))).toBe('Initial bio');
    await h.client.call('action/fill', { selector: label('Biography'), value: 'Replaced' });
    expect(await valueOf(h.client, css('#bio'))).toBe('Replaced');
    expect(await h.client.call('action/clear', { selector: label('Biography') })).toEqual({});
    expect(await valueOf(h.client, css('#bio'))).toBe('');
  });

  it('action/type types key by key after the current value, or after clearing it', async () => {
    await h.client.call('action/fill', { selector: css('#name'), value: 'Ada' });
    expect(await h.client.call('action/type', { selector: css('#name'), text: ' King' })).toEqual({});
    expect(await valueOf(h.client, css('#name'))).toBe('Ada King');
    // Real key events reached the page.
    expect(await textOf(h.client, css('#keys'))).toContain('K i n g');

    await h.client.call('action/type', { selector: css('#name'), text: 'Grace', options: { clear: true, delay: 5 } });
    expect(await valueOf(h.client, css('#name'))).toBe('Grace');
  });

  it('action/press sends keys to an element, or to whatever has focus', async () => {
    await h.client.call('action/fill', { selector: css('#name'), value: 'Alan' });
    expect(await h.client.call('action/press', { selector: css('#name'), key: 'Backspace' })).toEqual({});
    expect(await valueOf(h.client, css('#name'))).toBe('Ala');
    // No selector: the name field still has focus.
    await h.client.call('action/press', { key: 'Shift+ArrowLeft' });
    await h.client.call('action/press', { key: 'Delete' });
    expect(await valueOf(h.client, css('#name'))).toBe('Al');
    // Enter in a text field submits the form.
    await h.client.call('action/press', { selector: css('#email'), key: 'Enter' });
    expect(await submitted()).toMatchObject({ name: 'Al' });
  });

  it('action/select picks options by value or label, one or several', async () => {
    expect(await h.client.call('action/select', { selector: label('Country'), values: 'jp' })).toEqual({ selected: ['jp'] });
    expect(await h.client.call('action/select', { selector: label('Country'), values: ['Brazil'] })).toEqual({ selected: ['br'] });
    const multiple = await h.client.call('action/select', { selector: css('#colors'), values: ['Red', 'blue'] });
    expect(multiple.selected.sort()).toEqual(['blue', 'red']);
    await h.client.call('action/click', { selector: role('button', 'Submit') });
    expect(await submitted()).toMatchObject({ country: 'br', colors: ['red', 'blue'] });
  });

  it('action/check and action/uncheck set checkboxes and radios', async () => {
    const terms = role('checkbox', 'I accept the terms');
    const news = role('checkbox', 'Send me news');
    expect(await h.client.call('action/check', { selector: terms })).toEqual({});
    expect((await inspect(h.client, terms)).checked).toBe(true);
    // Checking a checked box leaves it checked.
    await h.client.call('action/check', { selector: news });
    expect((await inspect(h.client, news)).checked).toBe(true);
    expect(await h.client.call('action/uncheck', { selector: news })).toEqual({});
    expect((await inspect(h.client, news)).checked).toBe(false);

    await h.client.call('action/check', { selector: role('radio', 'Pro plan') });
    expect((await inspect(h.client, role('radio', 'Pro plan'))).checked).toBe(true);
    expect((await inspect(h.client, role('radio', 'Free plan'))).checked).toBe(false);

    await h.client.call('action/click', { selector: role('button', 'Submit') });
    expect(await submitted()).toMatchObject({ terms: true, news: false, plan: 'pro' });
  });

  it('action/uncheck on a radio button fails with -32021 ActionFailed', async () => {
    await expectBAPError(
      () => h.client.call('action/uncheck', { selector: role('radio', 'Free plan'), options: { timeout: 2_000 } }),
      ErrorCodes.ActionFailed,
    );
  });

  it('action/click on a disabled button fails with -32014 ElementNotEnabled', async () => {
    const { error, elapsedMs } = await expectBAPError(
      () => h.client.call('action/click', { selector: role('button', 'Unavailable'), options: { timeout: 500 } }),
      ErrorCodes.ElementNotEnabled,
    );
    expect(error.data.retryable).toBe(true);
    expect(elapsedMs).toBeLessThan(5_000);
  });

  it('action/click with trial:true checks without clicking', async () => {
    await h.client.call('action/click', { selector: role('button', 'Submit'), options: { trial: true } });
    expect(await textOf(h.client, css('#result'))).toBe('not submitted');
  });

  it('action/click at coordinates clicks whatever is there', async () => {
    const box = (await inspect(h.client, role('button', 'Submit'))).boundingBox;
    expect(box).toBeTruthy();
    await h.client.call('action/click', {
      selector: { type: 'coordinates', x: box!.x + box!.width / 2, y: box!.y + box!.height / 2 },
    });
    expect(await textOf(h.client, css('#result'))).not.toBe('not submitted');
  });

  it('action/dblclick double-clicks', async () => {
    expect(await h.client.call('action/dblclick', { selector: { type: 'testId', value: 'dbl' } })).toEqual({});
    expect(await textOf(h.client, css('#dbl-count'))).toBe('1');
  });

  it('a selector matching several elements fails with -32020 SelectorAmbiguous', async () => {
    await expectBAPError(
      () => h.client.call('action/click', { selector: role('button'), options: { timeout: 2_000 } }),
      ErrorCodes.SelectorAmbiguous,
    );
  });

  it('a selector matching nothing fails with -32012 ElementNotFound once the timeout runs out', async () => {
    const { error } = await expectBAPError(
      () => h.client.call('action/click', { selector: css('#does-not-exist'), options: { timeout: 300 } }),
      ErrorCodes.ElementNotFound,
    );
    expect(error.data.retryable).toBe(true);
  });
});

describe('actions: pointer and scrolling', () => {
  it('action/hover reveals what hover reveals', async () => {
    await open('hover.html');
    expect((await inspect(h.client, css('#tip'))).visible).toBe(false);
    expect(await h.client.call('action/hover', { selector: role('button', 'Hover over me') })).toEqual({});
    expect((await inspect(h.client, css('#tip'))).visible).toBe(true);
    expect(await textOf(h.client, css('#entered'))).toBe('yes');
  });

  it('action/scroll scrolls the page by an amount and back', async () => {
    await open('scroll.html');
    const down = await h.client.call('action/scroll', { options: { direction: 'down', amount: 600 } });
    expect(down.scrollY).toBeGreaterThanOrEqual(590);
    expect(down.scrollY).toBeLessThanOrEqual(610);
    const up = await h.client.call('action/scroll', { options: { direction: 'up', amount: 200 } });
    expect(up.scrollY).toBeGreaterThanOrEqual(390);
    expect(up.scrollY).toBeLessThanOrEqual(410);
    const page = await h.client.call('action/scroll', { options: { direction: 'down', amount: 'page' } });
    expect(page.scrollY).toBeGreaterThan(up.scrollY + 300);
  });

  it('action/scroll brings an element into view', async () => {
    await open('scroll.html');
    const result = await h.client.call('action/scroll', { selector: css('#bottom'), options: { amount: 'toElement' } });
    expect(result.scrollY).toBeGreaterThan(4_000);
    const box = (await inspect(h.client, css('#bottom'))).boundingBox!;
    expect(box.y).toBeGreaterThanOrEqual(0);
    expect(box.y).toBeLessThan(720);
  });

  it('action/scroll scrolls inside a scrollable element', async () => {
    await open('scroll.html');
    const before = (await inspect(h.client, css('#box-bottom'))).boundingBox!;
    await h.client.call('action/scroll', { selector: { type: 'testId', value: 'box' }, options: { direction: 'down', amount: 500 } });
    const after = (await inspect(h.client, css('#box-bottom'))).boundingBox!;
    expect(before.y - after.y).toBeGreaterThanOrEqual(490);
    expect(before.y - after.y).toBeLessThanOrEqual(510);
  });

  it('action/drag drops an element onto another element', async () => {
    await open('drag.html');
    expect(
      await h.client.call('action/drag', { source: { type: 'testId', value: 'source' }, target: { type: 'testId', value: 'target' } }),
    ).toEqual({});
    expect(await textOf(h.client, css('#drop-log'))).toBe('dropped payload-from-source');
  });

  it('action/drag drops an element onto a point', async () => {
    await open('drag.html');
    const box = (await inspect(h.client, css('#target'))).boundingBox!;
    await h.client.call('action/drag', {
      source: css('#source'),
      target: { x: box.x + box.width / 2, y: box.y + box.height / 2 },
    });
    expect(await textOf(h.client, css('#drop-log'))).toBe('dropped payload-from-source');
  });
});

describe('actions: shadow DOM and late elements', () => {
  it('role, label and placeholder selectors reach inside an open shadow root', async () => {
    await open('shadow.html');
    await h.client.call('action/fill', { selector: label('Shadow name'), value: 'Grace' });
    expect(await valueOf(h.client, { type: 'placeholder', value: 'Inside the shadow' })).toBe('Grace');
    await h.client.call('action/click', { selector: role('button', 'Shadow action') });
    expect(await textOf(h.client, css('#light-status'))).toBe('shadow said Grace');
    expect(await textOf(h.client, { type: 'text', value: 'clicked with Grace' })).toBe('clicked with Grace');
  });

  it('an action waits for an element that appears later', async () => {
    await open('slow.html');
    const started = performance.now();
    await h.client.call('action/click', { selector: role('button', 'Late button') });
    expect(performance.now() - started).toBeGreaterThan(200);
    expect(await textOf(h.client, css('#late-button'))).toBe('Late button clicked');
  });
});
