import { z } from 'zod';
import { ApprovalRequiredSchema } from './methods/approval.js';
import { DialogInfoSchema } from './methods/dialog.js';
import { DownloadInfoSchema } from './methods/files.js';
import { HttpMethodSchema, ResourceTypeSchema } from './methods/network.js';
import { StreamChunkSchema, StreamEndSchema, StreamErrorSchema } from './methods/stream.js';

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

const Headers = z.record(z.string(), z.string());

/** Request, response and failure of one request share its `requestId`. */
export const NetworkEventSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('request'),
    requestId: z.string(),
    pageId: z.string(),
    url: z.string(),
    method: z.union([HttpMethodSchema, z.string()]),
    resourceType: z.union([ResourceTypeSchema, z.string()]),
    headers: Headers,
    postData: z.string().optional(),
    /** The request is paused for network/fulfill, network/abort or network/continue. */
    intercepted: z.boolean().optional(),
    timestamp: z.number(),
  }),
  z.object({
    type: z.literal('response'),
    requestId: z.string(),
    pageId: z.string(),
    url: z.string(),
    status: z.number().int(),
    resourceType: z.string(),
    headers: Headers,
    /** Milliseconds spent in each phase; -1 when a phase did not happen (e.g. a reused connection). */
    timing: z
      .object({ dnsLookup: z.number(), connect: z.number(), ssl: z.number(), ttfb: z.number(), download: z.number() })
      .optional(),
    /** Whether the response came from network/fulfill or an intercept rule. */
    fulfilled: z.boolean().optional(),
    timestamp: z.number(),
  }),
  z.object({
    type: z.literal('failed'),
    requestId: z.string(),
    pageId: z.string(),
    url: z.string(),
    resourceType: z.string(),
    error: z.string(),
    /** Set when the server refused the request (an intercept rule or network/abort). */
    blocked: z.boolean().optional(),
    timestamp: z.number(),
  }),
]);
export type NetworkEvent = z.infer<typeof NetworkEventSchema>;

export const DialogEventSchema = DialogInfoSchema.extend({
  pageId: z.string(),
  /** What became of it: answered at once (by policy or an armed dialog/handle) or queued. */
  outcome: z.enum(['accepted', 'dismissed', 'queued']),
  /** Who decided: `policy`, `armed` (a dialog/handle sent before), or `timeout` (a queued dialog expired). */
  by: z.enum(['policy', 'armed', 'timeout']).optional(),
  timestamp: z.number(),
});
export type DialogEvent = z.infer<typeof DialogEventSchema>;

/** A download's state as download/list reports it, at the moment it changed. */
export const DownloadEventSchema = DownloadInfoSchema.extend({ timestamp: z.number() });
export type DownloadEvent = z.infer<typeof DownloadEventSchema>;

export const EventsDroppedSchema = z.object({
  pageId: z.string(),
  /** Events of this page not sent since the last such notification. */
  dropped: z.number().int(),
  /** The budget: events per second per page. */
  limit: z.number().int(),
  timestamp: z.number(),
});

/** Server → client notifications, by method name. */
export const notifications = {
  'events/page': PageEventSchema,
  'events/console': ConsoleEventSchema,
  'events/network': NetworkEventSchema,
  'events/dialog': DialogEventSchema,
  'events/download': DownloadEventSchema,
  /** Stream notifications go to the connection that asked for the stream, whatever it subscribed to. */
  'stream/chunk': StreamChunkSchema,
  'stream/end': StreamEndSchema,
  'stream/error': StreamErrorSchema,
  /** A request waits for a human: answer with approval/respond. Always sent, whatever the subscription. */
  'approval/required': ApprovalRequiredSchema,
  /** A per-page event budget was exceeded: `dropped` events of that page were not sent. Always sent. */
  'limit/eventsDropped': EventsDroppedSchema,
} as const;
export type NotificationName = keyof typeof notifications;
/** The notifications events/subscribe chooses (stream notifications always reach their connection). */
export type EventNotificationName = Extract<NotificationName, `events/${string}`>;
export type NotificationParams<N extends NotificationName> = z.infer<(typeof notifications)[N]>;
