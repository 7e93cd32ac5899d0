import { Command } from 'commander';
import { registerAudit } from './commands/audit.js';
import { registerConnect } from './commands/connect.js';
import { registerInfo } from './commands/info.js';
import { registerMcp } from './commands/mcp.js';
import { registerServe } from './commands/serve.js';
import { CLI_VERSION } from './version.js';

export function createProgram(): Command {
  const program = new Command('bap')
    .description('Browser Agent Protocol: run a BAP server, inspect one, or talk to it by hand.')
    .version(CLI_VERSION, '-V, --version', 'print the version')
    .helpOption('-h, --help', 'show help for a command')
    .showHelpAfterError();
  registerServe(program);
  registerInfo(program);
  registerConnect(program);
  registerAudit(program);
  registerMcp(program);
  program.addHelpText(
    'after',
    '\nExamples:\n  bap serve --port 9222\n  bap info ws://127.0.0.1:9222\n  echo \'page/navigate {"url":"https://example.com"}\' | bap connect ws://127.0.0.1:9222',
  );
  return program;
}
