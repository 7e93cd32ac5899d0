import { z } from 'zod';

export const BrowserLaunchParamsSchema = z.strictObject({
  browser: z.enum(['chromium', 'firefox', 'webkit']).optional(),
  channel: z.string().max(100).optional(),
  headless: z.boolean().optional(),
  args: z
    .array(z.string().regex(/^--[a-z0-9-]+(=.*)?$/, 'a Chromium switch such as "--lang=en"').max(2000))
    .max(64)
    .optional(),
  proxy: z
    .strictObject({
      server: z.string().min(1).max(2000),
      bypass: z.string().max(2000).optional(),
      username: z.string().max(500).optional(),
      password: z.string().max(500).optional(),
    })
    .optional(),
  /** Attach to a running Chromium over CDP (`http://host:9223` or `ws://…/devtools/browser/…`). */
  cdpUrl: z.url({ protocol: /^(https?|wss?)$/ }).optional(),
  /** Attach to a Playwright browser server (`ws://…`). */
  wsEndpoint: z.url({ protocol: /^wss?$/ }).optional(),
});
export type BrowserLaunchParams = z.infer<typeof BrowserLaunchParamsSchema>;

export const BrowserLaunchResultSchema = z.object({
  browserId: z.string(),
  version: z.string(),
  defaultContext: z.string(),
  headless: z.boolean(),
});

export const BrowserCloseParamsSchema = z.strictObject({ browserId: z.string().max(64).optional() });
