import { z } from 'zod';

/** The protocol version this package speaks. Clients compare majors (0) and warn on a lower minor. */
export const PROTOCOL_VERSION = '0.9.0';

export const EventTypeSchema = z.enum(['page', 'console', 'network', 'dialog', 'download']);
export type EventType = z.infer<typeof EventTypeSchema>;

const InfoSchema = z.object({ name: z.string().min(1).max(200), version: z.string().max(100) });

export const InitializeParamsSchema = z.strictObject({
  protocolVersion: z.string().regex(/^\d+\.\d+\.\d+([-+].*)?$/, 'a dotted version such as "0.9.0"'),
  clientInfo: InfoSchema,
  /** Unknown capability names are ignored, so newer clients can offer more than this server knows. */
  capabilities: z
    .looseObject({
      events: z.array(z.string()).optional(),
      observations: z.array(z.string()).optional(),
      actions: z.array(z.string()).optional(),
      streaming: z.boolean().optional(),
      compression: z.boolean().optional(),
    })
    .optional(),
  /**
   * Makes the session resumable under this id: after a dropped connection, an initialize with
   * the same id within the grace period gets the session's contexts, pages and subscriptions back.
   */
  sessionId: z.string().regex(/^[A-Za-z0-9_-]{16,128}$/, '16 to 128 letters, digits, "_" or "-" (use a random id)').optional(),
});
export type InitializeParams = z.infer<typeof InitializeParamsSchema>;

export const ServerLimitsSchema = z.object({
  maxMessageBytes: z.number().int(),
  maxBatchSize: z.number().int(),
  maxPages: z.number().int(),
  maxContexts: z.number().int(),
  maxPagesPerContext: z.number().int(),
  maxUploadBytes: z.number().int(),
  sessionGraceMs: z.number().int(),
  /** Streams one connection may run at once. */
  maxStreams: z.number().int(),
  maxTimeout: z.number().int(),
  defaultTimeout: z.number().int(),
});
export type ServerLimits = z.infer<typeof ServerLimitsSchema>;

export const InitializeResultSchema = z.object({
  protocolVersion: z.string(),
  serverInfo: InfoSchema,
  capabilities: z.object({
    browsers: z.array(z.string()),
    events: z.array(EventTypeSchema),
    methods: z.array(z.string()),
    features: z.object({
      refs: z.boolean(),
      batch: z.boolean(),
      semanticSelectors: z.boolean(),
      multiPage: z.boolean(),
      streaming: z.boolean(),
    }),
    limits: ServerLimitsSchema,
  }),
  /** Present when the session is resumable (the client sent a sessionId). */
  sessionId: z.string().optional(),
  /** True when an earlier session with this id was resumed. */
  resumed: z.boolean().optional(),
});
export type InitializeResult = z.infer<typeof InitializeResultSchema>;

export const ShutdownParamsSchema = z.strictObject({
  saveState: z.boolean().optional(),
  closePages: z.boolean().optional(),
});

const PageIds = z.array(z.string().min(1).max(64)).max(100);

/** Narrows one event type; every field given must match. */
export const EventFiltersSchema = z.strictObject({
  page: z.strictObject({ pageIds: PageIds.optional(), types: z.array(z.enum(['created', 'navigated', 'domcontentloaded', 'load', 'error', 'close'])).optional() }).optional(),
  console: z.strictObject({ pageIds: PageIds.optional(), levels: z.array(z.enum(['log', 'debug', 'info', 'warn', 'error'])).optional() }).optional(),
  network: z
    .strictObject({
      pageIds: PageIds.optional(),
      types: z.array(z.enum(['request', 'response', 'failed'])).optional(),
      resourceTypes: z.array(z.string().min(1).max(32)).max(20).optional(),
      /** Same pattern syntax as network/intercept. */
      urlPattern: z.string().min(1).max(2048).optional(),
    })
    .optional(),
  dialog: z.strictObject({ pageIds: PageIds.optional() }).optional(),
  download: z.strictObject({ pageIds: PageIds.optional() }).optional(),
});
export type EventFilters = z.infer<typeof EventFiltersSchema>;

/** Replaces the session's subscriptions: `{events: []}` unsubscribes from everything. */
export const SubscribeParamsSchema = z.strictObject({
  events: z.array(EventTypeSchema).max(16),
  filters: EventFiltersSchema.optional(),
});
export const SubscribeResultSchema = z.object({
  /** The events this connection will now receive. */
  subscribed: z.array(EventTypeSchema),
  /** Requested events this server does not emit yet. */
  unavailable: z.array(EventTypeSchema),
});
