import { z } from 'zod';
import { PageIdSchema } from '../common.js';
import { SelectorSchema } from '../selectors.js';

export const FrameIdSchema = z.string().min(1).max(64);

/**
 * A URL pattern: `/…/flags` is a regular expression, a pattern with `*` is a glob (`*` stays
 * within a path segment, `**` crosses segments), anything else matches as a substring.
 */
export const UrlPatternSchema = z.string().min(1).max(2048);

export const FrameInfoSchema = z.object({
  /** `main` for the top frame; `frame-N` for others, stable for the frame's lifetime. */
  frameId: z.string(),
  name: z.string(),
  url: z.string(),
  parentFrameId: z.string().optional(),
  isMain: z.boolean(),
  /** The frame actions and observations without a ref currently run in. */
  current: z.boolean(),
});
export type FrameInfo = z.infer<typeof FrameInfoSchema>;

export const FrameListParamsSchema = z.strictObject({ pageId: PageIdSchema });
export const FrameListResultSchema = z.object({ frames: z.array(FrameInfoSchema), currentFrameId: z.string() });

/** Exactly one of frameId, selector (the iframe element) or url. */
export const FrameSwitchParamsSchema = z
  .strictObject({
    pageId: PageIdSchema,
    frameId: FrameIdSchema.optional(),
    selector: SelectorSchema.optional(),
    url: UrlPatternSchema.optional(),
  })
  .refine((p) => [p.frameId, p.selector, p.url].filter((v) => v !== undefined).length === 1, {
    message: 'give exactly one of frameId, selector or url',
  });
export const FrameSwitchResultSchema = z.object({ frameId: z.string(), url: z.string() });

export const FrameMainParamsSchema = z.strictObject({ pageId: PageIdSchema });
export const FrameMainResultSchema = z.object({ frameId: z.string() });
