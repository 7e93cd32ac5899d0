import type { CDPSession } from 'playwright-core';
import type { BoundingBox } from '@browseragentprotocol/protocol';
import { firstLine } from './errors.js';
import type { PageHandle } from './pageHandle.js';

/*
 * Set-of-marks drawing happens in a private JavaScript world of the page's main frame
 * (Page.createIsolatedWorld), with createImageBitmap and OffscreenCanvas. The page's DOM and its
 * scripts' world are never touched: an isolated world shares no globals with page scripts, which
 * can neither see the drawing nor tamper with the APIs it uses. It needs no native image library
 * on the server, and the browser's own codecs write PNG, JPEG and WebP.
 */

const WORLD_NAME = '__bap_marks__';

/** One mark, in image pixels: its badge text and centre, and the element's box. */
export interface Mark {
  text: string;
  x: number;
  y: number;
  box: { x: number; y: number; width: number; height: number };
}

/** How marks look, in image pixels. */
export interface MarkStyle {
  badges: boolean;
  boxes: boolean;
  fontSize: number;
  lineWidth: number;
  backgroundColor: string;
  textColor: string;
  boxColor: string;
  opacity: number;
}

/** What the page shows at the moment of the survey, in CSS pixels. */
export interface PageView {
  scrollX: number;
  scrollY: number;
  innerWidth: number;
  innerHeight: number;
  /** The document's size as Playwright measures it for full-page screenshots. */
  pageWidth: number;
  pageHeight: number;
  /** The first of the given colours the browser cannot parse, by key. */
  invalidColour: string | null;
}

export interface Encoding {
  format: 'png' | 'jpeg' | 'webp';
  /** 0–100, for JPEG and WebP. */
  quality: number;
}

/** The isolated world of one page's main frame, opened for one annotated screenshot. */
/** Playwright's mask colour. */
const MASK_COLOUR = '#FF00FF';

export class MarksWorld {
  private constructor(
    private readonly cdp: CDPSession,
    private contextId: number,
  ) {}

  static async open(h: PageHandle): Promise<MarksWorld> {
    const cdp = await h.cdp();
    return new MarksWorld(cdp, await createWorld(cdp));
  }

  /** Scroll offsets and sizes, read where the page cannot fake them, and which colours do not parse. */
  survey(colours: Record<string, string>): Promise<PageView> {
    return this.call<PageView>(surveyPage.toString(), colours);
  }

  /**
   * The PNG with the marks drawn over it, encoded as asked; `covers` (image pixels) are filled in
   * Playwright's mask colour first, so a sensitive field looks the same as in any screenshot.
   */
  async draw(png: Buffer, marks: readonly Mark[], style: MarkStyle, encoding: Encoding, covers: readonly BoundingBox[] = []): Promise<Buffer> {
    const args = { png: png.toString('base64'), marks, style, type: `image/${encoding.format}`, quality: encoding.quality / 100, covers, coverColour: MASK_COLOUR };
    let data: string;
    try {
      data = await this.call<string>(drawMarks.toString(), args);
    } catch (error) {
      // Any document can hold the canvas: if the page navigated since the survey, draw in the new one.
      if (!/Cannot find context/i.test(firstLine(error))) throw error;
      this.contextId = await createWorld(this.cdp);
      data = await this.call<string>(drawMarks.toString(), args);
    }
    return Buffer.from(data, 'base64');
  }

  private async call<T>(functionDeclaration: string, arg: unknown): Promise<T> {
    const reply = await this.cdp.send('Runtime.callFunctionOn', {
      functionDeclaration,
      executionContextId: this.contextId,
      arguments: [{ value: arg }],
      awaitPromise: true,
      returnByValue: true,
    });
    if (reply.exceptionDetails) {
      const { exception, text } = reply.exceptionDetails;
      throw new Error(`Set-of-marks drawing failed: ${exception?.description ?? text}`);
    }
    return reply.result.value as T;
  }
}

async function createWorld(cdp: CDPSession): Promise<number> {
  const { frameTree } = await cdp.send('Page.getFrameTree');
  // Chromium keeps one world per name and frame, so asking again reuses it instead of adding one.
  const { executionContextId } = await cdp.send('Page.createIsolatedWorld', { frameId: frameTree.frame.id, worldName: WORLD_NAME });
  return executionContextId;
}

/* The two functions below run in the isolated world from their source text: self-contained. */

function surveyPage(colours: Record<string, string>): PageView {
  const doc = document.documentElement;
  const body = document.body ?? doc;
  return {
    scrollX: window.scrollX,
    scrollY: window.scrollY,
    innerWidth: window.innerWidth,
    innerHeight: window.innerHeight,
    pageWidth: Math.max(body.scrollWidth, doc.scrollWidth, body.offsetWidth, doc.offsetWidth, body.clientWidth, doc.clientWidth),
    pageHeight: Math.max(body.scrollHeight, doc.scrollHeight, body.offsetHeight, doc.offsetHeight, body.clientHeight, doc.clientHeight),
    invalidColour: Object.keys(colours).find((key) => !CSS.supports('color', colours[key]!)) ?? null,
  };
}

async function drawMarks(args: { png: string; marks: Mark[]; style: MarkStyle; type: string; quality: number; covers: BoundingBox[]; coverColour: string }): Promise<string> {
  const { marks, style } = args;
  const raw = atob(args.png);
  const bytes = new Uint8Array(raw.length);
  for (let i = 0; i < raw.length; i++) bytes[i] = raw.charCodeAt(i);
  const image = await createImageBitmap(new Blob([bytes], { type: 'image/png' }));
  const canvas = new OffscreenCanvas(image.width, image.height);
  const g = canvas.getContext('2d')!;
  g.drawImage(image, 0, 0);
  g.fillStyle = args.coverColour;
  for (const r of args.covers) g.fillRect(r.x, r.y, r.width, r.height);
  if (style.boxes) {
    g.globalAlpha = style.opacity;
    g.strokeStyle = style.boxColor;
    g.lineWidth = style.lineWidth;
    // Inset by half the line, so the outline covers the element's own edge and not its neighbours'.
    const inset = style.lineWidth / 2;
    for (const { box } of marks) g.strokeRect(box.x + inset, box.y + inset, Math.max(0, box.width - style.lineWidth), Math.max(0, box.height - style.lineWidth));
  }
  if (style.badges) {
    g.font = `bold ${style.fontSize}px sans-serif`;
    g.textAlign = 'center';
    g.textBaseline = 'middle';
    const height = Math.round(style.fontSize * 1.4);
    const padding = Math.round(style.fontSize * 0.35);
    for (const mark of marks) {
      const width = Math.max(height, Math.ceil(g.measureText(mark.text).width) + 2 * padding);
      g.globalAlpha = style.opacity;
      g.fillStyle = style.backgroundColor;
      g.beginPath();
      g.roundRect(Math.round(mark.x - width / 2), Math.round(mark.y - height / 2), width, height, Math.round(height / 4));
      g.fill();
      // The number stays opaque whatever the badge's opacity: it is what the model reads.
      g.globalAlpha = 1;
      g.fillStyle = style.textColor;
      g.fillText(mark.text, mark.x, mark.y + 1);
    }
  }
  const blob = await canvas.convertToBlob({ type: args.type, quality: args.quality });
  const out = new Uint8Array(await blob.arrayBuffer());
  let binary = '';
  for (let i = 0; i < out.length; i += 0x8000) binary += String.fromCharCode(...out.subarray(i, i + 0x8000));
  return btoa(binary);
}
