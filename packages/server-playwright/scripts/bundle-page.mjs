// Bundles the scripts the server runs inside pages (src/page/*.ts, with their npm dependencies)
// into dist/page/<name>.bundle.js: one IIFE each that leaves its exports on a local `page`.
import { build } from 'esbuild';

await build({
  entryPoints: [new URL('../src/page/walkInteractive.ts', import.meta.url).pathname],
  outfile: new URL('../dist/page/walkInteractive.bundle.js', import.meta.url).pathname,
  bundle: true,
  format: 'iife',
  globalName: 'page',
  minify: true,
  target: 'chrome120',
  legalComments: 'none',
  logLevel: 'warning',
});
