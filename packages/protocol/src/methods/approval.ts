import { z } from 'zod';
import { BoundingBoxSchema } from '../common.js';

export const ApprovalDecisionSchema = z.enum(['approve', 'deny', 'approve-once', 'approve-session']);
export type ApprovalDecision = z.infer<typeof ApprovalDecisionSchema>;

export const ApprovalRespondParamsSchema = z.strictObject({
  /** The `requestId` of an approval/required notification. */
  requestId: z.string().min(1).max(100),
  /**
   * `approve` and `approve-once` let this request run; `approve-session` also lets every later
   * request matching the same rule run for the rest of the session; `deny` refuses it.
   */
  decision: ApprovalDecisionSchema,
  /** Why; written to the audit log and, on deny, into the ApprovalDenied error. */
  reason: z.string().max(1_000).optional(),
});
export type ApprovalRespondParams = z.infer<typeof ApprovalRespondParamsSchema>;

export const ApprovalRespondResultSchema = z.object({
  /** False when the request is unknown, already decided or expired. */
  acknowledged: z.boolean(),
});

/** Sent to the session's connection when a request waits for a human decision. */
export const ApprovalRequiredSchema = z.object({
  /** Unguessable; answer with approval/respond {requestId, decision}. */
  requestId: z.string(),
  /** The request waiting, its params redacted (secrets and sensitive values masked). */
  originalRequest: z.object({ method: z.string(), params: z.record(z.string(), z.unknown()) }),
  /** The rule that asked for approval. */
  rule: z.string(),
  context: z.object({
    pageUrl: z.string(),
    pageTitle: z.string(),
    /** Base64 PNG of the viewport, when the server is configured with includeScreenshot. */
    screenshot: z.string().optional(),
    /** The element the request targets, when it has one. */
    elementInfo: z.object({ role: z.string(), name: z.string(), bounds: BoundingBoxSchema.optional() }).optional(),
  }),
  /** Unix time in ms after which the request fails with ApprovalTimeout. */
  expiresAt: z.number(),
});
export type ApprovalRequired = z.infer<typeof ApprovalRequiredSchema>;
