import { z } from 'zod';
import { PageIdSchema, TimeoutSchema } from '../common.js';
import { UrlPatternSchema } from './frame.js';

export const HttpMethodSchema = z.enum(['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS']);
export const ResourceTypeSchema = z.enum([
  'document', 'stylesheet', 'image', 'media', 'font', 'script', 'texttrack', 'xhr', 'fetch',
  'eventsource', 'websocket', 'manifest', 'other',
]);
export type ResourceType = z.infer<typeof ResourceTypeSchema>;

const Headers = z.record(z.string().min(1).max(256), z.string().max(16_384));

export const InterceptPatternSchema = z.strictObject({
  urlPattern: UrlPatternSchema.optional(),
  resourceType: ResourceTypeSchema.optional(),
  method: HttpMethodSchema.optional(),
});

/** Standard base64; line breaks and other whitespace are ignored. */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

export const FulfillResponseSchema = z
  .strictObject({
    status: z.number().int().min(100).max(599).optional(),
    headers: Headers.optional(),
    body: z.string().max(16 * 1024 * 1024).optional(),
    /** `base64` when body holds binary data. */
    bodyEncoding: z.enum(['utf8', 'base64']).optional(),
    contentType: z.string().max(256).optional(),
  })
  .refine((r) => r.bodyEncoding !== 'base64' || r.body === undefined || BASE64.test(r.body.replace(/\s+/g, '')), {
    path: ['body'],
    message: 'not valid base64 (bodyEncoding is "base64")',
  });

export const AbortReasonSchema = z.enum(['aborted', 'accessdenied', 'blockedbyclient', 'failed', 'timedout']);

export const NetworkInterceptParamsSchema = z.strictObject({
  /** The context whose requests are intercepted; default: the active page's context. */
  contextId: z.string().min(1).max(64).optional(),
  pageId: PageIdSchema,
  /** A request matching any pattern is intercepted. An empty list removes the context's rules. */
  patterns: z.array(InterceptPatternSchema).max(50),
  /**
   * `callback` (default): pause the request and send events/network with `intercepted: true`,
   * for network/fulfill, network/abort or network/continue; `abort`, `continue` and `respond`
   * (with `response`) decide at once.
   */
  handler: z.enum(['callback', 'abort', 'continue', 'respond']).optional(),
  response: FulfillResponseSchema.optional(),
  /** A paused request nobody answers continues after this many ms (default 30,000). */
  timeout: TimeoutSchema.optional(),
});
export const NetworkInterceptResultSchema = z.object({
  /** Id of the rule added; null when the rules were removed. */
  interceptId: z.string().nullable(),
  /** Rules now active on the context. */
  active: z.number().int(),
});

const RequestIdSchema = z.string().min(1).max(64);

export const NetworkFulfillParamsSchema = z.strictObject({ requestId: RequestIdSchema, response: FulfillResponseSchema });
export const NetworkAbortParamsSchema = z.strictObject({ requestId: RequestIdSchema, reason: AbortReasonSchema.optional() });
export const NetworkContinueParamsSchema = z.strictObject({
  requestId: RequestIdSchema,
  overrides: z
    .strictObject({
      url: z.string().min(1).max(8192).optional(),
      method: HttpMethodSchema.optional(),
      headers: Headers.optional(),
      postData: z.string().max(16 * 1024 * 1024).optional(),
    })
    .optional(),
});
