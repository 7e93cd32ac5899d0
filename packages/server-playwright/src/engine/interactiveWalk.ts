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
export function toElementNode({ id, redacted, box, ...element }: WalkedElement): ElementNode {
  const el: ElementNode = { ...element, ref: `@b${id}`, inFrame: false };
  if (redacted) el.value = REDACTED;
  if (box) el.bounds = { x: box[0], y: box[1], width: box[2], height: box[3] };
  return el;
}
