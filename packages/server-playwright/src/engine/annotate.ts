import type { Locator } from 'playwright-core';
import {
  BAPError,
  ErrorCodes,
  describeSelector,
  type AnnotateOptions,
  type Annotation,
  type BoundingBox,
  type ParsedParams,
  type ScreenshotResult,
} from '@browseragentprotocol/protocol';
import { toBAPError } from './errors.js';
import { imageSize } from './imageSize.js';
import { markCandidates, placeTargets, type MarkTarget, type TargetFilter } from './markTargets.js';
import { MarksWorld, type Mark, type MarkStyle, type PageView } from './marksRenderer.js';
import { raster, type ScreenshotOptions } from './observe.js';
import type { PageHandle } from './pageHandle.js';
import { sensitiveFieldMasks } from './secrets.js';

/** The defaults of `options.annotate`, documented in docs/set-of-marks.md. */
const DEFAULTS = {
  style: 'both',
  interactive: true,
  minSize: 10,
  maxLabels: 50,
  labelFormat: 'numeric',
  fontSize: 14,
  backgroundColor: '#FFD700',
  textColor: '#000000',
  opacity: 0.9,
  /** JPEG and WebP quality when `options.quality` is not given. */
  quality: 80,
} as const;

interface Settings {
  filter: TargetFilter;
  maxLabels: number;
  labelFormat: 'numeric' | 'alpha';
  style: NonNullable<AnnotateOptions['style']>;
  fontSize: number;
  colours: { backgroundColor: string; textColor: string; boxColor: string };
  opacity: number;
}

/** observe/screenshot with `options.annotate`: a set-of-marks screenshot, drawn on the image only. */
export async function annotatedScreenshot(h: PageHandle, p: ParsedParams<'observe/screenshot'>): Promise<ScreenshotResult> {
  const o = p.options ?? {};
  const settings = resolveSettings(o.annotate ?? {});
  const timeout = o.timeout ?? h.timeouts.action;
  const format = o.format ?? 'png';
  try {
    const world = await MarksWorld.open(h);
    const view = await world.survey(settings.colours);
    if (view.invalidColour) throw badColour(view.invalidColour, settings.colours);
    const element = p.selector ? await elementBox(h, p.selector) : null;
    const { area, fullPage, clip } = capturedArea(view, o, element);
    const nodes = await h.refs.capture({ frame: h.frames.current(), boxes: true, timeout });
    // The shot does not depend on which elements get marks: take it while they are placed.
    const [shot, targets, masks, secrets] = await Promise.all([
      // Playwright hides the caret through an inline style on every field and leaves `style=""` behind.
      // Its masks are elements added to the page: sensitive fields are painted over off the page instead.
      raster(h, null, { ...o, maskSensitive: false, format: 'png', timeout, fullPage, clip, caret: 'initial' }),
      placeTargets(h.page, markCandidates(nodes, settings.filter), timeout),
      maskBoxes(h, o.mask ?? []),
      o.maskSensitive === false ? [] : boxesOf(sensitiveFieldMasks(h.page)),
    ]);
    const scale = imageSize(shot).width / area.width;
    const scroll = { x: view.scrollX, y: view.scrollY };
    const covers = secrets.map((b) => imageRect(b, { area, scale, scroll }));
    const { marks, annotations } = layOut(targets, { area, scale, scroll, masks, settings });
    const quality = o.quality ?? DEFAULTS.quality;
    const data = await world.draw(shot, marks, markStyle(settings, scale), { format, quality }, covers);
    return { data: data.toString('base64'), format, ...imageSize(data), annotations };
  } catch (error) {
    throw toBAPError(error, p.selector ? { action: 'observe/screenshot', selector: describeSelector(p.selector) } : { action: 'observe/screenshot' });
  }
}

function resolveSettings(a: AnnotateOptions): Settings {
  const d = DEFAULTS;
  const f = a.filter ?? {};
  const look = a.appearance ?? {};
  const backgroundColor = look.backgroundColor ?? d.backgroundColor;
  return {
    filter: { interactive: f.interactive ?? d.interactive, roles: f.roles ? new Set(f.roles) : null, minSize: f.minSize ?? d.minSize },
    maxLabels: f.maxLabels ?? d.maxLabels,
    labelFormat: look.labelFormat ?? d.labelFormat,
    style: a.style ?? d.style,
    fontSize: look.fontSize ?? d.fontSize,
    // Outlines match the badges unless told otherwise, so a box and its number read as one mark.
    colours: { backgroundColor, textColor: look.textColor ?? d.textColor, boxColor: look.boxColor ?? backgroundColor },
    opacity: look.opacity ?? d.opacity,
  };
}

/** The schema lets through any word; only the browser knows which words are colours. */
function badColour(key: string, colours: Record<string, string>): BAPError {
  const field = `params.options.annotate.appearance.${key}`;
  return new BAPError(ErrorCodes.InvalidParams, `Invalid params: ${field}: "${colours[key]}" is not a CSS colour.`, {
    details: { issues: [{ path: field, message: 'not a CSS colour' }] },
  });
}

/** The rectangle the image shows, in CSS pixels of the document, and how to ask Playwright for it. */
function capturedArea(view: PageView, o: ScreenshotOptions, element: BoundingBox | null) {
  const doc = { x: 0, y: 0, width: view.pageWidth, height: view.pageHeight };
  const onPage = (r: BoundingBox) => ({ ...r, x: r.x + view.scrollX, y: r.y + view.scrollY });
  if (element) {
    // Cut from the full page, so the page does not scroll to the element as Playwright's element shots do.
    const area = intersect(onPage(element), doc);
    if (area.width > 0 && area.height > 0) return { area, fullPage: true, clip: area };
    throw new BAPError(ErrorCodes.ElementNotVisible, 'Element is outside the page, so it has no image.');
  }
  const viewport = { x: view.scrollX, y: view.scrollY, width: view.innerWidth, height: view.innerHeight };
  const whole = o.fullPage ? doc : viewport;
  const area = o.clip ? intersect(o.fullPage ? o.clip : onPage(o.clip), whole) : whole;
  if (area.width > 0 && area.height > 0) return { area, fullPage: !!o.fullPage, clip: o.clip };
  throw new BAPError(ErrorCodes.InvalidParams, 'options.clip: the area to capture is outside the page.', { details: { field: 'options.clip' } });
}

function intersect(a: BoundingBox, b: BoundingBox): BoundingBox {
  const x = Math.max(a.x, b.x);
  const y = Math.max(a.y, b.y);
  return { x, y, width: Math.max(0, Math.min(a.x + a.width, b.x + b.width) - x), height: Math.max(0, Math.min(a.y + a.height, b.y + b.height) - y) };
}

async function elementBox(h: PageHandle, selector: NonNullable<ParsedParams<'observe/screenshot'>['selector']>): Promise<BoundingBox> {
  const box = await (await h.element(selector, 'observe/screenshot')).boundingBox({ timeout: h.timeouts.action });
  if (box) return box;
  throw new BAPError(ErrorCodes.ElementNotVisible, 'Element is not visible, so it has no image.', { details: { selector: describeSelector(selector) } });
}

/** Boxes of every masked element, in viewport CSS pixels: what a mask hides gets no mark naming it. */
async function maskBoxes(h: PageHandle, selectors: NonNullable<ScreenshotOptions['mask']>): Promise<BoundingBox[]> {
  return boxesOf(await Promise.all(selectors.map((s) => h.element(s, 'observe/screenshot mask'))));
}

/** Boxes of every element the locators match, in viewport CSS pixels; hidden ones have none. */
async function boxesOf(locators: readonly Locator[]): Promise<BoundingBox[]> {
  const boxes = await Promise.all(locators.map(async (l) => Promise.all((await l.all()).map((e) => e.boundingBox()))));
  return boxes.flat().filter((b): b is BoundingBox => b !== null);
}

/** A viewport box as the whole image pixels it touches. */
function imageRect(b: BoundingBox, { area, scale, scroll }: Pick<Layout, 'area' | 'scale' | 'scroll'>): BoundingBox {
  const x = Math.floor((b.x + scroll.x - area.x) * scale);
  const y = Math.floor((b.y + scroll.y - area.y) * scale);
  const right = Math.ceil((b.x + b.width + scroll.x - area.x) * scale);
  const bottom = Math.ceil((b.y + b.height + scroll.y - area.y) * scale);
  return { x, y, width: right - x, height: bottom - y };
}

interface Layout {
  /** What the image shows, in CSS pixels of the document. */
  area: BoundingBox;
  /** Image pixels per CSS pixel: the device pixel ratio, or 1 with `scale: "css"`. */
  scale: number;
  /** The document's scroll offsets: target and mask boxes are measured from the viewport. */
  scroll: { x: number; y: number };
  masks: readonly BoundingBox[];
  settings: Settings;
}

/**
 * Which targets get a label, and where it goes: those with at least minSize × minSize CSS pixels
 * inside the captured area and their centre outside every mask, the first maxLabels of them in
 * document order. A badge sits on the centre of the element's visible part, so it is on the element.
 */
function layOut(targets: readonly MarkTarget[], { area, scale, scroll, masks, settings }: Layout) {
  const marks: Mark[] = [];
  const annotations: Annotation[] = [];
  const least = Math.max(settings.filter.minSize, 1);
  const toImage = (x: number, y: number) => ({ x: Math.round((x - area.x) * scale), y: Math.round((y - area.y) * scale) });
  for (const t of targets) {
    if (annotations.length >= settings.maxLabels) break;
    if (masks.some((m) => contains(m, t.box.x + t.box.width / 2, t.box.y + t.box.height / 2))) continue;
    const box = { ...t.box, x: t.box.x + scroll.x, y: t.box.y + scroll.y };
    const seen = intersect(box, area);
    if (seen.width < least || seen.height < least) continue;
    const label = labelText(annotations.length, settings.labelFormat);
    const position = toImage(seen.x + seen.width / 2, seen.y + seen.height / 2);
    const bounds = { ...toImage(box.x, box.y), width: Math.round(box.width * scale), height: Math.round(box.height * scale) };
    marks.push({ text: label, ...position, box: bounds });
    annotations.push({ label, ref: t.ref, bounds, position, element: { role: t.role, name: t.name } });
  }
  return { marks, annotations };
}

function contains(r: BoundingBox, x: number, y: number): boolean {
  return x >= r.x && x <= r.x + r.width && y >= r.y && y <= r.y + r.height;
}

/** 1, 2, 3 … or A … Z, AA, AB …: bijective base 26, like spreadsheet columns. */
function labelText(index: number, format: 'numeric' | 'alpha'): string {
  if (format === 'numeric') return String(index + 1);
  let text = '';
  for (let n = index + 1; n > 0; n = Math.floor((n - 1) / 26)) text = String.fromCharCode(65 + ((n - 1) % 26)) + text;
  return text;
}

/** Sizes scale with the image, so a badge covers the same part of the page at any pixel ratio. */
function markStyle(settings: Settings, scale: number): MarkStyle {
  return {
    badges: settings.style !== 'boxes',
    boxes: settings.style !== 'marks',
    fontSize: Math.round(settings.fontSize * scale),
    lineWidth: Math.max(1, Math.round(2 * scale)),
    ...settings.colours,
    opacity: settings.opacity,
  };
}
