import { existsSync } from 'node:fs';
import { readdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { BAPError, ErrorCodes } from '@browseragentprotocol/protocol';

/**
 * Finds a Chromium to drive: an explicit path, then $BAP_CHROMIUM_PATH, then Debian's
 * /usr/bin/chromium, then a browser Playwright downloaded into its cache.
 */
export function findChromium(explicit?: string): string {
  const candidates = [explicit, process.env.BAP_CHROMIUM_PATH].filter((p): p is string => !!p);
  for (const path of candidates) {
    if (existsSync(path)) return path;
    throw notFound(`Chromium not found at ${path}`);
  }
  for (const path of ['/usr/bin/chromium', '/usr/bin/chromium-browser', ...playwrightCache()]) {
    if (existsSync(path)) return path;
  }
  throw notFound('No Chromium found');
}

function notFound(what: string): BAPError {
  return new BAPError(ErrorCodes.BrowserNotLaunched, `${what}.`, {
    recoveryHint:
      'Install one (Debian/Ubuntu: `apt-get install -y chromium`) or point BAP_CHROMIUM_PATH (or `bap serve --browser-path`) at a Chromium executable.',
  });
}

function playwrightCache(): string[] {
  const root = process.env.PLAYWRIGHT_BROWSERS_PATH || join(homedir(), '.cache', 'ms-playwright');
  let dirs: string[];
  try {
    dirs = readdirSync(root).filter((d) => d.startsWith('chromium')).sort().reverse();
  } catch {
    return [];
  }
  return dirs.flatMap((d) => [
    join(root, d, 'chrome-linux', 'chrome'),
    join(root, d, 'chrome-linux64', 'chrome'),
    join(root, d, 'chrome-headless-shell-linux64', 'chrome-headless-shell'),
  ]);
}

/** Flags that keep Chromium quiet on a closed network and working as root. */
export function chromiumArgs(extra: readonly string[] = []): string[] {
  const args = [
    '--disable-gpu',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--no-first-run',
    '--disable-quic',
  ];
  if (typeof process.getuid === 'function' && process.getuid() === 0) args.push('--no-sandbox');
  return [...args, ...extra];
}
