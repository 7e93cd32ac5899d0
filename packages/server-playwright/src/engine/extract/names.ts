/**
 * How agent/extract compares a schema property with what labels something on the page (a column
 * header, a form label, a term, a JSON-LD key): both become lists of normalised words.
 */

const STOP_WORDS = new Set(['the', 'a', 'an', 'of', 'on', 'in', 'to', 'for', 'and', 'or', 'with', 'at', 'by', 'this', 'that', 'is', 'are', 'your', 'my']);

/** Words that mean the same thing as a whole property name; a match through one scores low. */
const SYNONYMS: readonly (readonly string[])[] = [
  ['name', 'title', 'product', 'headline'],
  ['url', 'link', 'href', 'website', 'homepage'],
  ['price', 'cost', 'amount'],
  ['description', 'summary', 'detail', 'about'],
  ['image', 'photo', 'picture', 'thumbnail'],
  ['stock', 'inventory', 'quantity', 'qty'],
];

/** What a property is, by its last word (`productName` is a name, `priceCurrency` is not a price). */
export type PropertyKind = 'name' | 'url' | 'price' | 'description';

const KINDS: Record<PropertyKind, ReadonlySet<string>> = {
  name: new Set(['name', 'title', 'heading', 'headline', 'label']),
  url: new Set(['url', 'link', 'href', 'website', 'homepage', 'permalink']),
  price: new Set(['price', 'cost', 'amount', 'total', 'fee', 'msrp']),
  description: new Set(['description', 'summary', 'text', 'detail', 'body', 'snippet', 'content', 'excerpt', 'blurb']),
};

/** Lowercase words, camelCase/snake_case/kebab-case split, punctuation and stop words dropped, plurals folded. */
export function words(text: string): string[] {
  return text
    .replace(/([\p{Ll}\d])(\p{Lu})/gu, '$1 $2')
    .replace(/(\p{Lu}+)(\p{Lu}\p{Ll})/gu, '$1 $2')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w.length > 0 && !STOP_WORDS.has(w))
    .map(singular);
}

function singular(word: string): string {
  if (word.length > 4 && word.endsWith('ies')) return `${word.slice(0, -3)}y`;
  if (word.length > 3 && word.endsWith('s') && !word.endsWith('ss') && !word.endsWith('us')) return word.slice(0, -1);
  return word;
}

/**
 * How well a label fits a property known by any of `names` (its key, its title):
 * 4 same words; 2–3 the label holds all the property's words ("Email address" for `email`);
 * 1–2 the property holds all the label's words, its last one included ("Name" for
 * `productName`); 1 a synonym ("Cost" for `price`); 0 no match.
 */
export function matchScore(names: readonly (readonly string[])[], label: readonly string[]): number {
  let best = 0;
  for (const name of names) best = Math.max(best, scoreOne(name, label));
  return best;
}

function scoreOne(name: readonly string[], label: readonly string[]): number {
  if (!name.length || !label.length) return 0;
  const inLabel = name.filter((w) => label.includes(w)).length;
  const inName = label.filter((w) => name.includes(w)).length;
  if (inLabel === name.length && inName === label.length) return 4;
  if (inLabel === name.length) return 2 + name.length / label.length;
  // "Name" fits `productName`, but "Price" does not fit `priceCurrency`: the label must hold the last word.
  if (inName === label.length && label.includes(name[name.length - 1]!)) return 1 + label.length / name.length;
  if (name.length === 1 && label.length === 1 && SYNONYMS.some((g) => g.includes(name[0]!) && g.includes(label[0]!))) return 1;
  return 0;
}

/** The kind of a property named by `names`, from the last word of its key or title. */
export function kindOf(names: readonly (readonly string[])[]): PropertyKind | undefined {
  for (const name of names) {
    const last = name[name.length - 1];
    if (!last) continue;
    for (const kind of Object.keys(KINDS) as PropertyKind[]) if (KINDS[kind].has(last)) return kind;
  }
  return undefined;
}

/** How many of `wanted` occur in `text` (context words against a caption or heading). */
export function overlap(wanted: readonly string[], text: readonly string[]): number {
  const have = new Set(text);
  return new Set(wanted.filter((w) => have.has(w))).size;
}
