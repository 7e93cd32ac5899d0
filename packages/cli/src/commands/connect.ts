import { createInterface, type Interface } from 'node:readline';
import { BAPClient, BAPError, type MethodName, type MethodParams } from '@browseragentprotocol/client';
import { EventTypeSchema, methods, methodNames } from '@browseragentprotocol/protocol';
import type { Command } from 'commander';
import { errorMessage } from '../options.js';
import { parseReplLine } from '../replLine.js';
import { CLI_VERSION } from '../version.js';

interface ConnectFlags {
  token?: string;
}

const out = (text: string) => process.stdout.write(`${text}\n`);
const pretty = (value: unknown) => JSON.stringify(value, null, 2);

function helpText(): string {
  const width = Math.max(...methodNames.map((name) => name.length));
  return [
    'Each line is one of:',
    '  METHOD [JSON params]     e.g. page/navigate {"url":"https://example.com"}',
    '  {…} or […]               a raw JSON-RPC message or batch, sent as is',
    '  .help  .exit             (end of input exits too)',
    '',
    'Methods:',
    ...methodNames.map((name) => `  ${name.padEnd(width)}  ${methods[name].description}`),
  ].join('\n');
}

/** Results go to stdout as JSON; wire errors too (they are answers); local failures go to stderr. */
async function runLine(client: BAPClient, input: string): Promise<'continue' | 'exit'> {
  const line = parseReplLine(input);
  try {
    switch (line.kind) {
      case 'empty':
        break;
      case 'exit':
        return 'exit';
      case 'help':
        out(helpText());
        break;
      case 'invalid':
        process.stderr.write(`error: ${line.reason}\n`);
        break;
      case 'raw': {
        const reply = await client.sendRaw(line.message);
        if (reply !== undefined) out(pretty(reply));
        break;
      }
      case 'call':
        // The server validates params and answers with the field at fault, which is what a REPL user wants to see.
        out(pretty(await client.call(line.method, line.params as MethodParams<MethodName>)));
        break;
    }
  } catch (error) {
    if (error instanceof BAPError) out(pretty({ error: { name: error.name, ...error.toWire() } }));
    else process.stderr.write(`error: ${errorMessage(error)}\n`);
  }
  return 'continue';
}

function prompt(rl: Interface, interactive: boolean, preserveCursor = false): void {
  if (interactive) rl.prompt(preserveCursor);
}

async function connect(url: string, flags: ConnectFlags): Promise<void> {
  // Every event type: a REPL is for watching what happens; the server reports the ones it lacks.
  const client = new BAPClient(url, {
    clientInfo: { name: 'bap-cli', version: CLI_VERSION },
    events: [...EventTypeSchema.options],
    ...(flags.token === undefined ? {} : { token: flags.token }),
  });
  try {
    await client.connect();
  } catch (error) {
    process.stderr.write(`bap connect: cannot connect to ${url}: ${errorMessage(error)}\n`);
    process.exitCode = 1;
    return;
  }
  const interactive = process.stdin.isTTY === true;
  const rl = createInterface({ input: process.stdin, ...(interactive ? { output: process.stdout, prompt: 'bap> ' } : {}), terminal: interactive });
  const { name, version } = client.serverInfo!;
  process.stderr.write(`Connected to ${name} ${version} (protocol ${client.protocolVersion}). Type .help for methods.\n`);

  client.on('notification', ({ method, params }) => {
    out(`← ${method} ${JSON.stringify(params)}`);
    prompt(rl, interactive, true);
  });
  client.on('error', (error) => process.stderr.write(`error: ${errorMessage(error)}\n`));
  let closing = false;
  let lost = false;
  client.on('close', ({ code, reason }) => {
    if (closing) return;
    lost = true;
    process.stderr.write(`bap connect: connection closed by the server (code ${code}${reason ? `, ${reason}` : ''})\n`);
    rl.close();
  });

  prompt(rl, interactive);
  for await (const input of rl) {
    if ((await runLine(client, input)) === 'exit' || lost) break;
    prompt(rl, interactive);
  }
  closing = true;
  rl.close();
  await client.close();
  if (lost) process.exitCode = 1;
}

export function registerConnect(program: Command): void {
  program
    .command('connect')
    .description('Open an interactive JSON-RPC prompt to a BAP server (also reads piped stdin, one request per line).')
    .argument('<url>', 'server WebSocket URL, e.g. ws://127.0.0.1:9222')
    .option('--token <token>', 'access token (sent as ?token=)')
    .addHelpText(
      'after',
      [
        '',
        'Lines:',
        '  page/navigate {"url":"https://example.com"}',
        '  observe/ariaSnapshot',
        '  {"jsonrpc":"2.0","id":1,"method":"page/list"}',
        '  .help    list the methods with their descriptions',
        '  .exit    close the session (end of input does too)',
        'Notifications are printed as they arrive, prefixed with ←.',
      ].join('\n'),
    )
    .action(connect);
}
