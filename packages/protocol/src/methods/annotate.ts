import { z } from 'zod';
import { BoundingBoxSchema } from '../common.js';

const Color = z.string().regex(/^(#[0-9a-fA-F]{3,8}|[a-zA-Z]{3,20})$/, 'a colour such as "#FFD700" or "gold"');

/** Set-of-marks: numbered badges and/or boxes over interactive elements, drawn on the image only. */
export const AnnotateOptionsSchema = z.strictObject({
  /** Default true; false takes a plain screenshot. */
  enabled: z.boolean().optional(),
  /** `marks`: a numbered badge at each element's centre; `boxes`: its outline; `both` (default). */
  style: z.enum(['marks', 'boxes', 'both']).optional(),
  filter: z
    .strictObject({
      /** Only interactive elements (default true); false also labels headings, images and other named nodes. */
      interactive: z.boolean().optional(),
      roles: z.array(z.string().min(1).max(40)).max(50).optional(),
      /** Smallest width and height, in CSS pixels, worth a label (default 10). */
      minSize: z.number().min(0).max(1_000).optional(),
      /** At most this many labels, in document order (default 50). */
      maxLabels: z.number().int().min(1).max(500).optional(),
    })
    .optional(),
  appearance: z
    .strictObject({
      /** `numeric`: 1, 2, 3 (default); `alpha`: A, B, … Z, AA. */
      labelFormat: z.enum(['numeric', 'alpha']).optional(),
      fontSize: z.number().int().min(8).max(48).optional(),
      backgroundColor: Color.optional(),
      textColor: Color.optional(),
      boxColor: Color.optional(),
      /** 0 to 1 (default 0.9). */
      opacity: z.number().min(0).max(1).optional(),
    })
    .optional(),
});
export type AnnotateOptions = z.infer<typeof AnnotateOptionsSchema>;

/** What label `[3]` stands for: click `ref` to act on the element wearing it. */
export const AnnotationSchema = z.object({
  label: z.string(),
  ref: z.string(),
  bounds: BoundingBoxSchema,
  /** Where the badge is drawn (the element's centre), in image pixels. */
  position: z.object({ x: z.number(), y: z.number() }),
  element: z.object({ role: z.string(), name: z.string() }),
});
export type Annotation = z.infer<typeof AnnotationSchema>;
