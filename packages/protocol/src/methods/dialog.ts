import { z } from 'zod';
import { PageIdSchema, TimeoutSchema } from '../common.js';

export const DialogTypeSchema = z.enum(['alert', 'confirm', 'prompt', 'beforeunload']);

export const DialogInfoSchema = z.object({
  type: DialogTypeSchema,
  message: z.string(),
  defaultValue: z.string().optional(),
});

export const DialogHandleParamsSchema = z.strictObject({
  pageId: PageIdSchema,
  action: z.enum(['accept', 'dismiss']),
  /** Text typed into a prompt before accepting. */
  promptText: z.string().max(100_000).optional(),
  /**
   * With no dialog open, the answer is armed for the next one the page opens, for this long
   * (ms, default and maximum 120,000). A later dialog/handle replaces the armed answer.
   */
  timeout: z.number().int().min(1).max(120_000).optional(),
});
export const DialogHandleResultSchema = z.object({
  /** `handled`: an open dialog was answered; `armed`: the answer waits for the next dialog. */
  status: z.enum(['handled', 'armed']),
  dialog: DialogInfoSchema.optional(),
});

export const DialogPolicySchema = z.enum(['dismiss', 'accept', 'queue']);

export const DialogSetPolicyParamsSchema = z.strictObject({
  pageId: PageIdSchema,
  /**
   * What happens to a dialog nothing is armed for: `dismiss` (default) or `accept` at once, or
   * `queue` it for dialog/handle, answered by dismissal after `timeout` so the page never freezes.
   */
  policy: DialogPolicySchema,
  timeout: TimeoutSchema.optional(),
});
