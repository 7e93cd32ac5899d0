import type { MethodParams } from '@browseragentprotocol/protocol';
import { findChromium } from '@browseragentprotocol/server-playwright';
import { unzipSync } from 'fflate';
import { chromium, type Browser } from 'playwright-core';
import { PNG } from 'pngjs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './support/harness.js';
import { css, inspect } from './support/observe.js';

let h: Harness;
/** A browser of the test's own, started when first needed, that decodes JPEG and WebP. */
let decoder: Promise<Browser> | undefined;

beforeAll(async () => {
  h = await startHarness();
});

afterAll(async () => {
  await Promise.all([h?.stop(), decoder?.then((b) => b.close())]);
});

afterEach(async () => {
  const { pages } = await h.client.call('page/list', {});
  await Promise.all(pages.map((page) => h.client.call('page/close', { pageId: page.id })));
});

/** What agent/observe and the AI snapshots show instead of a field's value. */
const MASK = '••••••';
/** Playwright's mask colour. */
const MAGENTA = [255, 0, 255] as const;

/** Values action/fill writes into the sensitive fields of sensitive.html; the PIN's is too short for the redactor. */
const FILLED = { password: 'Pw-Distinct-7319', card: '4929-Card-0427-1138', newPassword: 'NewPw-Distinct-5521', pin: 'ab1' };
/** The `value` attribute the page itself gives its saved password field. */
const PRESET = 'preset-attr-Sens1tive';
const NAME = 'Jane Q Public';

async function open(path = 'sensitive.html', options: { height?: number; contextId?: string } = {}): Promise<string> {
  const params = { url: h.url(path), viewport: { width: 800, height: options.height ?? 600 } };
  return (await h.client.call('page/create', options.contextId ? { ...params, contextId: options.contextId } : params)).id;
}

async function fillAll(pageId: string): Promise<void> {
  await h.client.call('action/fill', { pageId, selector: css('#name'), value: NAME });
  await h.client.call('action/fill', { pageId, selector: css('#password'), value: FILLED.password });
  await h.client.call('action/fill', { pageId, selector: { type: 'label', value: 'Card number' }, value: FILLED.card });
  await h.client.call('action/fill', { pageId, selector: css('#new-password'), value: FILLED.newPassword });
  await h.client.call('action/fill', { pageId, selector: css('#pin'), value: FILLED.pin });
}

/** Which secrets a result shows; the short one counts where it stands alone, not inside a longer word. */
function leaked(result: unknown): string[] {
  const json = JSON.stringify(result);
  const long = [FILLED.password, FILLED.card, FILLED.newPassword, PRESET].filter((s) => json.includes(s));
  const alone = new RegExp(`(^|[^\\w-])${FILLED.pin}($|[^\\w-])`);
  return stringsOf(result).some((s) => alone.test(s)) ? [...long, FILLED.pin] : long;
}

function stringsOf(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (value && typeof value === 'object') return Object.values(value).flatMap(stringsOf);
  return [];
}

const failure = (call: Promise<unknown>) => call.then((r) => r, (error: unknown) => ({ error: String(error), details: (error as { data?: unknown }).data }));

describe('observations never show a sensitive field value', () => {
  it('dom, content, element, snapshots, extract, discover and agent/observe', async () => {
    const pageId = await open();
    await fillAll(pageId);
    const fields = ['#password', '#card', '#new-password', '#pin', '#preset'];
    const everything = ['visible', 'enabled', 'checked', 'focused', 'text', 'value', 'boundingBox', 'attributes', 'computedStyle', 'role', 'name', 'tagName'] as const;
    const extractSchema = {
      type: 'object',
      properties: {
        name: { type: 'string', title: 'Name on card' },
        password: { type: 'string' },
        cardNumber: { type: 'string' },
        newPassword: { type: 'string' },
        pin: { type: 'string' },
        savedPassword: { type: 'string' },
        hinted: { type: 'string', 'x-selector': '#card' },
        form: { type: 'string', 'x-selector': 'form' },
      },
    };
    const results: Array<[string, unknown]> = [
      ['dom', await h.client.call('observe/dom', { pageId })],
      ['dom of the form', await h.client.call('observe/dom', { pageId, options: { root: css('form') } })],
      ['content text', await h.client.call('observe/content', { pageId, format: 'text' })],
      ['content markdown', await h.client.call('observe/content', { pageId, format: 'markdown' })],
      ['content html', await h.client.call('observe/content', { pageId, format: 'html' })],
      ['ariaSnapshot', await h.client.call('observe/ariaSnapshot', { pageId, options: { includeTree: true } })],
      ['accessibility', await h.client.call('observe/accessibility', { pageId })],
      ['discover', await h.client.call('discovery/discover', { pageId })],
      ['extract', await failure(h.client.call('agent/extract', { pageId, schema: extractSchema }))],
      ['extract, all required', await failure(h.client.call('agent/extract', { pageId, schema: { ...extractSchema, required: Object.keys(extractSchema.properties) } }))],
    ];
    for (const tier of ['minimal', 'interactive', 'full'] as const) {
      results.push([`agent/observe ${tier}`, await h.client.call('agent/observe', { pageId, responseTier: tier, includeAccessibility: true })]);
    }
    for (const field of fields) {
      results.push([`element ${field}`, await h.client.call('observe/element', { pageId, selector: css(field), properties: [...everything] })]);
    }
    expect(results.filter(([, result]) => leaked(result).length).map(([name, result]) => [name, leaked(result)])).toEqual([]);

    const snapshot = (results[5]![1] as { snapshot: string }).snapshot;
    const masked = snapshot.split('\n').filter((l) => l.endsWith(`]: ${MASK}`));
    expect(masked.map((l) => /textbox "([^"]+)"/.exec(l)?.[1])).toEqual(['Password', 'Card number', 'New password', 'PIN', 'Saved password']);
    // Only sensitive fields are masked.
    expect((await inspect(h.client, css('#name'), pageId)).value).toBe(NAME);
    expect(snapshot).toContain(`: ${NAME}`);
  });

  it('values the AI snapshot prints with whitespace collapsed are masked too', async () => {
    const pageId = await open();
    const spaced = '  Spaced\tout   Secret  42 ';
    await h.client.call('action/fill', { pageId, selector: css('#new-password'), value: spaced });
    const { snapshot } = await h.client.call('observe/ariaSnapshot', { pageId });
    expect(snapshot).not.toContain('Spaced out Secret 42');
    expect(snapshot).toMatch(/textbox "New password" .*\]: ••••••$/m);
  });
});

describe('values written into sensitive fields are learned', () => {
  it('by action/fill and action/type (element or point), and only for sensitive fields', async () => {
    const pageId = await open('sensitive.html?echo');
    await h.client.call('action/fill', { pageId, selector: css('#name'), value: NAME });
    await h.client.call('action/fill', { pageId, selector: css('#password'), value: 'Echoed-Fill-4471' });
    const card = (await inspect(h.client, css('#card'), pageId)).boundingBox!;
    const centre = { type: 'coordinates' as const, x: card.x + card.width / 2, y: card.y + card.height / 2 };
    await h.client.call('action/type', { pageId, selector: centre, text: 'Echoed-Point-8812' });
    await h.client.call('action/type', { pageId, selector: css('#new-password'), text: 'Echoed-Type-3390' });

    // The page copies the values into plain paragraphs, where only the learned values protect them.
    const { content } = await h.client.call('observe/content', { pageId, format: 'text' });
    for (const value of ['Echoed-Fill-4471', 'Echoed-Point-8812', 'Echoed-Type-3390']) expect(content).not.toContain(value);
    const echoes = ['password: [REDACTED]', 'card: [REDACTED]', 'new-password: [REDACTED]', `name: ${NAME}`];
    expect(content.split('\n')).toEqual(expect.arrayContaining(echoes));
  });

  it('in the spellings a form post gives them: request bodies in events and in pages', async () => {
    const client = await h.newClient();
    await client.call('events/subscribe', { events: ['network'] });
    const bodies: string[] = [];
    client.on('events/network', (event) => {
      if (event.type === 'request' && event.postData) bodies.push(event.postData);
    });
    const secret = 'Pass word&Co!2024';
    const encoded = 'Pass+word%26Co%212024';
    const { id: pageId } = await client.call('page/create', { url: h.url('sensitive-login.html') });
    await client.call('action/fill', { pageId, selector: css('#user'), value: 'ada' });
    await client.call('action/fill', { pageId, selector: css('#secret'), value: secret });
    await client.call('action/click', { pageId, selector: { type: 'role', role: 'button', name: 'Sign in' } });
    await expect.poll(() => bodies.length, { timeout: 10_000 }).toBeGreaterThan(0);
    expect(bodies).toEqual(['user=ada&secret=[REDACTED]']);
    const { content } = await client.call('observe/content', { pageId, format: 'text' });
    expect(content).toContain('"body":"user=ada&secret=[REDACTED]"');
    expect(content).not.toContain(encoded);
  });
});

describe('trace/stop', () => {
  it('returns a trace with no sensitive value in any entry, still a well-formed trace', async () => {
    const pageId = await open();
    const typed = 'Typed-Into-Card-6021';
    await h.client.call('trace/start', { pageId, name: 'sensitive' });
    await h.client.call('action/fill', { pageId, selector: css('#password'), value: FILLED.password });
    await h.client.call('action/type', { pageId, selector: css('#card'), text: typed });
    await h.client.call('action/fill', { pageId, selector: css('#pin'), value: FILLED.pin });
    await h.client.call('observe/ariaSnapshot', { pageId });
    await h.client.call('action/click', { pageId, selector: { type: 'role', role: 'button', name: 'Pay' } });
    const trace = await h.client.call('trace/stop', { pageId });

    const entries = unzipSync(Buffer.from(trace.data, 'base64'));
    expect(trace.size).toBe(Buffer.from(trace.data, 'base64').length);
    expect(Object.keys(entries)).toEqual(expect.arrayContaining(['trace.trace', 'trace.network']));
    for (const [name, data] of Object.entries(entries)) {
      const bytes = Buffer.from(data);
      for (const secret of [FILLED.password, typed, PRESET]) expect(bytes.includes(secret), `${secret} in ${name}`).toBe(false);
    }
    const screenshots = Object.entries(entries).filter(([name]) => name.endsWith('.jpeg'));
    expect(screenshots.length).toBeGreaterThan(0);
    for (const [, data] of screenshots) expect([data[0], data[1]]).toEqual([0xff, 0xd8]);

    const events = new TextDecoder().decode(entries['trace.trace']).split('\n').filter(Boolean).map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(leaked(events)).toEqual([]);
    const fills = events.filter((e) => e.type === 'before' && e.method === 'fill');
    expect(fills.map((e) => (e.params as { value: string }).value)).toEqual([MASK, MASK]);
    expect(events.some((e) => e.type === 'frame-snapshot')).toBe(true);
  });
});

describe('screenshots paint over sensitive fields', () => {
  const LONG = 'VisibleSecretText-VisibleSecretText';

  async function filledPage(): Promise<{ pageId: string; box: Box; name: Box }> {
    const pageId = await open();
    await h.client.call('action/fill', { pageId, selector: css('#new-password'), value: LONG });
    await h.client.call('action/fill', { pageId, selector: css('#name'), value: NAME });
    const box = (await inspect(h.client, css('#new-password'), pageId)).boundingBox!;
    const name = (await inspect(h.client, css('#name'), pageId)).boundingBox!;
    return { pageId, box, name };
  }

  async function shot(params: MethodParams<'observe/screenshot'>): Promise<PNG> {
    return PNG.sync.read(Buffer.from((await h.client.call('observe/screenshot', params)).data, 'base64'));
  }

  it('by default, in png and jpeg; not with maskSensitive: false', async () => {
    const { pageId, box, name } = await filledPage();
    const masked = await shot({ pageId, options: { scale: 'css' } });
    expect(offColour(rgbAt(masked), box, 0)).toBe(0);
    expect(offColour(rgbAt(masked), name, 0)).toBeGreaterThan(0);

    const shown = await shot({ pageId, options: { scale: 'css', maskSensitive: false } });
    expect(offColour(rgbAt(shown), box, 0)).toBeGreaterThan(0);

    const element = await shot({ pageId, selector: css('form'), options: { scale: 'css' } });
    const form = (await inspect(h.client, css('form'), pageId)).boundingBox!;
    expect(offColour(rgbAt(element), { ...box, x: box.x - form.x, y: box.y - form.y }, 0)).toBe(0);

    const jpeg = await h.client.call('observe/screenshot', { pageId, options: { scale: 'css', format: 'jpeg', quality: 90 } });
    const pixels = await decodeInBrowser([jpeg.data, 'image/jpeg']);
    expect(offColour(pixels[0]!, box, 40)).toBe(0);
  });

  it('in webp too, with user masks as well', async () => {
    const { pageId, box, name } = await filledPage();
    const masked = await h.client.call('observe/screenshot', { pageId, options: { scale: 'css', format: 'webp' } });
    const shown = await h.client.call('observe/screenshot', { pageId, options: { scale: 'css', format: 'webp', maskSensitive: false } });
    const userMask = await h.client.call('observe/screenshot', { pageId, options: { scale: 'css', format: 'webp', maskSensitive: false, mask: [css('#name')] } });
    expect([masked.format, masked.width, masked.height]).toEqual(['webp', 800, 600]);
    const [maskedPixels, shownPixels, userPixels] = await decodeInBrowser([masked.data, 'image/webp'], [shown.data, 'image/webp'], [userMask.data, 'image/webp']);
    expect(offColour(maskedPixels!, box, 40)).toBe(0);
    expect(offColour(shownPixels!, box, 40)).toBeGreaterThan(0);
    expect(offColour(userPixels!, name, 40)).toBe(0);
    expect(offColour(userPixels!, box, 40)).toBeGreaterThan(0);
  });

  it('in annotated screenshots, painted on the image: scrolled, full page, and at device pixel ratio 2', async () => {
    const pageId = await open('sensitive.html', { height: 300 });
    await h.client.call('action/fill', { pageId, selector: css('#new-password'), value: LONG });
    const { scrollY } = await h.client.call('action/scroll', { pageId, options: { direction: 'down', amount: 120 } });
    expect(scrollY).toBeGreaterThan(100);
    const box = (await inspect(h.client, css('#new-password'), pageId)).boundingBox!;
    const annotated = (options: MethodParams<'observe/screenshot'>['options']) => shot({ pageId, options: { annotate: {}, scale: 'css', ...options } });
    expect(offColour(rgbAt(await annotated({})), box, 0)).toBe(0);
    expect(offColour(rgbAt(await annotated({ fullPage: true })), { ...box, y: box.y + scrollY }, 0)).toBe(0);
    expect(offColour(rgbAt(await annotated({ maskSensitive: false })), box, 0)).toBeGreaterThan(0);

    const { contextId } = await h.client.call('context/create', { options: { deviceScaleFactor: 2 } });
    try {
      const sharp = await open('sensitive.html', { contextId });
      await h.client.call('action/fill', { pageId: sharp, selector: css('#new-password'), value: LONG });
      const at = (await inspect(h.client, css('#new-password'), sharp)).boundingBox!;
      const image = await shot({ pageId: sharp, options: { annotate: {} } });
      expect(image.width).toBe(1600);
      expect(offColour(rgbAt(image), { x: at.x * 2, y: at.y * 2, width: at.width * 2, height: at.height * 2 }, 0)).toBe(0);
    } finally {
      await h.client.call('context/destroy', { contextId });
    }
  });

  it('in agent/observe screenshots, plain and annotated', async () => {
    const { pageId, box } = await filledPage();
    for (const params of [{ includeScreenshot: true }, { annotateScreenshot: true }]) {
      const result = await h.client.call('agent/observe', { pageId, ...params });
      const png = PNG.sync.read(Buffer.from(result.screenshot!.data, 'base64'));
      expect(offColour(rgbAt(png), box, 0), JSON.stringify(params)).toBe(0);
    }
  });
});

interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

type Pixels = (x: number, y: number) => readonly [number, number, number];

function rgbAt(png: PNG): Pixels {
  return (x, y) => {
    const i = (png.width * y + x) * 4;
    return [png.data[i]!, png.data[i + 1]!, png.data[i + 2]!];
  };
}

/** How many pixels inside `box` (2 px in from its edges) differ from the mask colour by more than `tolerance` in a channel. */
function offColour(at: Pixels, box: Box, tolerance: number): number {
  let off = 0;
  for (let y = Math.ceil(box.y) + 2; y < Math.floor(box.y + box.height) - 2; y++) {
    for (let x = Math.ceil(box.x) + 2; x < Math.floor(box.x + box.width) - 2; x++) {
      if (at(x, y).some((c, i) => Math.abs(c - MAGENTA[i]!) > tolerance)) off++;
    }
  }
  return off;
}

/** Decodes JPEG and WebP images with Chromium's codecs. */
async function decodeInBrowser(...images: Array<[string, string]>): Promise<Pixels[]> {
  decoder ??= chromium.launch({ executablePath: findChromium(), args: process.getuid?.() === 0 ? ['--no-sandbox'] : [] });
  const page = await (await decoder).newPage();
  try {
    const pngs = await page.evaluate(async (list) => {
      const out: string[] = [];
      for (const [data, type] of list) {
        const bitmap = await createImageBitmap(await (await fetch(`data:${type};base64,${data}`)).blob());
        const canvas = new OffscreenCanvas(bitmap.width, bitmap.height);
        canvas.getContext('2d')!.drawImage(bitmap, 0, 0);
        const bytes = new Uint8Array(await (await canvas.convertToBlob({ type: 'image/png' })).arrayBuffer());
        let binary = '';
        for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
        out.push(btoa(binary));
      }
      return out;
    }, images);
    return pngs.map((data) => rgbAt(PNG.sync.read(Buffer.from(data, 'base64'))));
  } finally {
    await page.close();
  }
}
