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
  sessionId: z.string().min(1).max(128).optional(),
});
export type InitializeParams = z.infer<typeof InitializeParamsSchema>;

export const ServerLimitsSchema = z.object({
  maxMessageBytes: z.number().int(),
  maxBatchSize: z.number().int(),
  maxPages: z.number().int(),
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
  sessionId: z.string().optional(),
});
export type InitializeResult = z.infer<typeof InitializeResultSchema>;

export const ShutdownParamsSchema = z.strictObject({
  saveState: z.boolean().optional(),
  closePages: z.boolean().optional(),
});

/** Replaces the connection's subscriptions: `{events: []}` unsubscribes from everything. */
export const SubscribeParamsSchema = z.strictObject({ events: z.array(EventTypeSchema).max(16) });
export const SubscribeResultSchema = z.object({
  /** The events this connection will now receive. */
  subscribed: z.array(EventTypeSchema),
  /** Requested events this server does not emit yet. */
  unavailable: z.array(EventTypeSchema),
});
