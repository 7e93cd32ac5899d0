import { z } from 'zod';
import { PageIdSchema } from '../common.js';

const target = { contextId: z.string().min(1).max(64).optional(), pageId: PageIdSchema };

export const TraceStartParamsSchema = z.strictObject({
  ...target,
  /** Title shown in the trace viewer. */
  name: z.string().max(200).optional(),
  /** Screenshots for the filmstrip (default true). */
  screenshots: z.boolean().optional(),
  /** DOM snapshots for every action (default true). */
  snapshots: z.boolean().optional(),
  sources: z.boolean().optional(),
});
export const TraceStopParamsSchema = z.strictObject(target);
export const TraceStopResultSchema = z.object({
  /** The trace zip, base64; open it with `npx playwright show-trace trace.zip`. */
  data: z.string(),
  size: z.number().int(),
  contentType: z.literal('application/zip'),
});
