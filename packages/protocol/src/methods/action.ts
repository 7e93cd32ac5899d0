import { z } from 'zod';
import { PageIdSchema, PositionSchema, TimeoutSchema } from '../common.js';
import { SelectorSchema } from '../selectors.js';

export const ModifierSchema = z.enum(['Alt', 'Control', 'ControlOrMeta', 'Meta', 'Shift']);

export const ActionOptionsSchema = z.strictObject({
  timeout: TimeoutSchema.optional(),
  /** Skip actionability checks (visible, stable, enabled, receives events). */
  force: z.boolean().optional(),
  noWaitAfter: z.boolean().optional(),
  /** Run the actionability checks only; do not act. */
  trial: z.boolean().optional(),
});

export const ClickOptionsSchema = ActionOptionsSchema.extend({
  button: z.enum(['left', 'right', 'middle']).optional(),
  clickCount: z.number().int().min(1).max(3).optional(),
  modifiers: z.array(ModifierSchema).max(5).optional(),
  position: PositionSchema.optional(),
  delay: z.number().int().min(0).max(10_000).optional(),
});

export const TypeOptionsSchema = ActionOptionsSchema.extend({
  delay: z.number().int().min(0).max(1_000).optional(),
  /** Clear the field before typing. */
  clear: z.boolean().optional(),
});

export const PressOptionsSchema = ActionOptionsSchema.extend({
  delay: z.number().int().min(0).max(10_000).optional(),
});

export const HoverOptionsSchema = ActionOptionsSchema.extend({
  position: PositionSchema.optional(),
  modifiers: z.array(ModifierSchema).max(5).optional(),
});

export const ScrollOptionsSchema = ActionOptionsSchema.extend({
  direction: z.enum(['up', 'down', 'left', 'right']).optional(),
  /** Pixels, one viewport (`page`), or just enough to bring the selector into view (`toElement`). */
  amount: z.union([z.number().finite().min(0).max(1_000_000), z.enum(['page', 'toElement'])]).optional(),
});

const base = { pageId: PageIdSchema, selector: SelectorSchema };
const longText = z.string().max(1_000_000);

export const ClickParamsSchema = z.strictObject({ ...base, options: ClickOptionsSchema.optional() });
export const TypeParamsSchema = z.strictObject({ ...base, text: longText, options: TypeOptionsSchema.optional() });
export const FillParamsSchema = z.strictObject({ ...base, value: longText, options: ActionOptionsSchema.optional() });
export const ElementActionParamsSchema = z.strictObject({ ...base, options: ActionOptionsSchema.optional() });
export const PressParamsSchema = z.strictObject({
  pageId: PageIdSchema,
  /** A key or chord in Playwright's notation: `Enter`, `Control+a`, `Shift+ArrowLeft`. */
  key: z.string().min(1).max(100),
  /** Element to focus first; omitted → the key goes to whatever has focus. */
  selector: SelectorSchema.optional(),
  options: PressOptionsSchema.optional(),
});
export const HoverParamsSchema = z.strictObject({ ...base, options: HoverOptionsSchema.optional() });
export const ScrollParamsSchema = z.strictObject({
  pageId: PageIdSchema,
  /** Element to scroll (or to bring into view); omitted → the page. */
  selector: SelectorSchema.optional(),
  options: ScrollOptionsSchema.optional(),
});
export const ScrollResultSchema = z.object({ scrollX: z.number(), scrollY: z.number() });
export const SelectParamsSchema = z.strictObject({
  ...base,
  /** Option values or labels. */
  values: z.union([z.string().max(10_000), z.array(z.string().max(10_000)).max(1_000)]),
  options: ActionOptionsSchema.optional(),
});
export const SelectResultSchema = z.object({ selected: z.array(z.string()) });
export const DragParamsSchema = z.strictObject({
  pageId: PageIdSchema,
  source: SelectorSchema,
  /** An element, or a point in viewport coordinates. */
  target: z.union([SelectorSchema, PositionSchema]),
  options: ActionOptionsSchema.optional(),
});
