import { z } from 'zod';

const text = z.string().min(1).max(10_000);

export const CssSelectorSchema = z.strictObject({ type: z.literal('css'), value: text });
export const XPathSelectorSchema = z.strictObject({ type: z.literal('xpath'), value: text });
export const TextSelectorSchema = z.strictObject({ type: z.literal('text'), value: text, exact: z.boolean().optional() });
export const LabelSelectorSchema = z.strictObject({ type: z.literal('label'), value: text, exact: z.boolean().optional() });
export const PlaceholderSelectorSchema = z.strictObject({
  type: z.literal('placeholder'),
  value: text,
  exact: z.boolean().optional(),
});
export const TestIdSelectorSchema = z.strictObject({ type: z.literal('testId'), value: text });
export const RoleSelectorSchema = z.strictObject({
  type: z.literal('role'),
  role: z.string().regex(/^[a-z]+$/, 'an ARIA role in lower case, e.g. "button"'),
  name: z.string().max(10_000).optional(),
  exact: z.boolean().optional(),
});
/** `@e5` (or `@f1e2` inside an iframe), as printed by observe/ariaSnapshot. The `@` may be omitted. */
export const RefSelectorSchema = z.strictObject({
  type: z.literal('ref'),
  ref: z.string().regex(/^@?[A-Za-z0-9_-]{1,64}$/, 'a ref such as "@e5"'),
});
export const CoordinatesSelectorSchema = z.strictObject({
  type: z.literal('coordinates'),
  x: z.number().finite().min(0),
  y: z.number().finite().min(0),
});
/** A short description ("the submit button of the login form"), matched against accessible roles and names. */
export const SemanticSelectorSchema = z.strictObject({ type: z.literal('semantic'), description: text });

export const SelectorSchema = z.discriminatedUnion('type', [
  CssSelectorSchema,
  XPathSelectorSchema,
  TextSelectorSchema,
  LabelSelectorSchema,
  PlaceholderSelectorSchema,
  TestIdSelectorSchema,
  RoleSelectorSchema,
  RefSelectorSchema,
  CoordinatesSelectorSchema,
  SemanticSelectorSchema,
]);
export type Selector = z.infer<typeof SelectorSchema>;
export type SelectorType = Selector['type'];

export const css = (value: string): Selector => ({ type: 'css', value });
export const xpath = (value: string): Selector => ({ type: 'xpath', value });
export const text_ = (value: string, exact?: boolean): Selector => withExact({ type: 'text', value }, exact);
export const label = (value: string, exact?: boolean): Selector => withExact({ type: 'label', value }, exact);
export const placeholder = (value: string, exact?: boolean): Selector =>
  withExact({ type: 'placeholder', value }, exact);
export const testId = (value: string): Selector => ({ type: 'testId', value });
export const role = (role: string, name?: string, exact?: boolean): Selector =>
  withExact(name === undefined ? { type: 'role', role } : { type: 'role', role, name }, exact);
export const ref = (ref: string): Selector => ({ type: 'ref', ref: ref.startsWith('@') ? ref : `@${ref}` });
export const coords = (x: number, y: number): Selector => ({ type: 'coordinates', x, y });
export const semantic = (description: string): Selector => ({ type: 'semantic', description });
export { text_ as text };

function withExact<T extends object>(selector: T, exact: boolean | undefined): T {
  return exact === undefined ? selector : { ...selector, exact };
}

/**
 * Parses the string form used by CLIs and MCP tools: `role:button:Submit`, `text:…`, `label:…`,
 * `css:…`, `xpath:…`, `placeholder:…`, `testId:…`, `ref:@e5`, bare `@e5`, `coords:10,20`.
 * A string without a known prefix is taken as CSS.
 */
export function parseSelector(input: string): Selector {
  const s = input.trim();
  if (/^@[A-Za-z0-9_-]+$/.test(s)) return ref(s);
  const colon = s.indexOf(':');
  const prefix = colon > 0 ? s.slice(0, colon) : '';
  const rest = s.slice(colon + 1);
  switch (prefix) {
    case 'role': {
      const sep = rest.indexOf(':');
      return sep < 0 ? role(rest) : role(rest.slice(0, sep), rest.slice(sep + 1));
    }
    case 'text':
      return text_(rest);
    case 'label':
      return label(rest);
    case 'placeholder':
      return placeholder(rest);
    case 'testId':
      return testId(rest);
    case 'css':
      return css(rest);
    case 'xpath':
      return xpath(rest);
    case 'ref':
      return ref(rest);
    case 'coords': {
      const [x, y] = rest.split(',').map(Number);
      if (!Number.isFinite(x) || !Number.isFinite(y)) throw new Error(`Invalid coordinates selector: "${input}"`);
      return coords(x!, y!);
    }
    default:
      return css(s);
  }
}

/** A short human form of a selector for error messages and logs. */
export function describeSelector(selector: Selector): string {
  switch (selector.type) {
    case 'role':
      return selector.name === undefined ? `role:${selector.role}` : `role:${selector.role}:${selector.name}`;
    case 'ref':
      return selector.ref.startsWith('@') ? selector.ref : `@${selector.ref}`;
    case 'coordinates':
      return `coords:${selector.x},${selector.y}`;
    case 'semantic':
      return `semantic:${selector.description}`;
    default:
      return `${selector.type}:${selector.value}`;
  }
}
