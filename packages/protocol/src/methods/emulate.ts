import { z } from 'zod';
import { PageIdSchema } from '../common.js';

export const SetViewportParamsSchema = z.strictObject({
  pageId: PageIdSchema,
  width: z.number().int().min(1).max(10_000),
  height: z.number().int().min(1).max(10_000),
  deviceScaleFactor: z.number().min(0.25).max(5).optional(),
  isMobile: z.boolean().optional(),
  hasTouch: z.boolean().optional(),
});

export const SetUserAgentParamsSchema = z.strictObject({
  pageId: PageIdSchema,
  userAgent: z.string().min(1).max(1024),
  /** navigator.platform, e.g. `Win32`. */
  platform: z.string().max(64).optional(),
  /** Accept-Language header and navigator.languages, e.g. `fr-FR,fr`. */
  acceptLanguage: z.string().max(256).optional(),
});

/** Applies to the page's whole context (geolocation is per context in the browser). */
export const SetGeolocationParamsSchema = z.strictObject({
  pageId: PageIdSchema,
  latitude: z.number().min(-90).max(90),
  longitude: z.number().min(-180).max(180),
  accuracy: z.number().min(0).optional(),
});

/** Applies to the page's whole context. */
export const SetOfflineParamsSchema = z.strictObject({ pageId: PageIdSchema, offline: z.boolean() });
