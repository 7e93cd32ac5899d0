import { z } from 'zod';
import { ErrorObjectSchema } from '../errors.js';

/** Added to the params of every method whose large result can stream. */
export const StreamOptionsShape = {
  /** Answer with `{streamId, totalSize, contentType}` and send the payload as stream/chunk notifications. */
  stream: z.boolean().optional(),
  /** Bytes per chunk before base64 (default 65,536). */
  chunkSize: z
    .number()
    .int()
    .min(1_024)
    .max(1_048_576)
    .optional(),
};

export const StreamStartResultSchema = z.object({
  streamId: z.string(),
  totalSize: z.number().int(),
  contentType: z.string(),
  chunkSize: z.number().int(),
});
export type StreamStartResult = z.infer<typeof StreamStartResultSchema>;

export const StreamCancelParamsSchema = z.strictObject({ streamId: z.string().min(1).max(100) });
export const StreamCancelResultSchema = z.object({ cancelled: z.boolean() });

export const StreamChunkSchema = z.object({
  streamId: z.string(),
  /** 0-based, in order. */
  index: z.number().int(),
  /** This chunk's bytes, base64. */
  data: z.string(),
  offset: z.number().int(),
  size: z.number().int(),
});
export const StreamEndSchema = z.object({
  streamId: z.string(),
  totalChunks: z.number().int(),
  totalSize: z.number().int(),
  /** SHA-256 of the whole payload, hex. */
  checksum: z.string(),
});
export const StreamErrorSchema = z.object({ streamId: z.string(), error: ErrorObjectSchema });
export type StreamChunk = z.infer<typeof StreamChunkSchema>;
export type StreamEnd = z.infer<typeof StreamEndSchema>;
export type StreamErrorEvent = z.infer<typeof StreamErrorSchema>;
