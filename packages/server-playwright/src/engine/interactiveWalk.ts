import { readFileSync } from 'node:fs';
import type { Frame } from 'playwright-core';
import type { WalkArgs, WalkedElement, WalkResult } from '../page/walkInteractive.js';
import { REDACTED } from './ariaTree.js';
import type { ElementNode } from './interactive.js';

/*
 * The interactive tier without a snapshot: page/walkInteractive.ts, bundled with its
 * dependencies into dist/page (scripts/bundle-page.mjs), run in the frame's own world, where the
 * `bap_ref` selector engine finds its refs again. Walk refs are `@b<n>`, never Playwright's
 * `e<n>` / `f<n>e<n>`.
 */

let bundle: string | undefined;

/**
 * Runs the walk in `frame`; throws when the page cannot run it (the caller takes a snapshot
 * instead). The result comes back as one JSON string: Playwright's own serialization of 10,000
 * objects costs more than the walk.
 */
export async function runWalk(frame: Frame, args: WalkArgs): Promise<WalkResult> {
  bundle ??= readFileSync(new URL('../page/walkInteractive.bundle.js', import.meta.url), 'utf8');
  return JSON.parse(await frame.evaluate<string>(`(() => {${bundle}\nreturn JSON.stringify(page.walk(${JSON.stringify(args)}));})()`)) as WalkResult;
}

export const WALK_REF = /^@b(\d+)$/;

/** A walked element as the interactive tier's element, with its ref. */
export function toElementNode(w: WalkedElement): ElementNode {
  const el: ElementNode = { ref: `@b${w.id}`, role: w.role, name: w.name, inFrame: false };
  if (w.redacted) el.value = REDACTED;
  else if (w.value !== undefined) el.value = w.value;
  if (w.checked !== undefined) el.checked = w.checked;
  if (w.expanded) el.expanded = true;
  if (w.selected) el.selected = true;
  if (w.disabled) el.disabled = true;
  if (w.focused) el.focused = true;
  if (w.url !== undefined) el.url = w.url;
  if (w.box) el.bounds = { x: w.box[0], y: w.box[1], width: w.box[2], height: w.box[3] };
  return el;
}
