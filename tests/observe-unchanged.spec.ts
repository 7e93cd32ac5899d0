import { afterAll, beforeAll, expect, it } from 'vitest';
import { startHarness, type Harness } from './support/harness.js';

// An observation of a page that has not changed reuses the last snapshot instead of walking the
// page again; these are the changes it must still see, each made without the usual events.
let h: Harness;
let pageId: string;

const PAGE = `<input id="field" value="one"><input id="box" type="checkbox" aria-label="Agree"><button id="go">Go</button>
<div id="host"></div><div id="spacer" style="height: 3000px"></div><button id="far">Far</button>
<script>document.getElementById('host').attachShadow({ mode: 'open' }).innerHTML = '<input id="inner" value="shadow">';</script>`;

beforeAll(async () => {
  h = await startHarness({ server: { allowEvaluate: true } });
  pageId = (await h.client.call('page/create', { viewport: { width: 800, height: 600 } })).id;
});

afterAll(async () => {
  await h?.stop();
});

const elements = async (params: { viewportOnly?: boolean } = {}) => (await h.client.observe({ pageId, ...params })).elements ?? '';
const run = (expression: string) => h.client.call('page/evaluate', { pageId, expression });

it('sees changes made by script without events: values, checked state, text, styles, shadow roots, scrolling', async () => {
  await h.client.navigate(h.url(`/inline?html=${encodeURIComponent(PAGE)}`), { pageId });
  const first = await elements();
  expect(first).toContain('textbox = "one"');
  expect(await elements()).toBe(first);

  await run(`document.getElementById('field').value = 'two'`);
  expect(await elements()).toContain('textbox = "two"');
  await run(`document.getElementById('box').checked = true`);
  expect(await elements()).toContain('checkbox "Agree" [checked]');
  await run(`document.getElementById('go').textContent = 'Stop'`);
  expect(await elements()).toContain('button "Stop"');
  await run(`document.getElementById('host').shadowRoot.getElementById('inner').value = 'inside'`);
  expect(await elements()).toContain('textbox = "inside"');
  await run(`document.head.append(Object.assign(document.createElement('style'), { textContent: '#go { display: none }' }))`);
  expect(await elements()).not.toContain('"Stop"');

  expect(await elements({ viewportOnly: true })).not.toContain('"Far"');
  await run(`window.scrollTo(0, document.body.scrollHeight)`);
  expect(await elements({ viewportOnly: true })).toContain('"Far"');
});

it('refs from a reused observation still act, and a new document is walked afresh', async () => {
  await h.client.navigate(h.url(`/inline?html=${encodeURIComponent('<button onclick="this.textContent=\'Done\'">Save</button>')}`), { pageId });
  await elements();
  const again = await elements();
  const ref = again.match(/(@\w+) button "Save"/)?.[1];
  expect(ref, again).toBeDefined();
  await h.client.click(ref!, { pageId });
  expect(await elements()).toContain('button "Done"');
  // The same markup again is another document: its refs are its own.
  await h.client.navigate(h.url(`/inline?html=${encodeURIComponent('<button onclick="this.textContent=\'Done\'">Save</button>')}`), { pageId });
  const fresh = await elements();
  expect(fresh).toContain('button "Save"');
  await h.client.click(fresh.match(/(@\w+) button/)![1]!, { pageId });
  expect(await elements()).toContain('button "Done"');
});

it('sees a change inside an iframe', async () => {
  await h.client.navigate(h.iframePageUrl(), { pageId });
  const before = await elements();
  const frames = await h.client.call('frame/list', { pageId });
  const child = frames.frames.find((f) => !f.isMain && f.url.includes(new URL(h.url('/')).host))!;
  await h.client.call('frame/switch', { pageId, frameId: child.frameId });
  await run(`document.body.append(Object.assign(document.createElement('button'), { textContent: 'Added in frame' }))`);
  await h.client.call('frame/main', { pageId });
  const after = await elements();
  expect(before).not.toContain('Added in frame');
  expect(after).toContain('button "Added in frame"');
});
