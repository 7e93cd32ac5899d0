import { z } from 'zod';
import { StreamOptionsShape } from './stream.js';
import { PageIdSchema } from '../common.js';
import { SelectorSchema } from '../selectors.js';
import { ActionOptionsSchema } from './action.js';

export const FileUploadSchema = z.strictObject({
  name: z.string().min(1).max(255),
  mimeType: z.string().min(1).max(255),
  /** The file's bytes, base64. */
  buffer: z.string().base64(),
});

export const UploadParamsSchema = z
  .strictObject({
    pageId: PageIdSchema,
    /** A file input, or an element whose click opens a file chooser. */
    selector: SelectorSchema,
    files: z.array(FileUploadSchema).max(100).optional(),
    /** Server-side paths; refused unless the server allows an upload directory that holds them. */
    paths: z.array(z.string().min(1).max(4096)).max(100).optional(),
    options: ActionOptionsSchema.optional(),
  })
  .refine((p) => (p.files === undefined) !== (p.paths === undefined), { message: 'give either files or paths' });
export const UploadResultSchema = z.object({
  /** Names of the files now selected in the input. */
  files: z.array(z.string()),
  /** True when the files went through a file chooser the click opened. */
  viaFileChooser: z.boolean(),
});

/** Arms the next file chooser the page opens: it receives these files, however it was opened. */
export const ArmFileChooserParamsSchema = z.strictObject({
  pageId: PageIdSchema,
  /** Server-side paths, inside the server's upload directories (as action/upload `paths`). */
  paths: z.array(z.string().min(1).max(4096)).min(1).max(100),
  /** How long the arm lasts (ms, default and maximum 120,000). A later arm replaces it. */
  timeout: z.number().int().min(1).max(120_000).optional(),
});
export const ArmFileChooserResultSchema = z.object({
  status: z.literal('armed'),
  /** How long the arm lasts, ms. */
  timeout: z.number().int(),
});

export const DownloadStateSchema = z.enum(['started', 'completed', 'canceled', 'failed']);

export const DownloadInfoSchema = z.object({
  downloadId: z.string(),
  pageId: z.string(),
  url: z.string(),
  suggestedFilename: z.string(),
  state: DownloadStateSchema,
  size: z.number().int().optional(),
  error: z.string().optional(),
});

/** Downloads of the session, or of one page. */
export const DownloadListParamsSchema = z.strictObject({ pageId: z.string().min(1).max(64).optional() });
export const DownloadListResultSchema = z.object({ downloads: z.array(DownloadInfoSchema) });

export const DownloadGetParamsSchema = z.strictObject({
  downloadId: z.string().min(1).max(64),
  /** Wait this long for an unfinished download (ms, default 30,000). */
  timeout: z.number().int().min(0).max(300_000).optional(),
  ...StreamOptionsShape,
});
export const DownloadGetResultSchema = DownloadInfoSchema.extend({
  /** The file's bytes, base64. */
  data: z.string(),
});
