import { realpath, stat } from 'node:fs/promises';
import { resolve, sep } from 'node:path';
import type { FileChooser, Locator } from 'playwright-core';
import { BAPError, ErrorCodes, describeSelector, type MethodResult, type ParsedParams } from '@browseragentprotocol/protocol';
import { toBAPError } from './errors.js';
import type { PageHandle } from './pageHandle.js';

export interface UploadLimits {
  maxUploadBytes: number;
  uploadDirs: string[];
}

type Params = ParsedParams<'action/upload'>;
/** How long an armed file chooser waits (ms); also the most a client may ask for. */
const MAX_ARMED_MS = 120_000;
type Files = { name: string; mimeType: string; buffer: Buffer }[] | string[];

/**
 * action/upload: files into a file input, or into the chooser a click on the element opens.
 * The files are checked (size, allowed directories) before the page is touched.
 */
export async function upload(h: PageHandle, p: Params, limits: UploadLimits): Promise<MethodResult<'action/upload'>> {
  const field = p.files ? 'params.files' : 'params.paths';
  const files = p.files ? decodeFiles(p.files, limits.maxUploadBytes) : await allowedPaths(p.paths ?? [], limits);
  const locator = await h.element(p.selector, 'action/upload');
  const timeout = p.options?.timeout ?? h.timeouts.action;
  const context = { action: 'action/upload', selector: describeSelector(p.selector), timeout };
  try {
    const input = await locator.evaluate(
      (el) => (el instanceof HTMLInputElement && el.type === 'file' ? { multiple: el.multiple } : null),
      undefined,
      { timeout },
    );
    if (input) {
      if (!input.multiple) singleFileOnly(files.length, field);
      await locator.setInputFiles(files, pw(p.options, timeout));
      return { files: await locator.evaluate(namesOf), viaFileChooser: false };
    }
    const chooser = await openChooser(h, locator, p, timeout);
    if (!chooser.isMultiple() && files.length > 1) {
      await chooser.setFiles([]).catch(() => {});
      singleFileOnly(files.length, field);
    }
    await chooser.setFiles(files, pw(p.options, timeout));
    return { files: await chooser.element().evaluate(namesOf), viaFileChooser: true };
  } catch (error) {
    throw toBAPError(error, context);
  }
}

/** action/armFileChooser: the paths are checked now, and go to the next file chooser the page opens. */
export async function armFileChooser(h: PageHandle, p: ParsedParams<'action/armFileChooser'>, limits: UploadLimits): Promise<MethodResult<'action/armFileChooser'>> {
  const paths = await allowedPaths(p.paths, limits);
  const timeout = p.timeout ?? MAX_ARMED_MS;
  h.fileChooser.arm(paths, timeout);
  return { status: 'armed', timeout };
}

/** Clicks the element and catches the file chooser the click opens. */
async function openChooser(h: PageHandle, locator: Locator, p: Params, timeout: number): Promise<FileChooser> {
  const chooser = h.page.waitForEvent('filechooser', { timeout });
  chooser.catch(() => {});
  await locator.click(pw(p.options, timeout));
  try {
    return await chooser;
  } catch {
    throw new BAPError(ErrorCodes.ActionFailed, `action/upload: clicking ${describeSelector(p.selector)} opened no file chooser within ${timeout} ms.`, {
      details: { selector: describeSelector(p.selector), timeout },
      recoveryHint: 'Select the <input type="file"> itself, or the button or label whose click opens the file dialog.',
    });
  }
}

function pw(options: Params['options'], timeout: number): { timeout: number; force?: boolean; noWaitAfter?: boolean } {
  const result: { timeout: number; force?: boolean; noWaitAfter?: boolean } = { timeout };
  if (options?.force !== undefined) result.force = options.force;
  if (options?.noWaitAfter !== undefined) result.noWaitAfter = options.noWaitAfter;
  return result;
}

/** Runs in the page: the names of the files an input holds. */
const namesOf = (el: Element) => Array.from((el as HTMLInputElement).files ?? [], (f) => f.name);

function singleFileOnly(count: number, field: string): void {
  if (count <= 1) return;
  throw new BAPError(ErrorCodes.InvalidParams, `${field}: the file input takes a single file (it has no multiple attribute); ${count} were given.`, {
    details: { field, count },
    recoveryHint: 'Upload one file, or target an input that accepts several.',
  });
}

function decodeFiles(files: NonNullable<Params['files']>, limit: number): Files {
  const decoded = files.map((f) => ({ name: f.name, mimeType: f.mimeType, buffer: Buffer.from(f.buffer, 'base64') }));
  checkSize(decoded.reduce((sum, f) => sum + f.buffer.length, 0), limit);
  return decoded;
}

function checkSize(size: number, limit: number): void {
  if (size <= limit) return;
  throw new BAPError(ErrorCodes.ResourceLimitExceeded, `The files to upload total ${size} bytes; this server accepts at most ${limit}.`, {
    retryable: false,
    details: { resource: 'uploadBytes', limit, size },
    recoveryHint: 'Upload fewer or smaller files; the limit is the server option maxUploadBytes.',
  });
}

/**
 * Server-side paths are read only from the server's upload directories: a path must lie inside
 * one both as written and once symlinks are resolved. Relative paths start at the first one.
 */
async function allowedPaths(paths: string[], limits: UploadLimits): Promise<string[]> {
  if (!limits.uploadDirs.length) {
    throw new BAPError(ErrorCodes.InvalidParams, 'params.paths: this server reads no files from its disk (it has no upload directories).', {
      details: { field: 'params.paths' },
      recoveryHint: 'Send the bytes in params.files instead, or start the server with the uploadDirs option (bap serve --upload-dir DIR) naming a directory that holds the files.',
    });
  }
  const dirs = limits.uploadDirs.map((d) => resolve(d));
  const roots = (await Promise.all(dirs.map((d) => realpath(d).catch(() => null)))).filter((d): d is string => d !== null);
  const outside = (field: string, path: string) =>
    new BAPError(ErrorCodes.InvalidParams, `${field}: "${path}" is outside the server's upload directories.`, {
      details: { field, path },
      recoveryHint: 'Use a file inside one of the directories the server option uploadDirs names, or send the bytes in params.files.',
    });
  const result: string[] = [];
  let size = 0;
  for (const [i, path] of paths.entries()) {
    const field = `params.paths.${i}`;
    const absolute = resolve(dirs[0]!, path);
    if (!dirs.some((d) => inside(d, absolute)) && !roots.some((r) => inside(r, absolute))) throw outside(field, path);
    const real = await realpath(absolute).catch(() => {
      throw new BAPError(ErrorCodes.InvalidParams, `${field}: no such file "${path}".`, { details: { field, path } });
    });
    if (!roots.some((r) => inside(r, real))) throw outside(field, path);
    const info = await stat(real);
    if (!info.isFile()) throw new BAPError(ErrorCodes.InvalidParams, `${field}: "${path}" is not a file.`, { details: { field, path } });
    size += info.size;
    result.push(real);
  }
  checkSize(size, limits.maxUploadBytes);
  return result;
}

function inside(dir: string, path: string): boolean {
  return path.startsWith(dir.endsWith(sep) ? dir : dir + sep);
}
