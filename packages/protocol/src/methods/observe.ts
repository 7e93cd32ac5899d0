import { z } from 'zod';
import { BoundingBoxSchema, PageIdSchema, TimeoutSchema } from '../common.js';
import { SelectorSchema } from '../selectors.js';
import { AnnotateOptionsSchema, AnnotationSchema } from './annotate.js';
import { StreamOptionsShape } from './stream.js';

export const ScreenshotParamsSchema = z.strictObject({
  pageId: PageIdSchema,
  /** Capture just this element. */
  selector: SelectorSchema.optional(),
  options: z
    .strictObject({
      fullPage: z.boolean().optional(),
      clip: z
        .strictObject({
          x: z.number().finite().min(0),
          y: z.number().finite().min(0),
          width: z.number().finite().positive().max(30_000),
          height: z.number().finite().positive().max(30_000),
        })
        .optional(),
      format: z.enum(['png', 'jpeg', 'webp']).optional(),
      quality: z.number().int().min(0).max(100).optional(),
      scale: z.enum(['css', 'device']).optional(),
      /** Elements painted over with a solid box. */
      mask: z.array(SelectorSchema).max(100).optional(),
      /**
       * Paint over password and card fields (`input[type=password]`, and inputs whose
       * `autocomplete` names a password or starts with `cc-`) in every frame, as `mask` does.
       * Default true; false shows them as the page does.
       */
      maskSensitive: z.boolean().optional(),
      omitBackground: z.boolean().optional(),
      /** Draw set-of-marks labels over interactive elements (the page itself is not touched). */
      annotate: AnnotateOptionsSchema.optional(),
      timeout: TimeoutSchema.optional(),
    })
    .optional(),
  ...StreamOptionsShape,
});
export const ScreenshotResultSchema = z.object({
  data: z.string(),
  format: z.enum(['png', 'jpeg', 'webp']),
  width: z.number().int(),
  height: z.number().int(),
  /** With `options.annotate`: what each label stands for. */
  annotations: z.array(AnnotationSchema).optional(),
});
export type ScreenshotResult = z.infer<typeof ScreenshotResultSchema>;

/** One node of the accessibility tree; text fragments are `{role: "text", name}`. */
export const AccessibilityNodeSchema = z.object({
  role: z.string(),
  name: z.string().optional(),
  ref: z.string().optional(),
  /** The value of a text box, or the text of an element whose only child is text. */
  text: z.string().optional(),
  checked: z.union([z.boolean(), z.literal('mixed')]).optional(),
  disabled: z.boolean().optional(),
  expanded: z.boolean().optional(),
  focused: z.boolean().optional(),
  selected: z.boolean().optional(),
  pressed: z.union([z.boolean(), z.literal('mixed')]).optional(),
  level: z.number().int().optional(),
  url: z.string().optional(),
  placeholder: z.string().optional(),
  clickable: z.boolean().optional(),
  boundingBox: BoundingBoxSchema.optional(),
  get children(): z.ZodOptional<z.ZodArray<typeof AccessibilityNodeSchema>> {
    return z.array(AccessibilityNodeSchema).optional();
  },
});
export type AccessibilityNode = z.infer<typeof AccessibilityNodeSchema>;

const SnapshotOptionsSchema = z.strictObject({
  /** Limit the depth of the tree. */
  depth: z.number().int().min(0).max(1_000).optional(),
  /** Add each element's bounding box (`[box=x,y,w,h]`). */
  boxes: z.boolean().optional(),
  timeout: TimeoutSchema.optional(),
});

export const AriaSnapshotParamsSchema = z.strictObject({
  pageId: PageIdSchema,
  /** Snapshot only this element's subtree (refs of the rest of the page stay valid). */
  selector: SelectorSchema.optional(),
  options: SnapshotOptionsSchema.extend({
    includeTree: z.boolean().optional(),
    /** False: print no `[ref=…]` or `[cursor=pointer]` marks, as Playwright's plain ARIA snapshot (refs are still assigned). Default true. */
    refs: z.boolean().optional(),
  }).optional(),
  ...StreamOptionsShape,
});

export const AccessibilityParamsSchema = z.strictObject({
  pageId: PageIdSchema,
  options: SnapshotOptionsSchema.extend({
    root: SelectorSchema.optional(),
    /** Published name of `depth`. */
    maxDepth: z.number().int().min(0).max(1_000).optional(),
    /** Accepted for compatibility; the AI snapshot always omits what is hidden from users. */
    interestingOnly: z.boolean().optional(),
  }).optional(),
});

export const SnapshotResultSchema = z.object({
  pageId: z.string(),
  url: z.string(),
  title: z.string(),
  /** Playwright's AI snapshot (YAML) with refs shown as `[ref=@e5]`. */
  snapshot: z.string(),
  tree: AccessibilityNodeSchema.optional(),
  refCount: z.number().int(),
});
export type SnapshotResult = z.infer<typeof SnapshotResultSchema>;

export const DomParamsSchema = z.strictObject({
  pageId: PageIdSchema,
  options: z
    .strictObject({
      root: SelectorSchema.optional(),
      /** Cut `html` after this many characters (default 1,000,000). */
      maxLength: z.number().int().min(1).max(50_000_000).optional(),
    })
    .optional(),
  ...StreamOptionsShape,
});
export const DomResultSchema = z.object({
  html: z.string(),
  text: z.string(),
  url: z.string(),
  title: z.string(),
  truncated: z.boolean(),
});

export const ElementPropertySchema = z.enum([
  'visible',
  'enabled',
  'checked',
  'focused',
  'text',
  'value',
  'boundingBox',
  'attributes',
  'computedStyle',
  'role',
  'name',
  'tagName',
]);
export type ElementProperty = z.infer<typeof ElementPropertySchema>;

export const ElementParamsSchema = z.strictObject({
  pageId: PageIdSchema,
  selector: SelectorSchema,
  /** Defaults to everything but `attributes` and `computedStyle`. */
  properties: z.array(ElementPropertySchema).max(20).optional(),
});
export const ElementResultSchema = z.object({
  found: z.boolean(),
  /** How many elements the selector matched; properties describe the first. */
  count: z.number().int(),
  visible: z.boolean().optional(),
  enabled: z.boolean().optional(),
  checked: z.union([z.boolean(), z.literal('mixed')]).nullable().optional(),
  focused: z.boolean().optional(),
  text: z.string().optional(),
  value: z.string().nullable().optional(),
  boundingBox: BoundingBoxSchema.nullable().optional(),
  attributes: z.record(z.string(), z.string()).optional(),
  computedStyle: z.record(z.string(), z.string()).optional(),
  role: z.string().optional(),
  name: z.string().optional(),
  tagName: z.string().optional(),
});

export const ContentParamsSchema = z.strictObject({
  pageId: PageIdSchema,
  format: z.enum(['text', 'markdown', 'html']).optional(),
  selector: SelectorSchema.optional(),
  /** Cut the content after this many characters (default 1,000,000). */
  maxLength: z.number().int().min(1).max(50_000_000).optional(),
  ...StreamOptionsShape,
});
export const ContentResultSchema = z.object({
  content: z.string(),
  format: z.enum(['text', 'markdown', 'html']),
  url: z.string(),
  title: z.string(),
  truncated: z.boolean(),
});

const PdfLength = z.union([z.number().min(0), z.string().regex(/^\d+(\.\d+)?(px|in|cm|mm)$/, 'a length such as "1cm"')]);

export const PdfParamsSchema = z.strictObject({
  pageId: PageIdSchema,
  options: z
    .strictObject({
      format: z.enum(['Letter', 'Legal', 'Tabloid', 'Ledger', 'A0', 'A1', 'A2', 'A3', 'A4', 'A5', 'A6']).optional(),
      landscape: z.boolean().optional(),
      scale: z.number().min(0.1).max(2).optional(),
      margin: z
        .strictObject({ top: PdfLength.optional(), right: PdfLength.optional(), bottom: PdfLength.optional(), left: PdfLength.optional() })
        .optional(),
      printBackground: z.boolean().optional(),
      /** e.g. `1-3, 5`. */
      pageRanges: z.string().max(200).optional(),
      /** Print with the screen stylesheet instead of the print one. */
      screenMedia: z.boolean().optional(),
    })
    .optional(),
  ...StreamOptionsShape,
});
export const PdfResultSchema = z.object({
  /** The PDF, base64. */
  data: z.string(),
  size: z.number().int(),
});

export const ConsoleLevelSchema = z.enum(['debug', 'log', 'info', 'warn', 'error']);

/** The console messages a page has logged, kept by the server (the last 1,000 per page). */
export const ConsoleParamsSchema = z.strictObject({
  pageId: PageIdSchema,
  /** Only messages at least this severe: debug < log = info < warn < error. */
  level: ConsoleLevelSchema.optional(),
});
export const ConsoleMessageSchema = z.object({
  level: ConsoleLevelSchema,
  text: z.string(),
  url: z.string().optional(),
  line: z.number().int().optional(),
  column: z.number().int().optional(),
  timestamp: z.number(),
});
export const ConsoleResultSchema = z.object({
  pageId: z.string(),
  /** Oldest first. */
  messages: z.array(ConsoleMessageSchema),
  /** Older messages no longer kept (beyond the last 1,000). */
  dropped: z.number().int(),
});
export type ConsoleMessage = z.infer<typeof ConsoleMessageSchema>;
