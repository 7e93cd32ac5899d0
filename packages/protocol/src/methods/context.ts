import { z } from 'zod';
import { ViewportSchema } from '../common.js';
import { StorageStateSchema } from './storage.js';

/** Context ids are chosen by clients, so they are held to a safe alphabet. */
export const ContextIdSchema = z
  .string()
  .regex(/^[a-zA-Z0-9-]{1,64}$/, 'letters, digits and hyphens only, 1 to 64 characters');

function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

export const GeolocationSchema = z.strictObject({
  latitude: z.number().min(-90).max(90),
  longitude: z.number().min(-180).max(180),
  accuracy: z.number().min(0).optional(),
});
export type Geolocation = z.infer<typeof GeolocationSchema>;

export const ColorSchemeSchema = z.enum(['light', 'dark', 'no-preference']);

export const ContextOptionsSchema = z.strictObject({
  /** Cookies and localStorage to start from (the shape storage/getState returns). */
  storageState: StorageStateSchema.optional(),
  viewport: ViewportSchema.optional(),
  userAgent: z.string().min(1).max(1024).optional(),
  /** BCP 47 tag such as `fr-FR`: navigator.language, Accept-Language, number and date formats. */
  locale: z.string().min(2).max(35).optional(),
  /** IANA zone such as `Europe/Paris`. */
  timezoneId: z.string().min(1).max(64).refine(isTimeZone, 'not a known IANA time zone such as "Europe/Paris"').optional(),
  geolocation: GeolocationSchema.optional(),
  /** Permissions granted to every origin, e.g. `geolocation`, `notifications`, `clipboard-read`. */
  permissions: z.array(z.string().min(1).max(64)).max(32).optional(),
  colorScheme: ColorSchemeSchema.optional(),
  offline: z.boolean().optional(),
  deviceScaleFactor: z.number().min(0.25).max(5).optional(),
  isMobile: z.boolean().optional(),
  hasTouch: z.boolean().optional(),
  /** Headers sent with every request of the context. */
  extraHTTPHeaders: z.record(z.string().min(1).max(256), z.string().max(8192)).optional(),
});
export type ContextOptions = z.infer<typeof ContextOptionsSchema>;

export const ContextCreateParamsSchema = z.strictObject({
  /** Your id for the context; generated (`ctx-…`) when omitted. */
  contextId: ContextIdSchema.optional(),
  options: ContextOptionsSchema.optional(),
});
export const ContextCreateResultSchema = z.object({ contextId: z.string() });

export const ContextInfoSchema = z.object({
  id: z.string(),
  pageCount: z.number().int(),
  /** Creation time, ms since the epoch. */
  created: z.number(),
  /** True for the context pages go to when no contextId is given. */
  isDefault: z.boolean(),
  /** The creation options, without storageState (which may hold credentials). */
  options: ContextOptionsSchema.omit({ storageState: true }).optional(),
});
export type ContextInfo = z.infer<typeof ContextInfoSchema>;

export const ContextListResultSchema = z.object({
  contexts: z.array(ContextInfoSchema),
  limits: z.object({
    maxContexts: z.number().int(),
    maxPagesPerContext: z.number().int(),
    currentCount: z.number().int(),
  }),
});

export const ContextDestroyParamsSchema = z.strictObject({ contextId: ContextIdSchema });
export const ContextDestroyResultSchema = z.object({ pagesDestroyed: z.number().int() });
