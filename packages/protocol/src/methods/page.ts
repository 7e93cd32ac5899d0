import { z } from 'zod';
import { PageIdSchema, PageInfoSchema, TimeoutSchema, ViewportSchema, WaitUntilSchema } from '../common.js';
import { SelectorSchema } from '../selectors.js';
import { UrlPatternSchema } from './frame.js';

const UrlSchema = z.string().min(1).max(8192);

export const PageCreateParamsSchema = z.strictObject({
  url: UrlSchema.optional(),
  /** The context to open the page in; default: the default context. */
  contextId: z.string().min(1).max(64).optional(),
  viewport: ViewportSchema.optional(),
  waitUntil: WaitUntilSchema.optional(),
  timeout: TimeoutSchema.optional(),
  /** Make the new page the active one (default true). */
  activate: z.boolean().optional(),
});

export const PageNavigateParamsSchema = z.strictObject({
  pageId: PageIdSchema,
  url: UrlSchema,
  waitUntil: WaitUntilSchema.optional(),
  timeout: TimeoutSchema.optional(),
  referer: z.string().max(8192).optional(),
});

export const NavigationResultSchema = z.object({
  pageId: z.string(),
  url: z.string(),
  /** HTTP status of the main resource; null for same-document, `about:` and `data:` navigations. */
  status: z.number().int().nullable(),
  headers: z.record(z.string(), z.string()).optional(),
});
export type NavigationResult = z.infer<typeof NavigationResultSchema>;

export const PageHistoryParamsSchema = z.strictObject({
  pageId: PageIdSchema,
  waitUntil: WaitUntilSchema.optional(),
  timeout: TimeoutSchema.optional(),
});

export const PageHistoryResultSchema = NavigationResultSchema.extend({
  /** False when there was no history entry to go to: the page stayed where it was. */
  navigated: z.boolean(),
});

export const PageCloseParamsSchema = z.strictObject({
  pageId: PageIdSchema,
  runBeforeUnload: z.boolean().optional(),
});

export const PageCloseResultSchema = z.object({ activePage: z.string().nullable() });

export const PageListResultSchema = z.object({
  pages: z.array(PageInfoSchema),
  activePage: z.string().nullable(),
});

export const PageActivateParamsSchema = z.strictObject({ pageId: z.string().min(1).max(64) });

const WAIT_CONDITIONS = ['text', 'textGone', 'selector', 'url', 'loadState', 'time'] as const;

/** Exactly one condition: text to appear or go, an element state, a URL, a load state, or a pause. */
export const PageWaitForParamsSchema = z
  .strictObject({
    pageId: PageIdSchema,
    /** Text visible somewhere in the current frame (substring, case-insensitive). */
    text: z.string().min(1).max(1_000).optional(),
    /** Text no longer visible. */
    textGone: z.string().min(1).max(1_000).optional(),
    selector: SelectorSchema.optional(),
    /** With `selector`: the state to reach (default `visible`). */
    state: z.enum(['visible', 'hidden', 'attached', 'detached']).optional(),
    /** The page URL matches (regex `/…/`, glob with `*`, or substring). */
    url: UrlPatternSchema.optional(),
    loadState: z.enum(['load', 'domcontentloaded', 'networkidle']).optional(),
    /** Just wait this many milliseconds. */
    time: z.number().int().min(0).max(60_000).optional(),
    timeout: TimeoutSchema.optional(),
  })
  .superRefine((p, ctx) => {
    const given = WAIT_CONDITIONS.filter((k) => p[k] !== undefined);
    if (given.length !== 1) {
      ctx.addIssue({
        code: 'custom',
        message: `give exactly one of ${WAIT_CONDITIONS.join(', ')}${given.length ? ` (got ${given.join(', ')})` : ''}`,
      });
    }
    if (p.state !== undefined && p.selector === undefined) ctx.addIssue({ code: 'custom', path: ['state'], message: 'state needs a selector' });
  });

export const PageWaitForResultSchema = z.object({
  /** Milliseconds waited. */
  waited: z.number(),
  url: z.string(),
});

/** Run page script: needs the `eval` scope and a server started with allowEvaluate. */
export const PageEvaluateParamsSchema = z.strictObject({
  pageId: PageIdSchema,
  /** A JavaScript expression, or a function (`() => …`) that is called; a promise is awaited. Runs in the current frame. */
  expression: z.string().min(1).max(1_000_000),
  timeout: TimeoutSchema.optional(),
});
export const PageEvaluateResultSchema = z.object({
  /**
   * The value as JSON, made in the page: `undefined` becomes null; inside objects and arrays a
   * BigInt becomes a string, a Map an object, a Set an array, and functions are left out.
   */
  value: z.unknown(),
});
