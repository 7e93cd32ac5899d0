import { z } from 'zod';
import { PageIdSchema } from '../common.js';

const SameSiteSchema = z.enum(['Strict', 'Lax', 'None']);
const Url = z.string().min(1).max(8192);

/** A cookie as the browser holds it (Playwright's storageState shape). */
export const CookieSchema = z.object({
  name: z.string(),
  value: z.string(),
  domain: z.string(),
  path: z.string(),
  /** Seconds since the epoch; -1 for a session cookie. */
  expires: z.number(),
  httpOnly: z.boolean(),
  secure: z.boolean(),
  sameSite: SameSiteSchema,
});
export type Cookie = z.infer<typeof CookieSchema>;

/** A cookie to set: give `url`, or `domain` and `path`. */
export const CookieInputSchema = z
  .strictObject({
    name: z.string().min(1).max(4096),
    value: z.string().max(4096),
    url: Url.optional(),
    domain: z.string().min(1).max(253).optional(),
    path: z.string().min(1).max(4096).optional(),
    expires: z.number().optional(),
    httpOnly: z.boolean().optional(),
    secure: z.boolean().optional(),
    sameSite: SameSiteSchema.optional(),
  })
  .refine((c) => c.url !== undefined || (c.domain !== undefined && c.path !== undefined), {
    message: 'give either url, or domain and path',
  })
  .refine((c) => c.url === undefined || (c.domain === undefined && c.path === undefined), {
    message: 'url cannot be combined with domain or path',
  });

const StorageItemSchema = z.object({ name: z.string(), value: z.string() });

export const OriginStorageSchema = z.object({
  origin: z.string(),
  localStorage: z.array(StorageItemSchema),
});

/** A storageState to load: what storage/getState returns (or Playwright saves); cookie flags optional. */
export const StorageStateSchema = z.strictObject({
  cookies: z
    .array(
      z.strictObject({
        name: z.string().min(1).max(4096),
        value: z.string().max(4096),
        domain: z.string().min(1).max(253),
        path: z.string().min(1).max(4096),
        expires: z.number().optional(),
        httpOnly: z.boolean().optional(),
        secure: z.boolean().optional(),
        sameSite: SameSiteSchema.optional(),
      }),
    )
    .max(10_000),
  origins: z
    .array(
      z.strictObject({
        origin: z.string().min(1).max(2048),
        localStorage: z.array(z.strictObject({ name: z.string().max(4096), value: z.string().max(5_000_000) })).max(10_000),
      }),
    )
    .max(1000),
});
export type StorageState = z.infer<typeof StorageStateSchema>;

/**
 * Storage calls act on a context: `contextId`, else the context of `pageId`, else the active
 * page's context, else the default context.
 */
const target = { contextId: z.string().min(1).max(64).optional(), pageId: PageIdSchema };

export const StorageGetStateParamsSchema = z.strictObject(target);
export const StorageGetStateResultSchema = z.object({
  cookies: z.array(CookieSchema),
  origins: z.array(OriginStorageSchema),
});

export const StorageSetStateParamsSchema = z.strictObject({ ...target, state: StorageStateSchema });

export const StorageGetCookiesParamsSchema = z.strictObject({
  ...target,
  /** Only cookies that would be sent to these URLs; all cookies when omitted. */
  urls: z.array(Url).max(100).optional(),
});
export const StorageGetCookiesResultSchema = z.object({ cookies: z.array(CookieSchema) });

export const StorageSetCookiesParamsSchema = z.strictObject({
  ...target,
  cookies: z.array(CookieInputSchema).min(1).max(1000),
});

export const StorageClearCookiesParamsSchema = z.strictObject({
  ...target,
  /** Only cookies that would be sent to these URLs. */
  urls: z.array(Url).max(100).optional(),
  name: z.string().min(1).max(4096).optional(),
  domain: z.string().min(1).max(253).optional(),
  path: z.string().min(1).max(4096).optional(),
});
export const StorageClearCookiesResultSchema = z.object({ cleared: z.number().int() });
