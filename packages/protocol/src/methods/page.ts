import { z } from 'zod';
import { PageIdSchema, PageInfoSchema, TimeoutSchema, ViewportSchema, WaitUntilSchema } from '../common.js';

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
