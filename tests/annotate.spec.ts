import { ErrorCodes, type Annotation, type MethodParams } from '@browseragentprotocol/protocol';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectBAPError } from './support/expectations.js';
import { startHarness, type Harness } from './support/harness.js';
import { imageSize } from './support/images.js';
import { css, inspect, textOf } from './support/observe.js';

type Annotate = NonNullable<NonNullable<MethodParams<'observe/screenshot'>['options']>['annotate']>;
type Rgb = readonly [number, number, number];

const GOLD: Rgb = [0xff, 0xd7, 0x00];
const MAGENTA: Rgb = [0xff, 0x00, 0xff];

let h: Harness;

beforeAll(async () => {
  h = await startHarness();
});

afterAll(async () => {
  await h?.stop();
});

async function open(contextId?: string): Promise<string> {
  const params = { url: h.url('annotate.html'), viewport: { width: 800, height: 600 } };
  return (await h.client.call('page/create', contextId ? { ...params, contextId } : params)).id;
}

async function annotated(pageId: string, annotate: Annotate = {}, options: Omit<MethodParams<'observe/screenshot'>['options'] & object, 'annotate'> = {}) {
  const shot = await h.client.call('observe/screenshot', { pageId, options: { ...options, annotate } });
  return { ...shot, annotations: shot.annotations ?? [], png: shot.format === 'png' ? PNG.sync.read(Buffer.from(shot.data, 'base64')) : null };
}

async function plain(pageId: string): Promise<PNG> {
  return PNG.sync.read(Buffer.from((await h.client.call('observe/screenshot', { pageId })).data, 'base64'));
}

function pixel(png: PNG, x: number, y: number): Rgb {
  const i = (png.width * Math.round(y) + Math.round(x)) * 4;
  return [png.data[i]!, png.data[i + 1]!, png.data[i + 2]!];
}

function near(a: Rgb, b: Rgb, tolerance = 40): boolean {
  return a.every((v, i) => Math.abs(v - b[i]!) <= tolerance);
}

/** Share of the pixels within `radius` of a point that are close to `colour`. */
function share(png: PNG, at: { x: number; y: number }, colour: Rgb, radius: number): number {
  let hits = 0;
  let all = 0;
  for (let y = at.y - radius; y <= at.y + radius; y++) {
    for (let x = at.x - radius; x <= at.x + radius; x++) {
      all++;
      if (near(pixel(png, x, y), colour)) hits++;
    }
  }
  return hits / all;
}

const names = (annotations: Annotation[]) => annotations.map((a) => a.element.name);

describe('observe/screenshot with options.annotate', () => {
  it('puts a numbered gold badge on the centre of each interactive element', async () => {
    const pageId = await open();
    const shot = await annotated(pageId);
    const before = await plain(pageId);
    expect(imageSize(Buffer.from(shot.data, 'base64'))).toEqual({ format: 'png', width: 800, height: 600 });
    expect(names(shot.annotations)).toEqual(['Alpha', 'Bravo', 'Charlie', 'Full name', 'Docs link', 'Inner']);
    expect(shot.annotations.map((a) => a.label)).toEqual(['1', '2', '3', '4', '5', '6']);
    for (const a of shot.annotations) {
      const { x, y, width, height } = a.bounds;
      expect(a.position, a.label).toEqual({ x: Math.round(x + width / 2), y: Math.round(y + height / 2) });
      expect(share(shot.png!, a.position, GOLD, 6), `badge ${a.label}`).toBeGreaterThan(0.5);
      expect(share(before, a.position, GOLD, 6), `plain shot under ${a.label}`).toBeLessThan(0.1);
    }
  });

  it('the ref of label n acts on the element wearing label n, inside iframes too', async () => {
    const pageId = await open();
    const { annotations } = await annotated(pageId);
    const buttons = annotations.filter((a) => a.element.role === 'button');
    expect(buttons.map((a) => a.element.name)).toEqual(['Alpha', 'Bravo', 'Charlie', 'Inner']);
    // observe/element measures inside the element's own frame: the fixture's iframe content starts
    // after its 4 px border and 6 px padding.
    const iframe = (await inspect(h.client, css('iframe'), pageId)).boundingBox!;
    for (const a of buttons) {
      const selector = { type: 'ref' as const, ref: a.ref };
      const box = (await inspect(h.client, selector, pageId)).boundingBox!;
      const origin = a.ref.startsWith('@f') ? { x: iframe.x + 10, y: iframe.y + 10 } : { x: 0, y: 0 };
      expect(a.position.x - origin.x, a.label).toBeGreaterThan(box.x);
      expect(a.position.x - origin.x, a.label).toBeLessThan(box.x + box.width);
      expect(a.position.y - origin.y, a.label).toBeGreaterThan(box.y);
      expect(a.position.y - origin.y, a.label).toBeLessThan(box.y + box.height);
      await h.client.call('action/click', { pageId, selector });
      expect(await textOf(h.client, css('#last'), pageId)).toBe(a.element.name);
    }
  });

  it('never labels password or card fields, small elements, or masked ones', async () => {
    const pageId = await open();
    const textboxes = await annotated(pageId, { filter: { interactive: false, roles: ['textbox'], minSize: 0 } });
    expect(names(textboxes.annotations)).toEqual(['Full name']);
    const password = (await inspect(h.client, css('#password'), pageId)).boundingBox!;
    const centre = { x: password.x + password.width / 2, y: password.y + password.height / 2 };
    expect(share(textboxes.png!, centre, GOLD, 4)).toBe(0);

    const tiny = await annotated(pageId, { filter: { minSize: 0 } });
    expect(names(tiny.annotations)).toContain('Tiny');
    expect(names(tiny.annotations)).not.toContain('Password');

    const masked = await annotated(pageId, {}, { mask: [css('#alpha')] });
    expect(names(masked.annotations)).toEqual(['Bravo', 'Charlie', 'Full name', 'Docs link', 'Inner']);
  });

  it('boxes outline each element in boxColor without badges', async () => {
    const pageId = await open();
    const shot = await annotated(pageId, { style: 'boxes', appearance: { boxColor: '#FF00FF', opacity: 1 } });
    const alpha = shot.annotations.find((a) => a.element.name === 'Alpha')!;
    const { x, y, width, height } = alpha.bounds;
    const edges = [
      [x, y + height / 2],
      [x + 1, y + height / 2],
      [x + width - 1, y + height / 2],
      [x + width / 2, y],
      [x + width / 2, y + height - 1],
    ] as const;
    for (const [ex, ey] of edges) expect(pixel(shot.png!, ex, ey), `${ex},${ey}`).toEqual(MAGENTA);
    expect(share(shot.png!, alpha.position, GOLD, 6)).toBe(0);
    expect(share(shot.png!, alpha.position, MAGENTA, 6)).toBe(0);
  });

  it('maxLabels keeps the first elements in document order; alpha labels run A…Z, AA', async () => {
    const pageId = await open();
    const all = await annotated(pageId);
    const two = await annotated(pageId, { filter: { maxLabels: 2 } });
    expect(two.annotations.map((a) => [a.label, a.ref])).toEqual(all.annotations.slice(0, 2).map((a) => [a.label, a.ref]));

    const full = await annotated(pageId, { appearance: { labelFormat: 'alpha' } }, { fullPage: true });
    const labels = full.annotations.map((a) => a.label);
    expect(labels.length).toBe(36);
    expect([labels[0], labels[25], labels[26], labels[27], labels[35]]).toEqual(['A', 'Z', 'AA', 'AB', 'AJ']);
    expect(full.annotations.at(-1)!.element.name).toBe('Item 30');
  });

  it('a clip labels what it shows, each badge on the visible part of its element', async () => {
    const pageId = await open();
    const shot = await annotated(pageId, {}, { clip: { x: 150, y: 50, width: 200, height: 60 } });
    expect({ width: shot.width, height: shot.height }).toEqual({ width: 200, height: 60 });
    // Bravo (176–296) is whole; Charlie (336–456) shows 14 px, and its badge sits on their middle.
    expect(shot.annotations.map((a) => [a.element.name, a.position])).toEqual([
      ['Bravo', { x: 86, y: 30 }],
      ['Charlie', { x: 193, y: 30 }],
    ]);
  });

  it('interactive: false also labels headings and images', async () => {
    const pageId = await open();
    const shot = await annotated(pageId, { filter: { interactive: false } });
    const roles = new Map(shot.annotations.map((a) => [a.element.name, a.element.role]));
    expect(roles.get('Annotate fixture')).toBe('heading');
    expect(roles.get('Logo')).toBe('img');
    expect(roles.get('Alpha')).toBe('button');
    expect(roles.has('Inner panel')).toBe(false);
  });

  it('follows scrolling, full pages and element shots, and leaves the page exactly as it was', async () => {
    const pageId = await open();
    await h.client.call('action/click', { pageId, selector: css('#name') });
    await h.client.call('action/scroll', { pageId, options: { direction: 'down', amount: 150 } });
    const state = async () => ({
      html: (await h.client.call('observe/dom', { pageId })).html,
      root: (await inspect(h.client, css('html'), pageId)).boundingBox,
      focused: await h.client.call('observe/element', { pageId, selector: css(':focus'), properties: ['tagName', 'name'] }),
    });
    const before = await state();
    expect(before.html).toContain('<title>Annotate fixture</title>');
    expect(before.root?.y).toBe(-150);
    expect(before.focused).toMatchObject({ found: true, name: 'Full name' });

    const view = await annotated(pageId);
    expect(names(view.annotations)).toEqual(['Inner']);
    expect(view.annotations[0]!.position).toEqual({ x: 194, y: 270 - 150 });

    const full = await annotated(pageId, { style: 'both' }, { fullPage: true });
    expect(full.height).toBeGreaterThan(2000);
    expect(full.annotations.find((a) => a.element.name === 'Alpha')!.position).toEqual({ x: 76, y: 80 });

    const row = await h.client.call('observe/screenshot', { pageId, selector: css('#buttons'), options: { annotate: {} } });
    expect(row.annotations!.map((a) => [a.element.name, a.position.x, a.position.y])).toEqual([
      ['Alpha', 60, 20],
      ['Bravo', 220, 20],
      ['Charlie', 380, 20],
    ]);
    await annotated(pageId, { filter: { interactive: false }, appearance: { labelFormat: 'alpha' } }, { format: 'jpeg' });
    expect(await state()).toEqual(before);
  });

  it('scales badges with the device pixel ratio and encodes JPEG and WebP', async () => {
    const { contextId } = await h.client.call('context/create', { options: { deviceScaleFactor: 2 } });
    const pageId = await open(contextId);
    const shot = await annotated(pageId);
    expect({ width: shot.width, height: shot.height }).toEqual({ width: 1600, height: 1200 });
    const alpha = shot.annotations[0]!;
    expect(alpha.position).toEqual({ x: 152, y: 160 });
    expect(alpha.bounds).toEqual({ x: 32, y: 120, width: 240, height: 80 });
    expect(share(shot.png!, alpha.position, GOLD, 12)).toBeGreaterThan(0.5);

    for (const format of ['jpeg', 'webp'] as const) {
      const encoded = await annotated(pageId, {}, { format, quality: 70 });
      expect(imageSize(Buffer.from(encoded.data, 'base64'))).toEqual({ format, width: 1600, height: 1200 });
      expect(encoded.annotations).toEqual(shot.annotations);
    }
  });

  it('rejects out-of-range options and unknown colours with -32602 naming the field', async () => {
    const pageId = await open();
    const cases: [Annotate, string][] = [
      [{ appearance: { opacity: 2 } }, 'appearance.opacity'],
      [{ appearance: { backgroundColor: 'not a colour' } }, 'appearance.backgroundColor'],
      [{ appearance: { textColor: 'notacolour' } }, 'appearance.textColor'],
      [{ appearance: { boxColor: '#12345' } }, 'appearance.boxColor'],
      [{ filter: { maxLabels: 0 } }, 'filter.maxLabels'],
    ];
    for (const [annotate, field] of cases) {
      const { error } = await expectBAPError(() => h.client.call('observe/screenshot', { pageId, options: { annotate } }), ErrorCodes.InvalidParams);
      expect(error.message).toContain(field);
    }
  });
});
