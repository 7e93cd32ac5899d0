import type { Frame, Page } from 'playwright-core';

/** CSS for fields whose values never leave the server. */
export const SENSITIVE_FIELDS =
  'input[type=password i], input[autocomplete*=password i], input[autocomplete^=cc- i], input[autocomplete*=" cc-" i]';

/**
 * The current values of sensitive fields in every frame of the page (open shadow roots
 * included), so observations can blank them wherever the browser prints them.
 */
export async function sensitiveValues(page: Page): Promise<Set<string>> {
  const perFrame = await Promise.all(page.frames().map((frame) => frameValues(frame)));
  return new Set(perFrame.flat().filter((v) => v.length > 0));
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
