import { ErrorCodes, type FrameInfo, type MethodResult, type Selector } from '@browseragentprotocol/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectBAPError } from './support/expectations.js';
import { startHarness, type Harness } from './support/harness.js';
import { css, snapshotOf, textOf, valueOf } from './support/observe.js';
import { refOf, snapshotLines } from './support/snapshots.js';

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

/** Opens iframe.html (a same-origin and a cross-site frame) once both frames have loaded. */
async function openIframePage(): Promise<string> {
  const pageId = await open(h.iframePageUrl({ crossSite: true }));
  await expect.poll(async () => snapshotOf(h.client, pageId)).toContain('Press cross');
  return pageId;
}

async function frames(pageId: string): Promise<MethodResult<'frame/list'>> {
  return h.client.call('frame/list', { pageId });
}

function frameWith(list: FrameInfo[], urlPart: string): FrameInfo {
  const found = list.filter((f) => f.url.includes(urlPart));
  expect(found, JSON.stringify(list)).toHaveLength(1);
  return found[0]!;
}

const ref = (value: string): Selector => ({ type: 'ref', ref: value });
const role = (r: string, name: string): Selector => ({ type: 'role', role: r, name });

describe('frame/list', () => {
  it('lists every frame with a stable id, its parent, and which one is current', async () => {
    const pageId = await open(h.url('frames-host.html'));
    const { frames: list, currentFrameId } = await frames(pageId);
    expect(currentFrameId).toBe('main');
    expect(list).toHaveLength(3);
    const [main, panel, inner] = [frameWith(list, 'frames-host.html'), frameWith(list, 'frames-panel.html'), frameWith(list, 'name=inner')];
    expect(main).toEqual({ frameId: 'main', name: '', url: h.url('frames-host.html'), isMain: true, current: true });
    expect(panel).toMatchObject({ name: 'panel', isMain: false, current: false, parentFrameId: 'main' });
    expect(panel.frameId).toMatch(/^frame-\d+$/);
    expect(inner).toMatchObject({ name: 'inner', isMain: false, parentFrameId: panel.frameId });
    expect(main).not.toHaveProperty('parentFrameId');

    // A navigation inside the frame keeps its id, and the frame stays current.
    await h.client.call('frame/switch', { pageId, frameId: panel.frameId });
    await h.client.call('action/click', { pageId, selector: role('link', 'Next page') });
    await expect.poll(async () => (await frames(pageId)).frames.map((f) => f.url)).toContain(h.url('frame.html?name=next'));
    const after = await frames(pageId);
    expect(frameWith(after.frames, 'name=next')).toMatchObject({ frameId: panel.frameId, current: true });
    expect(after.currentFrameId).toBe(panel.frameId);
    expect(after.frames.map((f) => f.frameId)).not.toContain(inner.frameId);
  });
});

describe('frame/switch', () => {
  it('switches by frameId, selector and url pattern; frame/main returns to the top document', async () => {
    const pageId = await openIframePage();
    const { frames: list } = await frames(pageId);
    const same = frameWith(list, 'name=same');
    const cross = frameWith(list, 'name=cross');

    expect(await h.client.call('frame/switch', { pageId, frameId: same.frameId })).toEqual({ frameId: same.frameId, url: same.url });
    expect((await frames(pageId)).currentFrameId).toBe(same.frameId);
    // Selectors look in the current frame: the cross-site <iframe> element is in the top document.
    expect(await h.client.call('observe/element', { pageId, selector: css('#cross') })).toMatchObject({ found: false });
    await h.client.call('frame/main', { pageId });
    expect(await h.client.call('frame/switch', { pageId, selector: css('#cross') })).toEqual({ frameId: cross.frameId, url: cross.url });
    for (const url of ['name=same', '/name=(same)$/', 'http://127.0.0.1:*/frame.html?name=same']) {
      expect(await h.client.call('frame/switch', { pageId, url }), url).toEqual({ frameId: same.frameId, url: same.url });
    }
    expect(await h.client.call('frame/switch', { pageId, frameId: 'main' })).toMatchObject({ frameId: 'main' });

    await h.client.call('frame/switch', { pageId, url: 'name=cross' });
    expect(await h.client.call('frame/main', { pageId })).toEqual({ frameId: 'main' });
    const back = await frames(pageId);
    expect(back.currentFrameId).toBe('main');
    expect(back.frames.filter((f) => f.current).map((f) => f.frameId)).toEqual(['main']);
    await h.client.call('action/click', { pageId, selector: css('#top-button') });
  });

  it('a click and a fill inside a cross-site (out-of-process) frame run there after a switch', async () => {
    const pageId = await openIframePage();
    await h.client.call('frame/switch', { pageId, selector: css('#cross') });

    await h.client.call('action/click', { pageId, selector: role('button', 'Press cross') });
    await h.client.call('action/fill', { pageId, selector: { type: 'label', value: 'Frame note' }, value: 'typed in the frame' });
    expect(await textOf(h.client, css('#frame-button'), pageId)).toBe('Pressed cross');
    expect(await valueOf(h.client, css('#frame-input'), pageId)).toBe('typed in the frame');
    const origin = new URL(h.crossOrigin.origin);
    origin.hostname = 'localhost';
    expect(await textOf(h.client, css('#origin'), pageId)).toBe(`Origin ${origin.origin}`);
    // The top document is out of reach until frame/main.
    expect(await h.client.call('observe/element', { pageId, selector: css('#top-button') })).toMatchObject({ found: false });

    await h.client.call('frame/main', { pageId });
    expect(await textOf(h.client, css('#top-button'), pageId)).toBe('Top button');
    expect(await snapshotOf(h.client, pageId)).toContain('button "Press same"');
  });

  it('observations and scrolling read the current frame', async () => {
    const pageId = await open(h.url('frames-host.html'));
    // The first iframe of the snapshot is the panel's; the second is nested inside it.
    const iframe = snapshotLines(await snapshotOf(h.client, pageId)).find((l) => l.role === 'iframe')!.ref;
    await h.client.call('frame/switch', { pageId, selector: ref(iframe) });
    const panelUrl = h.url('frames-panel.html');

    const dom = await h.client.call('observe/dom', { pageId });
    expect(dom).toMatchObject({ url: panelUrl, title: 'Panel' });
    expect(dom.html).toContain('id="panel-status"');
    expect(dom.html).not.toContain('host-status');
    const content = await h.client.call('observe/content', { pageId, format: 'markdown' });
    expect(content.content).toContain('## Panel');
    expect(content.content).not.toContain('Frame host');
    const text = await h.client.call('observe/content', { pageId });
    expect(text).toMatchObject({ url: panelUrl, title: 'Panel' });
    expect(text.content).toContain('Panel untouched');

    expect(await h.client.call('action/scroll', { pageId, options: { direction: 'down', amount: 200 } })).toEqual({ scrollX: 0, scrollY: 200 });
    await h.client.call('frame/main', { pageId });
    expect(await h.client.call('action/scroll', { pageId, options: { direction: 'down', amount: 0 } })).toEqual({ scrollX: 0, scrollY: 0 });
  });

  it('a snapshot after a switch shows only that frame, with the page-wide refs', async () => {
    const pageId = await openIframePage();
    const whole = await snapshotOf(h.client, pageId);
    const top = refOf(whole, 'button', 'Top button');
    const pressCross = refOf(whole, 'button', 'Press cross');

    const { url } = await h.client.call('frame/switch', { pageId, url: 'name=cross' });
    const scoped = await h.client.call('observe/ariaSnapshot', { pageId });
    expect(scoped.url).toBe(url);
    expect(scoped.snapshot).toContain('button "Press cross"');
    expect(scoped.snapshot).not.toContain('Top button');
    expect(scoped.snapshot).not.toContain('Press same');
    expect(refOf(scoped.snapshot, 'button', 'Press cross')).toBe(pressCross);
    const tree = await h.client.call('observe/accessibility', { pageId });
    expect(JSON.stringify(tree.tree)).not.toContain('Top button');

    // Refs of the rest of the page, printed before, still work after the frame's own snapshot.
    await h.client.call('action/click', { pageId, selector: ref(pressCross) });
    await h.client.call('action/click', { pageId, selector: ref(top) });
    expect(await textOf(h.client, css('#frame-button'), pageId)).toBe('Pressed cross');
    await h.client.call('frame/main', { pageId });
    expect(await snapshotOf(h.client, pageId)).toContain('Top button');
  });

  it('a semantic selector matches inside the current frame', async () => {
    const pageId = await openIframePage();
    await h.client.call('frame/switch', { pageId, url: 'name=same' });
    // "press button" would tie between the two frames' buttons page-wide; here only one is in reach.
    await h.client.call('action/click', { pageId, selector: { type: 'semantic', description: 'press button' } });
    expect(await textOf(h.client, css('#frame-button'), pageId)).toBe('Pressed same');
  });

  it('a frame removed while current falls back to the main frame', async () => {
    const pageId = await open(h.url('frames-host.html'));
    const { frameId } = await h.client.call('frame/switch', { pageId, url: 'frames-panel.html' });
    await h.client.call('action/click', { pageId, selector: role('button', 'Close panel') });

    await expect.poll(async () => (await frames(pageId)).frames.length).toBe(1);
    expect((await frames(pageId)).currentFrameId).toBe('main');
    await h.client.call('action/click', { pageId, selector: role('button', 'Host button') });
    expect(await textOf(h.client, css('#host-status'), pageId)).toBe('Host clicked');
    const { error } = await expectBAPError(() => h.client.call('frame/switch', { pageId, frameId }), ErrorCodes.FrameNotFound);
    expect(error.data.details).toMatchObject({ frameId, frames: ['main'] });
  });

  it('a navigation of the page drops a switched-to frame', async () => {
    const pageId = await openIframePage();
    await h.client.call('frame/switch', { pageId, url: 'name=same' });
    await h.client.call('page/navigate', { pageId, url: h.url('frames-host.html') });
    expect((await frames(pageId)).currentFrameId).toBe('main');
    expect(await textOf(h.client, css('#host-status'), pageId)).toBe('Host untouched');
  });
});

describe('refs in iframes', () => {
  it('an f-ref acts inside a cross-site frame without switching, whichever frame is current', async () => {
    const pageId = await openIframePage();
    const snapshot = await snapshotOf(h.client, pageId);
    const button = refOf(snapshot, 'button', 'Press cross');
    const crossLines = snapshot.split('\n');
    const note = /\[ref=(@[^\]]+)\]/.exec(
      crossLines.slice(crossLines.findIndex((l) => l.includes('Press cross'))).find((l) => l.includes('textbox "Frame note"')) ?? '',
    )?.[1];
    expect(button).toMatch(/^@f\d+e\d+$/);
    expect(note).toMatch(/^@f\d+e\d+$/);

    await h.client.call('action/click', { pageId, selector: ref(button) });
    await h.client.call('frame/switch', { pageId, url: 'name=same' });
    await h.client.call('action/fill', { pageId, selector: ref(note!), value: 'through a ref' });
    expect(await valueOf(h.client, ref(note!), pageId)).toBe('through a ref');
    await h.client.call('frame/main', { pageId });
    const after = await snapshotOf(h.client, pageId);
    expect(after).toContain('button "Pressed cross"');
    expect(after).toContain('button "Press same"');
  });

  it('after leaving a page with iframes, f-prefixed main-frame refs still fall back by role and name', async () => {
    const pageId = await openIframePage();
    await h.client.call('page/navigate', { pageId, url: h.url('slow.html') });
    const button = refOf(await snapshotOf(h.client, pageId), 'button', 'Re-render me');
    expect(button).toMatch(/^@f\d+e\d+$/);
    for (let clicks = 1; clicks <= 2; clicks++) {
      // Every click replaces the button, so from the second on only the fallback finds it.
      await h.client.call('action/click', { pageId, selector: ref(button) });
      expect(await textOf(h.client, css('#rerender-count'), pageId)).toBe(String(clicks));
    }
  });
});

describe('shadow DOM', () => {
  it('css, role, label and text selectors pierce open shadow roots; xpath does not', async () => {
    const pageId = await open(h.url('shadow.html'));
    await h.client.call('action/fill', { pageId, selector: { type: 'label', value: 'Shadow name' }, value: 'Ada' });
    await h.client.call('action/click', { pageId, selector: role('button', 'Shadow action') });
    expect(await textOf(h.client, css('#shadow-status'), pageId)).toBe('clicked with Ada');
    expect(await textOf(h.client, css('#light-status'), pageId)).toBe('shadow said Ada');
    expect(await valueOf(h.client, { type: 'placeholder', value: 'Inside the shadow' }, pageId)).toBe('Ada');
    expect(await h.client.call('observe/element', { pageId, selector: { type: 'text', value: 'clicked with Ada' } })).toMatchObject({ found: true });
    const xpath = await h.client.call('observe/element', { pageId, selector: { type: 'xpath', value: '//button[@id="shadow-button"]' } });
    expect(xpath).toMatchObject({ found: false });

    const shadowRef = refOf(await snapshotOf(h.client, pageId), 'button', 'Shadow action');
    await h.client.call('action/fill', { pageId, selector: css('#shadow-input'), value: 'Grace' });
    await h.client.call('action/click', { pageId, selector: ref(shadowRef) });
    expect(await textOf(h.client, css('#light-status'), pageId)).toBe('shadow said Grace');
  });

  it('password values inside iframes and shadow roots never leave the server', async () => {
    const pageId = await open(h.url('frames-host.html'));
    const secrets = { host: 'host-shadow-SECRET-1', panel: 'panel-SECRET-2', panelShadow: 'panel-shadow-SECRET-3' };
    await h.client.call('action/fill', { pageId, selector: css('#host-secret-input'), value: secrets.host });
    await h.client.call('frame/switch', { pageId, selector: css('#panel') });
    await h.client.call('action/fill', { pageId, selector: { type: 'label', value: 'Panel password' }, value: secrets.panel });
    await h.client.call('action/fill', { pageId, selector: css('#panel-secret-input'), value: secrets.panelShadow });

    const observe = async (): Promise<[string, unknown][]> => [
      ['snapshot', await h.client.call('observe/ariaSnapshot', { pageId, options: { includeTree: true } })],
      ['accessibility', await h.client.call('observe/accessibility', { pageId })],
      ['dom', await h.client.call('observe/dom', { pageId })],
      ...(await Promise.all(
        (['text', 'html', 'markdown'] as const).map(async (format): Promise<[string, unknown]> => [
          `content ${format}`,
          await h.client.call('observe/content', { pageId, format }),
        ]),
      )),
      ['element', await h.client.call('observe/element', { pageId, selector: css('input[type=password]'), properties: ['value', 'text'] })],
      ['shadow element', await h.client.call('observe/element', { pageId, selector: css('secret-box input'), properties: ['value', 'text'] })],
    ];
    const inPanel = await observe();
    await h.client.call('frame/main', { pageId });
    const inMain = await observe();
    const leaks = [...inPanel.map(([n, r]) => [`panel ${n}`, r] as const), ...inMain.map(([n, r]) => [`main ${n}`, r] as const)]
      .filter(([, result]) => JSON.stringify(result).includes('SECRET'))
      .map(([name]) => name);
    expect(leaks).toEqual([]);
    // The fields really hold the values: only their printing is blank.
    expect(inMain.find(([n]) => n === 'shadow element')![1]).toMatchObject({ found: true, value: null });
    expect((inMain[0]![1] as { snapshot: string }).snapshot).toContain('textbox "panel-secret password"');
  });
});

describe('frame errors', () => {
  it('an unknown frameId is -32040 FrameNotFound listing the known ids', async () => {
    const pageId = await openIframePage();
    const { error } = await expectBAPError(() => h.client.call('frame/switch', { pageId, frameId: 'frame-999' }), ErrorCodes.FrameNotFound);
    const known = (await frames(pageId)).frames.map((f) => f.frameId);
    expect(error.data.details).toEqual({ frameId: 'frame-999', frames: known });
    expect(error.data.recoveryHint).toMatch(/frame\/list/);
  });

  it('a url that matches no frame is -32040; one that matches several is -32020', async () => {
    const pageId = await openIframePage();
    const none = await expectBAPError(() => h.client.call('frame/switch', { pageId, url: 'nowhere.html' }), ErrorCodes.FrameNotFound);
    expect(none.error.message).toContain('nowhere.html');
    // The top document's URL contains frame.html too, but url only looks at frames inside the page.
    const both = await expectBAPError(() => h.client.call('frame/switch', { pageId, url: 'frame.html' }), ErrorCodes.SelectorAmbiguous);
    expect((both.error.data.details as { candidates: unknown[] }).candidates).toHaveLength(2);
  });

  it('a selector of an element that is not a frame is -32040', async () => {
    const pageId = await openIframePage();
    const { error } = await expectBAPError(() => h.client.call('frame/switch', { pageId, selector: css('#top-button') }), ErrorCodes.FrameNotFound);
    expect(error.message).toContain('is a <button>, not an <iframe> or <frame>');
    expect((await frames(pageId)).currentFrameId).toBe('main');
  });

  it('two targets or none, and a regex that does not compile, are -32602', async () => {
    const pageId = await openIframePage();
    for (const params of [{ pageId }, { pageId, frameId: 'main', url: 'frame.html' }, { pageId, frameId: 'main', selector: css('iframe') }]) {
      const { error } = await expectBAPError(() => h.client.call('frame/switch', params), ErrorCodes.InvalidParams);
      expect(error.message, JSON.stringify(params)).toContain('give exactly one of frameId, selector or url');
    }
    const { error } = await expectBAPError(() => h.client.call('frame/switch', { pageId, url: '/([a-/' }), ErrorCodes.InvalidParams);
    expect(error.message).toMatch(/^params\.url: /);
    expect(error.data.details).toMatchObject({ field: 'params.url', pattern: '/([a-/' });
  });
});
