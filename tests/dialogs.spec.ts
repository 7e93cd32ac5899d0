import type { BAPClient } from '@browseragentprotocol/client';
import { DialogEventSchema, ErrorCodes, type DialogEvent, type PageEvent, type Selector } from '@browseragentprotocol/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './support/harness.js';
import { expectBAPError } from './support/expectations.js';
import { css, textOf } from './support/observe.js';

let h: Harness;

beforeAll(async () => {
  h = await startHarness({ connect: false });
});

afterAll(async () => {
  await h?.stop();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const button = (name: string): Selector => ({ type: 'role', role: 'button', name });

/** A fresh session on the dialogs fixture, subscribed to dialog and page events. */
async function session(path = 'dialogs-buttons.html') {
  const client = await h.newClient();
  await client.call('events/subscribe', { events: ['dialog', 'page'] });
  const dialogs: DialogEvent[] = [];
  const pages: PageEvent[] = [];
  client.on('events/dialog', (event) => dialogs.push(event));
  client.on('events/page', (event) => pages.push(event));
  const navigation = await client.call('page/navigate', { url: h.url(path) });
  return { client, dialogs, pages, navigation, result: () => textOf(client, css('#result')) };
}

function click(client: BAPClient, name: string) {
  return client.call('action/click', { selector: button(name) });
}

describe('dialogs under the default policy', () => {
  it('an alert during load is dismissed: the navigation completes and events/dialog reports it', async () => {
    const { client, dialogs, navigation } = await session('dialogs-alert-on-load.html');
    expect(navigation).toMatchObject({ status: 200, url: h.url('dialogs-alert-on-load.html') });
    expect(await textOf(client, { type: 'role', role: 'heading' })).toBe('Loaded after the alert');
    await expect.poll(() => dialogs.length).toBe(1);
    expect(dialogs[0]).toMatchObject({
      pageId: navigation.pageId,
      type: 'alert',
      message: 'Welcome, visitor',
      outcome: 'dismissed',
      by: 'policy',
    });
    expect(dialogs[0]!.defaultValue).toBeUndefined();
    expect(DialogEventSchema.safeParse(dialogs[0]).success).toBe(true);
  });

  it('confirm and prompt are dismissed, so the click returns', async () => {
    const { client, dialogs, result } = await session();
    await click(client, 'Confirm');
    expect(await result()).toBe('confirm: false');
    await click(client, 'Prompt');
    expect(await result()).toBe('prompt: null');
    await expect.poll(() => dialogs.map((d) => [d.type, d.outcome, d.by])).toEqual([
      ['confirm', 'dismissed', 'policy'],
      ['prompt', 'dismissed', 'policy'],
    ]);
    expect(dialogs[1]).toMatchObject({ message: 'Your name?', defaultValue: 'Anonymous' });
  });

  it('beforeunload is accepted, so page/close with runBeforeUnload still closes the page', async () => {
    const { client, dialogs, pages, navigation } = await session();
    await click(client, 'Guard leaving');
    await client.call('page/close', { runBeforeUnload: true });
    await expect.poll(() => pages.some((e) => e.type === 'close' && e.pageId === navigation.pageId)).toBe(true);
    expect(dialogs).toMatchObject([{ type: 'beforeunload', outcome: 'accepted', by: 'policy' }]);
  });

  it('the accept policy accepts them', async () => {
    const { client, dialogs, result } = await session();
    expect(await client.call('dialog/setPolicy', { policy: 'accept' })).toEqual({});
    await click(client, 'Confirm');
    expect(await result()).toBe('confirm: true');
    await click(client, 'Prompt');
    expect(await result()).toBe('prompt: Anonymous');
    expect(dialogs.map((d) => d.outcome)).toEqual(['accepted', 'accepted']);
  });
});

describe('dialog/handle arming the next answer', () => {
  it('a confirm is accepted by an armed answer, once', async () => {
    const { client, dialogs, result } = await session();
    expect(await client.call('dialog/handle', { action: 'accept' })).toEqual({ status: 'armed' });
    await click(client, 'Confirm');
    expect(await result()).toBe('confirm: true');
    await click(client, 'Confirm');
    expect(await result()).toBe('confirm: false');
    expect(dialogs.map((d) => [d.outcome, d.by])).toEqual([
      ['accepted', 'armed'],
      ['dismissed', 'policy'],
    ]);
  });

  it('a prompt gets the armed text; the last arm wins', async () => {
    const { client, dialogs, result } = await session();
    await client.call('dialog/handle', { action: 'dismiss' });
    await client.call('dialog/handle', { action: 'accept', promptText: 'Ada' });
    await click(client, 'Prompt');
    expect(await result()).toBe('prompt: Ada');
    expect(dialogs).toMatchObject([{ type: 'prompt', outcome: 'accepted', by: 'armed', defaultValue: 'Anonymous' }]);
  });

  it('an armed answer expires after its timeout', async () => {
    const { client, result } = await session();
    await client.call('dialog/handle', { action: 'accept', timeout: 100 });
    await sleep(300);
    await click(client, 'Confirm');
    expect(await result()).toBe('confirm: false');
  });
});

describe('the queue policy', () => {
  it('keeps the dialog open for dialog/handle; the click that opened it returns at once, and the page is not held', async () => {
    const { client, dialogs, result } = await session();
    await client.call('dialog/setPolicy', { policy: 'queue' });
    expect(await click(client, 'Confirm')).toEqual({});
    expect(dialogs).toHaveLength(1);
    expect(dialogs[0]).toMatchObject({ type: 'confirm', message: 'Delete everything?', outcome: 'queued', by: 'policy' });

    // The page is free for observations; an input action fails fast instead of stalling behind the dialog.
    const observed = await client.call('agent/observe', {});
    expect(observed.metadata?.dialogs).toEqual([{ type: 'confirm', message: 'Delete everything?' }]);
    const refused = await expectBAPError(() => click(client, 'Confirm'), ErrorCodes.ActionFailed);
    expect(refused.error.message).toContain('A confirm dialog is open ("Delete everything?")');

    const handled = await client.call('dialog/handle', { action: 'accept' });
    expect(handled).toEqual({ status: 'handled', dialog: { type: 'confirm', message: 'Delete everything?' } });
    await expect.poll(result).toBe('confirm: true');
    expect(dialogs).toHaveLength(1);
  });

  it('answers a prompt queued for the client with its text', async () => {
    const { client, result } = await session();
    await client.call('dialog/setPolicy', { policy: 'queue' });
    const clicking = click(client, 'Prompt');
    const handle = async () => (await client.call('dialog/handle', { action: 'accept', promptText: 'Grace' })).status;
    // A dialog/handle sent before the prompt opens arms the same answer, so either way it lands.
    await expect.poll(handle).toMatch(/handled|armed/);
    await clicking;
    expect(await result()).toBe('prompt: Grace');
  });

  it('dismisses a queued dialog nobody answers after the policy timeout', async () => {
    const { client, dialogs, result } = await session();
    await client.call('dialog/setPolicy', { policy: 'queue', timeout: 300 });
    const started = Date.now();
    await click(client, 'Confirm');
    await expect.poll(result).toBe('confirm: false');
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    expect(dialogs.map((d) => [d.outcome, d.by])).toEqual([
      ['queued', 'policy'],
      ['dismissed', 'timeout'],
    ]);
  });

  it('leaving the queue policy answers what is still queued by the new policy', async () => {
    const { client, dialogs, result } = await session();
    await client.call('dialog/setPolicy', { policy: 'queue' });
    // Opened by a timer, not by the click: dialog/setPolicy runs in the page lane, behind a pending click.
    await click(client, 'Ask later');
    await expect.poll(() => dialogs.length).toBe(1);
    await client.call('dialog/setPolicy', { policy: 'accept' });
    await expect.poll(result).toBe('later: true');
    expect(dialogs.map((d) => [d.outcome, d.by])).toEqual([
      ['queued', 'policy'],
      ['accepted', 'policy'],
    ]);
  });
});
