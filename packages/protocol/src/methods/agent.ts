import { z } from 'zod';
import { BoundingBoxSchema, PageIdSchema, TimeoutSchema } from '../common.js';
import { ErrorObjectSchema } from '../errors.js';
import { SelectorSchema } from '../selectors.js';
import { AnnotateOptionsSchema, AnnotationSchema } from './annotate.js';
import { DialogInfoSchema } from './dialog.js';
import { ScreenshotResultSchema } from './observe.js';

export const ResponseTierSchema = z.enum(['full', 'interactive', 'minimal']);

export const AgentObserveParamsSchema = z.strictObject({
  pageId: PageIdSchema,
  /**
   * `interactive` (default): metadata and one compact line per interactive element.
   * `full`: also the AI snapshot, and elements as objects with selector, bounds and hints.
   * `minimal`: metadata and element lines without values or states.
   */
  responseTier: ResponseTierSchema.optional(),
  includeMetadata: z.boolean().optional(),
  /** The AI snapshot (YAML); default only in the full tier. */
  includeAccessibility: z.boolean().optional(),
  includeInteractiveElements: z.boolean().optional(),
  includeScreenshot: z.boolean().optional(),
  /** A set-of-marks screenshot; implies includeScreenshot. */
  annotateScreenshot: z.union([z.boolean(), AnnotateOptionsSchema]).optional(),
  /** At most this many elements, in document order. */
  maxElements: z.number().int().min(1).max(100_000).optional(),
  /** Only elements with these roles. */
  filterRoles: z.array(z.string().min(1).max(40)).max(50).optional(),
  /** Only elements at least partly inside the viewport. */
  viewportOnly: z.boolean().optional(),
  /** Element bounds; default only in the full tier. */
  includeBounds: z.boolean().optional(),
  /** Accepted for compatibility: refs are always stable while their element keeps its role and name. */
  stableRefs: z.boolean().optional(),
  /** Accepted for compatibility: every observation refreshes the page's refs. */
  refreshRefs: z.boolean().optional(),
  /** Only what was added, changed or removed since the last observation of this page. */
  incremental: z.boolean().optional(),
  /** Cap on the result's characters (default 40,000); a cut result carries a cursor. */
  maxChars: z.number().int().min(500).max(5_000_000).optional(),
  /** The same cap in tokens (estimated as characters / 4). */
  maxTokens: z.number().int().min(125).max(1_250_000).optional(),
  /** Continue a cut observation where it stopped; the other options are taken from the first call. */
  cursor: z.string().min(1).max(200).optional(),
});
export type AgentObserveParams = z.infer<typeof AgentObserveParamsSchema>;

export const ActionHintSchema = z.enum(['click', 'fill', 'type', 'check', 'select', 'expand', 'drag', 'upload', 'scroll']);

export const InteractiveElementSchema = z.object({
  ref: z.string(),
  /** A resilient fallback when the ref has gone stale (role and accessible name). */
  selector: SelectorSchema,
  role: z.string(),
  name: z.string(),
  /** Current value of a field; secret fields are blanked. */
  value: z.string().optional(),
  checked: z.union([z.boolean(), z.literal('mixed')]).optional(),
  expanded: z.boolean().optional(),
  selected: z.boolean().optional(),
  url: z.string().optional(),
  actionHints: z.array(ActionHintSchema),
  bounds: BoundingBoxSchema.optional(),
  focused: z.boolean().optional(),
  disabled: z.boolean().optional(),
});
export type InteractiveElement = z.infer<typeof InteractiveElementSchema>;

export const ObservationMetadataSchema = z.object({
  pageId: z.string(),
  contextId: z.string(),
  url: z.string(),
  title: z.string(),
  /** The frame observations and selectors use (`main` unless frame/switch moved it). */
  frameId: z.string(),
  /** Child frames of the page. */
  frameCount: z.number().int(),
  viewport: z.object({ width: z.number(), height: z.number() }).nullable(),
  scroll: z.object({ x: z.number(), y: z.number(), width: z.number(), height: z.number() }),
  /** The focused element, when it has a ref. */
  focused: z.object({ ref: z.string(), role: z.string(), name: z.string() }).nullable(),
  /** Dialogs waiting for dialog/handle (policy `queue`). */
  dialogs: z.array(DialogInfoSchema),
});

export const ObservationChangesSchema = z.object({
  /** Element lines (interactive tier format) that are new. */
  added: z.string(),
  /** Element lines whose value or state changed. */
  changed: z.string(),
  removed: z.array(z.string()),
});

export const AgentObserveResultSchema = z.object({
  metadata: ObservationMetadataSchema.optional(),
  /** The AI snapshot (YAML). */
  snapshot: z.string().optional(),
  /** One line per element: `@e5 button "Sign in" [disabled]`, `@e6 textbox "Email" = "a@b.c"`. */
  elements: z.string().optional(),
  /** The full tier's elements as objects. */
  interactiveElements: z.array(InteractiveElementSchema).optional(),
  /** Elements that matched, before maxElements and the character budget. */
  elementCount: z.number().int(),
  /** Set with `incremental`: what changed since the previous observation of the page. */
  changes: ObservationChangesSchema.optional(),
  screenshot: ScreenshotResultSchema.optional(),
  annotations: z.array(AnnotationSchema).optional(),
  /** The result was cut to the budget; pass `cursor` to get the rest. */
  truncated: z.boolean(),
  cursor: z.string().optional(),
});
export type AgentObserveResult = z.infer<typeof AgentObserveResultSchema>;

export const ElementStateSchema = z.enum(['visible', 'enabled', 'exists', 'hidden', 'disabled']);

/** What every agent/act step carries besides its `action` and `params`. */
export const ActStepShape = {
  label: z.string().max(200).optional(),
  /** Wait for this before running the step. */
  condition: z
    .strictObject({ selector: SelectorSchema, state: ElementStateSchema, timeout: TimeoutSchema.optional() })
    .optional(),
  /** Default: `stop` when stopOnFirstError (the default), else `skip`. */
  onError: z.enum(['stop', 'skip', 'retry']).optional(),
  /** With onError `retry` (default 3). */
  maxRetries: z.number().int().min(1).max(5).optional(),
  /** Milliseconds between retries (default 500). */
  retryDelay: z.number().int().min(100).max(5_000).optional(),
};

const ObserveOption = z.union([z.boolean(), AgentObserveParamsSchema.omit({ pageId: true, cursor: true })]).optional();

/** Everything of agent/act but its steps, which the method table builds from its action and page methods. */
export const ActOptionsShape = {
  pageId: PageIdSchema,
  stopOnFirstError: z.boolean().optional(),
  /** A step whose condition fails is skipped instead of failing. */
  continueOnConditionFail: z.boolean().optional(),
  /** Milliseconds for the whole sequence (default 120,000). */
  timeout: TimeoutSchema.optional(),
  /** Observe the page before the first step (true, or agent/observe options). */
  preObserve: ObserveOption,
  postObserve: ObserveOption,
};

export const ActStepResultSchema = z.object({
  step: z.number().int(),
  label: z.string().optional(),
  action: z.string(),
  success: z.boolean(),
  /** Not run: an earlier failure stopped the sequence, or its condition failed with continueOnConditionFail. */
  skipped: z.boolean().optional(),
  result: z.unknown().optional(),
  error: ErrorObjectSchema.optional(),
  duration: z.number(),
  retries: z.number().int(),
});

export const AgentActResultSchema = z.object({
  /** Steps that succeeded. */
  completed: z.number().int(),
  total: z.number().int(),
  success: z.boolean(),
  results: z.array(ActStepResultSchema),
  duration: z.number(),
  /** Index of the step that stopped the sequence. */
  failedAt: z.number().int().optional(),
  preObservation: AgentObserveResultSchema.optional(),
  postObservation: AgentObserveResultSchema.optional(),
});
export type AgentActResult = z.infer<typeof AgentActResultSchema>;

/** A JSON Schema: an object, validated as a schema (ajv) when the call runs. */
const JsonSchemaObject = z.record(z.string(), z.unknown());

export const AgentExtractParamsSchema = z.strictObject({
  pageId: PageIdSchema,
  /**
   * The shape to return. Properties may carry `x-selector` (a CSS selector, relative to the
   * item for arrays of objects) to say where their value is.
   */
  schema: JsonSchemaObject,
  /** Extract only inside this element. */
  selector: SelectorSchema.optional(),
  /** Words that pick between candidate tables, lists or sections (e.g. "the pricing table"). */
  instruction: z.string().max(2_000).optional(),
  /** Cap on array items (default 500). */
  maxItems: z.number().int().min(1).max(10_000).optional(),
  timeout: TimeoutSchema.optional(),
});

export const ExtractSourceSchema = z.object({
  /** JSON Pointer into `data`. */
  path: z.string(),
  /** The element the value was read from; absent for page metadata (title, OpenGraph, JSON-LD). */
  ref: z.string().optional(),
  /** `table`, `list`, `form`, `definitions`, `section`, `links`, `metadata`, `json-ld`, `opengraph`, `selector`. */
  from: z.string(),
});

export const AgentExtractResultSchema = z.object({
  /** Valid against the schema (checked with ajv before replying). */
  data: z.unknown(),
  sources: z.array(ExtractSourceSchema),
  url: z.string(),
});
