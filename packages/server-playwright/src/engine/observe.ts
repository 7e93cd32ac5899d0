import type { Locator } from 'playwright-core';
import {
  describeSelector,
  type AccessibilityNode,
  type ElementProperty,
  type MethodResult,
  type ParsedParams,
  type SnapshotResult,
} from '@browseragentprotocol/protocol';
import { annotatedScreenshot } from './annotate.js';
import { renderSnapshot } from './ariaTree.js';
import { defined, firstLine, invalidField, toBAPError } from './errors.js';
import { imageSize } from './imageSize.js';
import { titleOf, type PageHandle } from './pageHandle.js';
import { discoverTools, domSnapshot, elementInfo, toMarkdown, type ElementInfo } from './pageScripts.js';
import { SENSITIVE_FIELDS, sensitiveFieldMasks } from './secrets.js';

const DEFAULT_MAX_LENGTH = 1_000_000;

export async function screenshot(h: PageHandle, p: ParsedParams<'observe/screenshot'>) {
  const o = p.options ?? {};
  if (o.annotate && o.annotate.enabled !== false) return annotatedScreenshot(h, p);
  const format = o.format ?? 'png';
  const timeout = o.timeout ?? h.timeouts.action;
  const element = p.selector ? await h.element(p.selector, 'observe/screenshot') : null;
  try {
    const data = await raster(h, element, { ...o, format, timeout });
    return { data: data.toString('base64'), format, ...imageSize(data) };
  } catch (error) {
    throw toBAPError(error, p.selector ? { action: 'observe/screenshot', selector: describeSelector(p.selector) } : { action: 'observe/screenshot' });
  }
}

export type ScreenshotOptions = NonNullable<ParsedParams<'observe/screenshot'>['options']>;

/** WebP quality when `options.quality` is not given (Playwright's own default, 100, is lossless and large). */
const WEBP_QUALITY = 80;

/**
 * The image through Playwright, with the masks asked for and, unless `maskSensitive` is false,
 * every password and card field of every frame painted over; annotated screenshots draw on its PNG.
 */
export async function raster(
  h: PageHandle,
  element: Locator | null,
  o: ScreenshotOptions & { format: 'png' | 'jpeg' | 'webp'; timeout: number; caret?: 'hide' | 'initial' },
) {
  const asked = await Promise.all((o.mask ?? []).map((s) => h.element(s, 'observe/screenshot mask')));
  const mask = o.maskSensitive === false ? asked : [...asked, ...sensitiveFieldMasks(h.page)];
  const quality = o.format === 'webp' ? (o.quality ?? WEBP_QUALITY) : o.format === 'jpeg' ? o.quality : undefined;
  const options = {
    type: o.format,
    timeout: o.timeout,
    mask,
    ...(o.caret ? { caret: o.caret } : {}),
    ...(quality !== undefined ? { quality } : {}),
    ...(o.scale ? { scale: o.scale } : {}),
    ...(o.omitBackground ? { omitBackground: true } : {}),
  };
  if (element) return element.screenshot(options);
  return h.page.screenshot({ ...options, fullPage: o.fullPage ?? false, ...(o.clip ? { clip: o.clip } : {}) });
}

/**
 * observe/ariaSnapshot and observe/accessibility: one capture through the page's RefRegistry, of
 * the current frame (the whole page, iframes included, when that is the main frame).
 */
export async function snapshot(
  h: PageHandle,
  o: {
    selector?: ParsedParams<'observe/ariaSnapshot'>['selector'];
    depth?: number | undefined;
    boxes?: boolean | undefined;
    timeout?: number | undefined;
    includeTree: boolean;
    refs?: boolean | undefined;
  },
): Promise<SnapshotResult> {
  const root = o.selector ? await h.element(o.selector, 'observe/ariaSnapshot') : undefined;
  const frame = h.frames.current();
  const title = titleOf(frame);
  let nodes: AccessibilityNode[];
  try {
    nodes = await h.refs.capture({
      frame,
      ...(root ? { root } : {}),
      ...(o.depth !== undefined ? { depth: o.depth } : {}),
      ...(o.boxes ? { boxes: true } : {}),
      timeout: o.timeout ?? h.timeouts.action,
    });
  } catch (error) {
    throw toBAPError(error, o.selector ? { selector: describeSelector(o.selector) } : {});
  }
  const result: SnapshotResult = {
    pageId: h.id,
    url: frame.url(),
    title: await title,
    snapshot: renderSnapshot(nodes, { refs: o.refs ?? true }),
    refCount: h.refs.size,
  };
  if (o.includeTree) result.tree = { role: 'document', name: result.title, children: nodes };
  return result;
}

export async function dom(h: PageHandle, p: ParsedParams<'observe/dom'>) {
  const root = p.options?.root ? await h.element(p.options.root, 'observe/dom') : null;
  const args = { sensitive: SENSITIVE_FIELDS, maxLength: p.options?.maxLength ?? DEFAULT_MAX_LENGTH };
  const frame = h.frames.current();
  try {
    const result = await (root ?? frame.locator(':root')).evaluate(domSnapshot, args);
    return { ...result, url: frame.url(), title: await titleOf(frame) };
  } catch (error) {
    throw toBAPError(error, { action: 'observe/dom' });
  }
}

const DEFAULT_PROPERTIES: ElementProperty[] = ['visible', 'enabled', 'checked', 'focused', 'text', 'value', 'boundingBox', 'role', 'name', 'tagName'];

export async function element(h: PageHandle, p: ParsedParams<'observe/element'>) {
  const locator = await h.element(p.selector, 'observe/element');
  try {
    const count = await locator.count();
    if (count === 0) return { found: false, count: 0 };
    const info = await locator.first().evaluate(elementInfo, SENSITIVE_FIELDS, { timeout: h.timeouts.action });
    const result: Record<string, unknown> = { found: true, count };
    for (const prop of p.properties ?? DEFAULT_PROPERTIES) result[prop] = info[prop as keyof ElementInfo];
    return result as { found: boolean; count: number };
  } catch (error) {
    throw toBAPError(error, { selector: describeSelector(p.selector) });
  }
}

export async function content(h: PageHandle, p: ParsedParams<'observe/content'>) {
  const format = p.format ?? 'text';
  const maxLength = p.maxLength ?? DEFAULT_MAX_LENGTH;
  const root = p.selector ? await h.element(p.selector, 'observe/content') : null;
  const frame = h.frames.current();
  let text: string;
  try {
    if (format === 'markdown') text = await (root ?? frame.locator('body')).evaluate(toMarkdown);
    else if (format === 'html') {
      const args = { sensitive: SENSITIVE_FIELDS, maxLength };
      text = (await (root ?? frame.locator(':root')).evaluate(domSnapshot, args)).html;
    } else {
      text = root ? await root.innerText() : await frame.evaluate(() => document.body?.innerText ?? '');
    }
  } catch (error) {
    throw toBAPError(error, { action: 'observe/content' });
  }
  return {
    content: text.slice(0, maxLength),
    format,
    url: frame.url(),
    title: await titleOf(frame),
    truncated: text.length > maxLength,
  };
}

export async function discover(h: PageHandle, p: ParsedParams<'discovery/discover'>) {
  try {
    const { tools, native } = await h.frames.current().evaluate(discoverTools, p.options?.includeInputSchemas ?? true);
    const max = p.options?.maxTools ?? 50;
    return {
      tools: tools.slice(0, max) as { name: string; source: 'webmcp-declarative' | 'webmcp-imperative' }[],
      totalDiscovered: tools.length,
      ...(native ? { apiVersion: 'native' } : {}),
    };
  } catch (error) {
    throw toBAPError(error, { action: 'discovery/discover' });
  }
}

export async function pdf(h: PageHandle, p: ParsedParams<'observe/pdf'>): Promise<MethodResult<'observe/pdf'>> {
  const { screenMedia, ...options } = p.options ?? {};
  try {
    if (screenMedia) await h.page.emulateMedia({ media: 'screen' });
    const data = await h.page.pdf(defined(options));
    return { data: data.toString('base64'), size: data.length };
  } catch (error) {
    throw /page range|pageRanges/i.test(firstLine(error)) ? invalidField('options.pageRanges', error) : toBAPError(error);
  } finally {
    if (screenMedia) await h.page.emulateMedia({ media: null }).catch(() => {});
  }
}
