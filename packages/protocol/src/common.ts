import { z } from 'zod';

/** `pageId` omitted or `null` means the connection's active page. */
export const PageIdSchema = z.string().min(1).max(64).nullish();

export const TimeoutSchema = z.number().int().min(0).max(300_000);

export const BoundingBoxSchema = z.object({
  x: z.number(),
  y: z.number(),
  width: z.number(),
  height: z.number(),
});
export type BoundingBox = z.infer<typeof BoundingBoxSchema>;

export const PositionSchema = z.strictObject({ x: z.number().finite(), y: z.number().finite() });
export type Position = z.infer<typeof PositionSchema>;

export const ViewportSchema = z.strictObject({
  width: z.number().int().min(1).max(10_000),
  height: z.number().int().min(1).max(10_000),
});
export type Viewport = z.infer<typeof ViewportSchema>;

export const WaitUntilSchema = z.enum(['load', 'domcontentloaded', 'networkidle', 'commit']);
export type WaitUntil = z.infer<typeof WaitUntilSchema>;

export const PageStatusSchema = z.enum(['loading', 'ready', 'error']);

export const PageInfoSchema = z.object({
  id: z.string(),
  contextId: z.string(),
  url: z.string(),
  title: z.string(),
  viewport: ViewportSchema.nullable(),
  status: PageStatusSchema,
  active: z.boolean(),
});
export type PageInfo = z.infer<typeof PageInfoSchema>;

export const EmptyParamsSchema = z.strictObject({});
export const EmptyResultSchema = z.object({});
