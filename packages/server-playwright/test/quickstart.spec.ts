import { spawn, execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect, test } from 'vitest';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const run = promisify(execFile);

test("the README's quick start runs against `bap serve`", async () => {
  const server = spawn(process.execPath, ['packages/cli/dist/bin.js', 'serve', '--port', '0', '--quiet'], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let out = '';
      server.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        const ready = /BAP server ready on (ws:\/\/\S+)/.exec(out);
        if (ready) resolve(ready[1]!);
      });
      server.once('exit', (code) => reject(new Error(`bap serve exited with ${code}`)));
    });
    const { stdout } = await run(process.execPath, ['docs/quickstart.mjs'], { cwd: root, env: { ...process.env, BAP_URL: url } });
    expect(stdout).toMatch(/button "Save" \[ref=@e\d+\]/);
  } finally {
    server.kill('SIGTERM');
  }
});
