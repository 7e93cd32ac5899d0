import { z } from 'zod';

export const PageEventSchema = z.object({
  type: z.enum(['created', 'navigated', 'domcontentloaded', 'load', 'error', 'close']),
  pageId: z.string(),
  url: z.string().optional(),
  error: z.string().optional(),
  timestamp: z.number(),
});
export type PageEvent = z.infer<typeof PageEventSchema>;

export const ConsoleEventSchema = z.object({
  pageId: z.string(),
  level: z.enum(['log', 'debug', 'info', 'warn', 'error']),
  text: z.string(),
  url: z.string().optional(),
  line: z.number().int().optional(),
  column: z.number().int().optional(),
  timestamp: z.number(),
});
export type ConsoleEvent = z.infer<typeof ConsoleEventSchema>;

/** Server → client notifications, by method name. */
export const notifications = {
  'events/page': PageEventSchema,
  'events/console': ConsoleEventSchema,
} as const;
export type NotificationName = keyof typeof notifications;
export type NotificationParams<N extends NotificationName> = z.infer<(typeof notifications)[N]>;
