import { z } from 'zod';
import { PageIdSchema } from '../common.js';

export const WebMCPToolSchema = z.object({
  name: z.string(),
  description: z.string().optional(),
  inputSchema: z.record(z.string(), z.unknown()).optional(),
  /** `webmcp-declarative`: a `<form toolname>`; `webmcp-imperative`: `navigator.modelContext.registerTool()`. */
  source: z.enum(['webmcp-declarative', 'webmcp-imperative']),
  formSelector: z.string().optional(),
});
export type WebMCPTool = z.infer<typeof WebMCPToolSchema>;

export const DiscoverParamsSchema = z.strictObject({
  pageId: PageIdSchema,
  options: z
    .strictObject({
      maxTools: z.number().int().min(1).max(1_000).optional(),
      includeInputSchemas: z.boolean().optional(),
    })
    .optional(),
});
export const DiscoverResultSchema = z.object({
  tools: z.array(WebMCPToolSchema),
  totalDiscovered: z.number().int(),
  apiVersion: z.string().optional(),
});
