import { afterAll, beforeAll, expect, it } from 'vitest';
import { startHarness, type Harness } from './support/harness.js';

// Snapshots answer `labels` of form controls from one pass over the document's labels, in
// Playwright's utility world only (pageScripts.ts, fastLabelsEngine). Controls inside a shadow
// root keep Chromium's own getter, so the same form in the document and in a shadow root must
// be named alike; and the page's own world must still see Chromium's live NodeList.
let h: Harness;
let pageId: string;

const FORM = `<label>Name <input id="a"></label> <label for="a">Also</label>
<label for="b">Email</label> <input id="b" type="email">
<label>Plan <select><option>Free</option><option selected>Pro</option></select></label>
<label for="c">Notes</label> <textarea id="c"></textarea>
<button id="go">Go</button> <label for="go">Launch</label>
<input type="hidden" id="h"> <label for="h">Hidden</label>
<label for="missing">Nobody</label> <input type="checkbox" id="d"> <label for="d">Agree</label>`;

const PAGE = `<main id="light">${FORM}</main><section id="host"></section>
<script>document.getElementById('host').attachShadow({ mode: 'open' }).innerHTML = ${JSON.stringify(FORM)};</script>`;

beforeAll(async () => {
  h = await startHarness({ server: { allowEvaluate: true } });
  pageId = (await h.client.call('page/create', {})).id;
});

afterAll(async () => {
  await h?.stop();
});

it('names controls by their labels exactly as Chromium does, and follows labels added and removed', async () => {
  await h.client.navigate(h.url(`/inline?html=${encodeURIComponent(PAGE)}`), { pageId });
  const { snapshot } = (await h.client.call('observe/ariaSnapshot', { pageId })) as { snapshot: string };
  for (const name of ['textbox "Name Also"', 'textbox "Email"', 'textbox "Notes"', 'button "Launch"', 'checkbox "Agree"']) {
    expect(snapshot.split(name).length - 1, `${name} in\n${snapshot}`).toBe(2);
  }
  expect(snapshot).toMatch(/combobox "Plan[^"]*"/);
  const plan = snapshot.match(/combobox "Plan[^"]*"/g);
  expect(plan?.length).toBe(2);
  expect(plan?.[0]).toBe(plan?.[1]);

  // A label added, then one removed, by script: the next snapshot sees each.
  await h.client.call('page/evaluate', {
    pageId,
    expression: `for (const root of [document, document.getElementById('host').shadowRoot]) root.getElementById('b').insertAdjacentHTML('afterend', '<label for="b">Work</label>')`,
  });
  let after = ((await h.client.call('observe/ariaSnapshot', { pageId })) as { snapshot: string }).snapshot;
  expect(after.split('textbox "Email Work"').length - 1, after).toBe(2);
  await h.client.call('page/evaluate', {
    pageId,
    expression: `for (const root of [document, document.getElementById('host').shadowRoot]) root.querySelector('label[for="go"]').remove()`,
  });
  after = ((await h.client.call('observe/ariaSnapshot', { pageId })) as { snapshot: string }).snapshot;
  expect(after.split('button "Go"').length - 1, after).toBe(2);
  expect(after).not.toContain('Launch');
});

it("leaves the page's own world alone: labels there is still Chromium's live NodeList", async () => {
  await h.client.navigate(h.url(`/inline?html=${encodeURIComponent(PAGE)}`), { pageId });
  await h.client.call('observe/ariaSnapshot', { pageId });
  const { value } = (await h.client.call('page/evaluate', {
    pageId,
    expression: `(() => { const input = document.getElementById('a'); const list = input.labels; const before = list.length;
      document.body.append(Object.assign(document.createElement('label'), { htmlFor: 'a', textContent: 'More' }));
      return [list instanceof NodeList, before, list.length]; })()`,
  })) as { value: unknown };
  expect(value).toEqual([true, 2, 3]);
});
