import { strToU8, unzipSync, zipSync, type Zippable } from 'fflate';
import type { Frame, Locator, Page } from 'playwright-core';
import type { Redactor } from '../security/redactor.js';
import { REDACTED } from './ariaTree.js';

/** CSS for fields whose values never leave the server. */
export const SENSITIVE_FIELDS =
  'input[type=password i], input[autocomplete*=password i], input[autocomplete^=cc- i], input[autocomplete*=" cc-" i]';

/**
 * The current values of sensitive fields in every frame of the page (open shadow roots
 * included), so observations can blank them wherever the browser prints them. Each value comes
 * as typed and as Playwright's snapshots print it (whitespace collapsed), so either form matches.
 */
export async function sensitiveValues(page: Page): Promise<Set<string>> {
  const perFrame = await Promise.all(page.frames().map((frame) => frameValues(frame)));
  return new Set(perFrame.flat().flatMap((v) => [v, printed(v)]).filter((v) => v.length > 0));
}

function frameValues(frame: Frame): Promise<string[]> {
  return frame
    .evaluate((selector) => {
      const values: string[] = [];
      const visit = (root: Document | ShadowRoot) => {
        for (const el of root.querySelectorAll<HTMLInputElement>(selector)) values.push(el.value);
        for (const el of root.querySelectorAll('*')) if (el.shadowRoot) visit(el.shadowRoot);
      };
      visit(document);
      return values;
    }, SENSITIVE_FIELDS)
    .catch(() => []);
}

/** Text as Playwright's AI snapshot prints it: soft hyphens and zero-width spaces dropped, whitespace collapsed. */
function printed(value: string): string {
  return value.replace(/[\u200b\u00ad]/g, '').trim().replace(/\s+/g, ' ');
}

/** Is the element `locator` resolves to a password or card field? Waits for it like an action would. */
export function isSensitiveField(locator: Locator, timeout: number): Promise<boolean> {
  return locator.evaluate((el, selector) => el.matches(selector), SENSITIVE_FIELDS, { timeout });
}

/**
 * Does a password or card field hold the keyboard focus in any frame (through open shadow roots)?
 * A frame that cannot answer counts as no.
 */
export async function focusIsSensitive(page: Page): Promise<boolean> {
  const answers = await Promise.all(
    page.frames().map((frame) =>
      frame
        .evaluate((selector) => {
          let el = document.activeElement;
          while (el?.shadowRoot?.activeElement) el = el.shadowRoot.activeElement;
          return !!el && el.matches(selector);
        }, SENSITIVE_FIELDS)
        .catch(() => false),
    ),
  );
  return answers.includes(true);
}

/**
 * Registers a value written into a sensitive field, as typed and in the spellings it takes on
 * its way out of the page: URL and form encoding (request URLs and bodies), HTML escaping, and
 * JSON string escaping (text that quotes it, such as Playwright's action log).
 */
export function learnSecret(redactor: Redactor, value: string): void {
  const html = value.replace(/[&<>"']/g, (c) => `&${HTML_ENTITIES[c]};`);
  const spellings = [value, encodeURIComponent(value), new URLSearchParams({ v: value }).toString().slice(2), html, JSON.stringify(value).slice(1, -1)];
  for (const spelling of new Set(spellings)) redactor.add(spelling);
}

const HTML_ENTITIES: Record<string, string> = { '&': 'amp', '<': 'lt', '>': 'gt', '"': 'quot', "'": '#39' };

/** Locators for the sensitive fields of every frame: what a screenshot paints over. */
export function sensitiveFieldMasks(page: Page): Locator[] {
  return page.frames().map((frame) => frame.locator(SENSITIVE_FIELDS));
}

/** Playwright's own logs in a trace (actions with their params, DOM snapshots, network): one JSON value a line. */
const EVENT_LOG = /\.(trace|network|stacks)$/;
const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const QUOTED_REDACTED = JSON.stringify(REDACTED);

/**
 * A Playwright trace zip with the secrets taken out. The values of the sensitive fields now on
 * `pages` are learned first; then every text entry (event logs, snapshot resources, network
 * bodies) passes through the redactor, and in the event logs a string that is such a value,
 * however short, or that quotes it (`fill("ab1")`), is blanked. Entries that are not UTF-8 text
 * (screenshots, images, fonts) are kept as they are.
 */
export async function redactTrace(zip: Uint8Array, pages: readonly Page[], redactor: Redactor): Promise<Uint8Array> {
  const values = new Set((await Promise.all(pages.map(sensitiveValues))).flatMap((set) => [...set]));
  for (const value of values) learnSecret(redactor, value);
  if (redactor.empty && !values.size) return zip;
  const out: Zippable = {};
  for (const [name, data] of Object.entries(unzipSync(zip))) {
    const text = utf8(data);
    if (text === null) out[name] = [data, { level: 0 }];
    else out[name] = strToU8(EVENT_LOG.test(name) ? redactEvents(text, values, redactor) : redactor.scrub(text));
  }
  return zipSync(out);
}

/** NUL bytes and invalid UTF-8 mark binary content. */
function utf8(data: Uint8Array): string | null {
  if (data.includes(0)) return null;
  try {
    return UTF8.decode(data);
  } catch {
    return null;
  }
}

function redactEvents(text: string, values: ReadonlySet<string>, redactor: Redactor): string {
  const quoted = [...values].map((v) => JSON.stringify(v));
  const redact = (value: unknown): unknown => {
    if (typeof value === 'string') {
      if (values.has(value)) return REDACTED;
      let out = redactor.scrub(value);
      for (const q of quoted) if (out.includes(q)) out = out.replaceAll(q, QUOTED_REDACTED);
      return out;
    }
    if (Array.isArray(value)) return value.map(redact);
    if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [redactor.scrub(k), redact(v)]));
    return value;
  };
  return text
    .split('\n')
    .map((line) => {
      if (!line.trim()) return line;
      try {
        return JSON.stringify(redact(JSON.parse(line)));
      } catch {
        return redactor.scrub(line);
      }
    })
    .join('\n');
}
