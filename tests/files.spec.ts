import { mkdtemp, mkdir, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BAPClient } from '@browseragentprotocol/client';
import { DownloadEventSchema, ErrorCodes, type DownloadEvent, type Selector } from '@browseragentprotocol/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectBAPError } from './support/expectations.js';
import { downloadBytes } from './support/fixtureServer.js';
import { startHarness, type Harness } from './support/harness.js';
import { css, textOf } from './support/observe.js';

let h: Harness;

beforeAll(async () => {
  h = await startHarness({ connect: false });
});

afterAll(async () => {
  await h?.stop();
});

const label = (value: string): Selector => ({ type: 'label', value });
const button = (name: string): Selector => ({ type: 'role', role: 'button', name });
const link = (name: string): Selector => ({ type: 'role', role: 'link', name });
const file = (name: string, text: string) => ({ name, mimeType: 'text/plain', buffer: Buffer.from(text).toString('base64') });

/** A fresh session on the files fixture, subscribed to download events. */
async function session(harness = h) {
  const client = await harness.newClient();
  await client.call('events/subscribe', { events: ['download'] });
  const downloads: DownloadEvent[] = [];
  client.on('events/download', (event) => downloads.push(event));
  const { pageId } = await client.call('page/navigate', { url: harness.url('files-upload.html') });
  return { client, downloads, pageId };
}

/** The page's list of received files: "input: name (size bytes): first text". */
async function received(client: BAPClient): Promise<string[]> {
  const text = await textOf(client, css('#result'));
  return text.split('\n').map((line) => line.trim()).filter(Boolean);
}

describe('action/upload', () => {
  it('puts files into a file input', async () => {
    const { client } = await session();
    const result = await client.call('action/upload', { selector: label('Avatar'), files: [file('hello.txt', 'hello world')] });
    expect(result).toEqual({ files: ['hello.txt'], viaFileChooser: false });
    await expect.poll(() => received(client)).toEqual(['avatar: hello.txt (11 bytes): hello world']);
  });

  it('puts several files into a multiple input, and refuses several for a single one', async () => {
    const { client } = await session();
    const result = await client.call('action/upload', {
      selector: label('Attachments'),
      files: [file('a.txt', 'first'), file('b.txt', 'second')],
    });
    expect(result).toEqual({ files: ['a.txt', 'b.txt'], viaFileChooser: false });
    await expect.poll(() => received(client)).toHaveLength(2);

    const { error } = await expectBAPError(
      () => client.call('action/upload', { selector: label('Avatar'), files: [file('a.txt', '1'), file('b.txt', '2')] }),
      ErrorCodes.InvalidParams,
    );
    expect(error.message).toContain('params.files: the file input takes a single file');
  });

  it('catches the file chooser a click on a button opens', async () => {
    const { client } = await session();
    const result = await client.call('action/upload', { selector: button('Choose file'), files: [file('notes.txt', 'chosen')] });
    expect(result).toEqual({ files: ['notes.txt'], viaFileChooser: true });
    await expect.poll(() => received(client)).toEqual(['hidden-input: notes.txt (6 bytes): chosen']);
  });

  it('fails clearly when the click opens no file chooser', async () => {
    const { client } = await session();
    const { error } = await expectBAPError(
      // The timeout covers finding and clicking the button too: 500 ms ran out before the click
      // on a machine busy with the leak test.
      () => client.call('action/upload', { selector: button('Does nothing'), files: [file('x.txt', 'x')], options: { timeout: 2_000 } }),
      ErrorCodes.ActionFailed,
    );
    expect(error.message).toContain('opened no file chooser within 2000 ms');
    expect(error.recoveryHint).toContain('input type="file"');
  });

  it('refuses server-side paths when the server has no upload directories', async () => {
    const { client } = await session();
    const { error } = await expectBAPError(
      () => client.call('action/upload', { selector: label('Avatar'), paths: ['/etc/hostname'] }),
      ErrorCodes.InvalidParams,
    );
    expect(error.message).toContain('params.paths');
    expect(error.recoveryHint).toContain('uploadDirs');
  });
});

describe('action/upload with upload directories and a size limit', () => {
  let small: Harness;
  let root: string;
  let dir: string;

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'bap-upload-'));
    dir = join(root, 'allowed');
    await mkdir(dir);
    await writeFile(join(dir, 'report.txt'), 'quarterly numbers');
    await writeFile(join(dir, 'big.txt'), 'x'.repeat(2_000));
    await writeFile(join(root, 'secret.txt'), 'do not read');
    await symlink(join(root, 'secret.txt'), join(dir, 'escape.txt'));
    small = await startHarness({ connect: false, server: { uploadDirs: [dir], maxUploadBytes: 1_024 } });
  });

  afterAll(async () => {
    await small?.stop();
    if (root) await rm(root, { recursive: true, force: true });
  });

  it('uploads a file from an upload directory, by absolute or relative path', async () => {
    const { client } = await session(small);
    const absolute = await client.call('action/upload', { selector: label('Avatar'), paths: [join(dir, 'report.txt')] });
    expect(absolute).toEqual({ files: ['report.txt'], viaFileChooser: false });
    await expect.poll(() => received(client)).toEqual(['avatar: report.txt (17 bytes): quarterly numbers']);
    const relative = await client.call('action/upload', { selector: button('Choose file'), paths: ['report.txt'] });
    expect(relative).toEqual({ files: ['report.txt'], viaFileChooser: true });
  });

  it('refuses paths outside the directories, through a symlink too, and missing files', async () => {
    const { client } = await session(small);
    const attempts: [string, string][] = [
      [join(root, 'secret.txt'), 'outside'],
      [join(dir, '..', 'secret.txt'), 'outside'],
      [join(dir, 'escape.txt'), 'outside'],
      [join(dir, 'missing.txt'), 'no such file'],
    ];
    for (const [path, reason] of attempts) {
      const { error } = await expectBAPError(
        () => client.call('action/upload', { selector: label('Avatar'), paths: [join(dir, 'report.txt'), path] }),
        ErrorCodes.InvalidParams,
      );
      expect(error.message, path).toContain('params.paths.1');
      expect(error.message, path).toContain(reason);
    }
    expect(await received(client)).toEqual([]);
  });

  it('refuses uploads over maxUploadBytes with -32024, before touching the page', async () => {
    const { client } = await session(small);
    const bytes = await expectBAPError(
      () => client.call('action/upload', { selector: label('Avatar'), files: [file('big.txt', 'y'.repeat(1_025))] }),
      ErrorCodes.ResourceLimitExceeded,
    );
    expect(bytes.error.data.details).toMatchObject({ limit: 1_024, size: 1_025 });
    const paths = await expectBAPError(
      () => client.call('action/upload', { selector: label('Avatar'), paths: ['big.txt'] }),
      ErrorCodes.ResourceLimitExceeded,
    );
    expect(paths.error.data.details).toMatchObject({ limit: 1_024, size: 2_000 });
    expect(await received(client)).toEqual([]);
  });

  it('action/armFileChooser: the next file chooser, whatever opens it, receives the files; paths are checked when arming', async () => {
    const { client, pageId } = await session(small);
    expect(await client.call('action/armFileChooser', { paths: ['report.txt'], timeout: 5_000 })).toEqual({ status: 'armed', timeout: 5_000 });
    await client.call('action/click', { selector: button('Choose file') });
    await expect.poll(() => received(client)).toEqual(['hidden-input: report.txt (17 bytes): quarterly numbers']);
    const { error } = await expectBAPError(() => client.call('action/armFileChooser', { pageId, paths: [join(dir, 'escape.txt')] }), ErrorCodes.InvalidParams);
    expect(error.message).toBe(`params.paths.0: "${join(dir, 'escape.txt')}" is outside the server's upload directories.`);
    await expectBAPError(() => client.call('action/armFileChooser', { paths: ['big.txt'] }), ErrorCodes.ResourceLimitExceeded);
  });

  it('action/armFileChooser: several files go to a multiple chooser, none to a single one; the last arm wins', async () => {
    await writeFile(join(dir, 'second.txt'), 'two');
    const { client } = await session(small);
    await client.call('action/armFileChooser', { paths: ['second.txt'] });
    await client.call('action/armFileChooser', { paths: ['report.txt', 'second.txt'] });
    await client.call('action/click', { selector: label('Attachments') });
    await expect.poll(() => received(client)).toEqual(['attachments: report.txt (17 bytes): quarterly numbers', 'attachments: second.txt (3 bytes): two']);
    await client.call('action/armFileChooser', { paths: ['report.txt', 'second.txt'] });
    await client.call('action/click', { selector: button('Choose file') });
    await client.call('page/waitFor', { time: 300 });
    expect(await received(client)).toHaveLength(2);
  });
});

describe('downloads', () => {
  it('reports a download from start to completion; download/get returns its bytes', async () => {
    const { client, downloads, pageId } = await session();
    await client.call('action/click', { selector: link('Download report') });
    await expect.poll(() => downloads.map((d) => d.state)).toEqual(['started', 'completed']);
    const [started, completed] = downloads;
    expect(started).toMatchObject({ pageId, suggestedFilename: 'report.csv', url: h.url('/download?name=report.csv&size=5000') });
    expect(started!.downloadId).toMatch(/^dl-\d+$/);
    expect(completed).toMatchObject({ downloadId: started!.downloadId, size: 5_000 });
    for (const event of downloads) expect(DownloadEventSchema.safeParse(event).success).toBe(true);

    const got = await client.call('download/get', { downloadId: started!.downloadId });
    expect(got).toMatchObject({ downloadId: started!.downloadId, state: 'completed', size: 5_000, suggestedFilename: 'report.csv' });
    expect(Buffer.from(got.data, 'base64').equals(downloadBytes(5_000))).toBe(true);

    expect(await client.call('download/list', {})).toEqual({
      downloads: [{ downloadId: started!.downloadId, pageId, url: started!.url, suggestedFilename: 'report.csv', state: 'completed', size: 5_000 }],
    });
    expect(await client.call('download/list', { pageId: 'page-999' })).toEqual({ downloads: [] });
  });

  it('download/get waits for a download that is still running', async () => {
    const { client, downloads } = await session();
    await client.call('action/click', { selector: link('Download report') });
    await expect.poll(() => downloads.length).toBeGreaterThan(0);
    const got = await client.call('download/get', { downloadId: downloads[0]!.downloadId, timeout: 10_000 });
    expect(got.size).toBe(5_000);
  });

  it('a download cut off by the network ends canceled (as Chromium reports it); download/get has no bytes to give', async () => {
    const { client, downloads } = await session();
    await client.call('action/click', { selector: link('Download broken file') });
    await expect.poll(() => downloads.map((d) => d.state), { timeout: 15_000 }).toEqual(['started', 'canceled']);
    const { error } = await expectBAPError(() => client.call('download/get', { downloadId: downloads[0]!.downloadId }), ErrorCodes.ActionFailed);
    expect(error.message).toBe(`Download ${downloads[0]!.downloadId} canceled; there are no bytes to return.`);
  });

  it('refuses a download too big for one message with -32024, and streams it on request', async () => {
    const { client, downloads } = await session();
    await client.call('action/click', { selector: link('Download huge file') });
    await expect.poll(() => downloads.map((d) => d.state), { timeout: 15_000 }).toEqual(['started', 'completed']);
    const { error } = await expectBAPError(() => client.call('download/get', { downloadId: downloads[0]!.downloadId }), ErrorCodes.ResourceLimitExceeded);
    expect(error.data.details).toMatchObject({ size: 13_000_000 });
    expect(error.recoveryHint).toContain('stream: true');
    const stream = await client.stream('download/get', { downloadId: downloads[0]!.downloadId });
    expect(stream.contentType).toBe('application/octet-stream');
    expect((await stream.bytes()).length).toBe(13_000_000);
  });

  it('an unknown downloadId is -32602 naming the field', async () => {
    const { client } = await session();
    const { error } = await expectBAPError(() => client.call('download/get', { downloadId: 'dl-404' }), ErrorCodes.InvalidParams);
    expect(error.message).toContain('params.downloadId');
  });
});
