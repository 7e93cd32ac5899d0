import { ErrorCodes } from '@browseragentprotocol/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectBAPError } from './support/expectations.js';
import { startHarness, type Harness } from './support/harness.js';
import { css, snapshotOf, textOf, valueOf } from './support/observe.js';
import { refOf } from './support/snapshots.js';

/** A ref that cannot be resolved must fail at once, not after an action timeout. */
const FAST_FAILURE_MS = 100;

let h: Harness;

beforeAll(async () => {
  h = await startHarness();
});

afterAll(async () => {
  await h?.stop();
});

async function open(url: string): Promise<string> {
  return (await h.client.call('page/create', { url })).id;
}

const ref = (value: string) => ({ type: 'ref' as const, ref: value });

describe('refs: main document', () => {
  it('refs printed by observe/ariaSnapshot drive actions and observations', async () => {
    const pageId = await open(h.url('form.html'));
    const snapshot = await snapshotOf(h.client, pageId);
    const name = refOf(snapshot, 'textbox', 'Full name');
    expect(name).toMatch(/^@e\d+$/);

    await h.client.call('action/fill', { pageId, selector: ref(name), value: 'Ada' });
    await h.client.call('action/check', { pageId, selector: ref(refOf(snapshot, 'checkbox', 'I accept the terms')) });
    await h.client.call('action/select', { pageId, selector: ref(refOf(snapshot, 'combobox', 'Country')), values: 'fr' });
    expect(await valueOf(h.client, ref(name), pageId)).toBe('Ada');

    const submit = refOf(snapshot, 'button', 'Submit');
    const shot = await h.client.call('observe/screenshot', { pageId, selector: ref(submit) });
    expect(shot.width).toBeGreaterThan(0);
    await h.client.call('action/click', { pageId, selector: ref(submit) });
    expect(JSON.parse(await textOf(h.client, css('#result'), pageId))).toMatchObject({ name: 'Ada', terms: true, country: 'fr' });
  });

  it('a ref may be given without its @', async () => {
    const pageId = await open(h.url('form.html'));
    const name = refOf(await snapshotOf(h.client, pageId), 'textbox', 'Full name');
    await h.client.call('action/fill', { pageId, selector: ref(name.slice(1)), value: 'No at sign' });
    expect(await valueOf(h.client, css('#name'), pageId)).toBe('No at sign');
  });

  it('refs of the page stay valid after a snapshot of one element', async () => {
    const pageId = await open(h.url('list.html'));
    const remove = refOf(await snapshotOf(h.client, pageId), 'button', 'Remove cherry');
    await h.client.call('observe/ariaSnapshot', { pageId, selector: css('#prices') });
    await h.client.call('action/click', { pageId, selector: ref(remove) });
    const items = await h.client.call('observe/element', { pageId, selector: css('#fruits li') });
    expect(items.count).toBe(2);
  });
});

describe('refs: frames', () => {
  it('refs inside a same-origin iframe look like @f1e2 and work', async () => {
    const pageId = await open(h.iframePageUrl());
    await expect.poll(async () => snapshotOf(h.client, pageId)).toContain('Press cross');
    const snapshot = await snapshotOf(h.client, pageId);
    const button = refOf(snapshot, 'button', 'Press same');
    expect(button).toMatch(/^@f\d+e\d+$/);

    await h.client.call('action/click', { pageId, selector: ref(button) });
    const after = await snapshotOf(h.client, pageId);
    expect(after).toContain('button "Pressed same"');
    expect(after).toContain('button "Press cross"');
  });

  it.each([
    ['cross-origin', false],
    ['cross-site (out-of-process)', true],
  ])('refs inside a %s iframe work for actions and observations', async (_, crossSite) => {
    const pageId = await open(h.iframePageUrl({ crossSite }));
    await expect.poll(async () => snapshotOf(h.client, pageId)).toContain('Press cross');
    const snapshot = await snapshotOf(h.client, pageId);
    const button = refOf(snapshot, 'button', 'Press cross');
    expect(button).toMatch(/^@f\d+e\d+$/);
    const crossFrameLines = snapshot.split('\n');
    const crossNote = crossFrameLines
      .slice(crossFrameLines.findIndex((line) => line.includes('Press cross')))
      .find((line) => line.includes('textbox "Frame note"'));
    const note = /\[ref=(@[^\]]+)\]/.exec(crossNote ?? '')?.[1];
    expect(note, snapshot).toMatch(/^@f\d+e\d+$/);

    await h.client.call('action/click', { pageId, selector: ref(button) });
    await h.client.call('action/fill', { pageId, selector: ref(note!), value: 'across origins' });
    expect(await valueOf(h.client, ref(note!), pageId)).toBe('across origins');
    const after = await snapshotOf(h.client, pageId);
    expect(after).toContain('button "Pressed cross"');
    expect(after).toContain('button "Press same"');
    const origin = new URL(h.crossOrigin.origin);
    if (crossSite) origin.hostname = 'localhost';
    expect(after).toContain(`Origin ${origin.origin}`);
  });
});

describe('refs: stale and unknown', () => {
  it('a ref to an element that was removed fails fast with -32012 and a recovery hint', async () => {
    const pageId = await open(h.url('list.html'));
    const remove = refOf(await snapshotOf(h.client, pageId), 'button', 'Remove cherry');
    await h.client.call('action/click', { pageId, selector: ref(remove) });

    const { error, elapsedMs } = await expectBAPError(
      () => h.client.call('action/click', { pageId, selector: ref(remove) }),
      ErrorCodes.ElementNotFound,
    );
    expect(elapsedMs).toBeLessThan(FAST_FAILURE_MS);
    expect(error.data.recoveryHint).toEqual(expect.stringMatching(/\S/));
  });

  it('an unknown ref fails fast with -32012 and a recovery hint', async () => {
    const pageId = await open(h.url('form.html'));
    await snapshotOf(h.client, pageId);
    for (const method of ['action/click', 'action/hover'] as const) {
      const { error, elapsedMs } = await expectBAPError(
        () => h.client.call(method, { pageId, selector: ref('@e9999') }),
        ErrorCodes.ElementNotFound,
      );
      expect(elapsedMs, method).toBeLessThan(FAST_FAILURE_MS);
      expect(error.data.recoveryHint).toEqual(expect.stringMatching(/\S/));
    }
    const { elapsedMs } = await expectBAPError(
      () => h.client.call('action/fill', { pageId, selector: ref('@e9999'), value: 'x' }),
      ErrorCodes.ElementNotFound,
    );
    expect(elapsedMs).toBeLessThan(FAST_FAILURE_MS);
  });

  it('a ref from before a navigation does not reach into the new document', async () => {
    const pageId = await open(h.url('form.html'));
    const submit = refOf(await snapshotOf(h.client, pageId), 'button', 'Submit');
    await h.client.call('page/navigate', { pageId, url: h.url('list.html') });
    const { elapsedMs } = await expectBAPError(
      () => h.client.call('action/click', { pageId, selector: ref(submit) }),
      ErrorCodes.ElementNotFound,
    );
    expect(elapsedMs).toBeLessThan(FAST_FAILURE_MS);
  });

  it('a re-rendered element is still reached through its old ref (by role and name)', async () => {
    const pageId = await open(h.url('slow.html'));
    const button = refOf(await snapshotOf(h.client, pageId), 'button', 'Re-render me');
    for (let clicks = 1; clicks <= 3; clicks++) {
      // Every click replaces the button: from the second on, the ref's node is gone.
      await h.client.call('action/click', { pageId, selector: ref(button) });
      expect(await textOf(h.client, css('#rerender-count'), pageId)).toBe(String(clicks));
    }
  });
});
