import { readFile, stat } from 'node:fs/promises';
import type { Download } from 'playwright-core';
import { BAPError, ErrorCodes, type MethodResult, type ParsedParams } from '@browseragentprotocol/protocol';
import type { Emit } from './events.js';
import { firstLine } from './errors.js';
import type { PageHandle } from './pageHandle.js';

type DownloadInfo = MethodResult<'download/list'>['downloads'][number];

/** How long download/get waits for an unfinished download (ms). */
const DEFAULT_WAIT_MS = 30_000;
/**
 * How long download/get waits for the next id to appear: a click on a download link returns
 * before the browser reports the download.
 */
const UPCOMING_WAIT_MS = 5_000;

interface Entry {
  info: DownloadInfo;
  download: Download;
  /** Settles (never rejects) once the download completed, failed or was canceled. */
  finished: Promise<void>;
}

/**
 * A session's downloads: events while they run, their bytes once done. The files stay in
 * Playwright's temporary directory until their context closes.
 */
export class DownloadRegistry {
  private readonly entries = new Map<string, Entry>();
  private next = 1;
  private readonly arrivals = new Set<() => void>();

  /** Largest file download/get returns: its base64 (4/3 of it) plus the envelope must fit in one message. */
  private readonly maxBytes: number;

  constructor(
    private readonly emit: Emit,
    maxMessageBytes: number,
  ) {
    this.maxBytes = Math.floor((maxMessageBytes - 64 * 1024) * 0.75);
  }

  watchPage(handle: PageHandle): void {
    handle.page.on('download', (download) => this.track(handle.id, download));
  }

  async list(pageId: string | undefined): Promise<MethodResult<'download/list'>> {
    const entries = [...this.entries.values()].filter((e) => pageId === undefined || e.info.pageId === pageId);
    return { downloads: entries.map((e) => ({ ...e.info })) };
  }

  async get(params: ParsedParams<'download/get'>): Promise<MethodResult<'download/get'>> {
    const wait = params.timeout ?? DEFAULT_WAIT_MS;
    const entry = this.entries.get(params.downloadId) ?? (await this.upcoming(params.downloadId, Math.min(wait, UPCOMING_WAIT_MS)));
    if (!entry) throw this.unknown(params.downloadId);
    if (!(await within(entry.finished, wait))) {
      throw new BAPError(ErrorCodes.Timeout, `Download ${params.downloadId} is still running after ${wait} ms.`, {
        details: { ...entry.info },
        recoveryHint: 'Call download/get again with a longer timeout, or wait for its events/download "completed".',
      });
    }
    const info = { ...entry.info };
    if (info.state !== 'completed') {
      throw new BAPError(ErrorCodes.ActionFailed, `Download ${info.downloadId} ${info.state}${info.error ? `: ${info.error}` : ''}; there are no bytes to return.`, {
        retryable: false,
        details: info,
        recoveryHint: 'Start the download again (e.g. click its link again) and fetch the new downloadId.',
      });
    }
    if (!params.stream && (info.size ?? 0) > this.maxBytes) {
      throw new BAPError(ErrorCodes.ResourceLimitExceeded, `Download ${info.downloadId} is ${info.size} bytes; download/get returns at most ${this.maxBytes}.`, {
        retryable: false,
        details: { resource: 'downloadBytes', limit: this.maxBytes, size: info.size, downloadId: info.downloadId },
        recoveryHint: 'The file is too big for one message: call download/get with stream: true to receive it in chunks.',
      });
    }
    const data = await entry.download
      .path()
      .then((path) => readFile(path))
      .catch(() => {
        throw new BAPError(ErrorCodes.TargetClosed, `The file of download ${info.downloadId} is gone: its context was closed.`, {
          details: info,
          recoveryHint: 'Downloaded files live only as long as their context; fetch them with download/get before closing it.',
        });
      });
    return { ...info, data: data.toString('base64') };
  }

  private track(pageId: string, download: Download): void {
    const info: DownloadInfo = {
      downloadId: `dl-${this.next++}`,
      pageId,
      url: download.url(),
      suggestedFilename: download.suggestedFilename(),
      state: 'started',
    };
    this.report(info);
    this.entries.set(info.downloadId, { info, download, finished: this.settle(info, download) });
    for (const arrived of this.arrivals) arrived();
  }

  /** The entry of the id the next download will get, once it starts (within `ms`). */
  private async upcoming(downloadId: string, ms: number): Promise<Entry | undefined> {
    if (downloadId !== `dl-${this.next}`) return undefined;
    let arrived!: () => void;
    const started = new Promise<void>((resolve) => (arrived = resolve));
    this.arrivals.add(arrived);
    try {
      await within(started, ms);
    } finally {
      this.arrivals.delete(arrived);
    }
    return this.entries.get(downloadId);
  }

  private async settle(info: DownloadInfo, download: Download): Promise<void> {
    try {
      const failure = await download.failure();
      if (failure === null) {
        info.size = (await stat(await download.path())).size;
        info.state = 'completed';
      } else {
        // Chromium reports a download cut off by the network as canceled, too.
        info.state = failure === 'canceled' ? 'canceled' : 'failed';
        if (failure !== 'canceled') info.error = failure;
      }
    } catch (error) {
      info.state = 'failed';
      info.error = firstLine(error);
    }
    this.report(info);
  }

  private report(info: DownloadInfo): void {
    this.emit('events/download', { ...info, timestamp: Date.now() });
  }

  private unknown(downloadId: string): BAPError {
    const known = [...this.entries.keys()];
    return new BAPError(ErrorCodes.InvalidParams, `params.downloadId: there is no download "${downloadId}" in this session.`, {
      details: { field: 'params.downloadId', downloadId, downloads: known.slice(-20) },
      recoveryHint: known.length ? 'download/list shows the session\'s downloads.' : 'No download has started yet; downloadIds come from events/download.',
    });
  }
}

/** Whether `promise` settles within `ms`. */
async function within(promise: Promise<void>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([promise.then(() => true as const), expired]);
  } finally {
    clearTimeout(timer);
  }
}
