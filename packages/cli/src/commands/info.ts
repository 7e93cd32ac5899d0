import { BAPClient, PROTOCOL_VERSION } from '@browseragentprotocol/client';
import type { Command } from 'commander';
import { CLI_VERSION } from '../version.js';
import { errorMessage } from '../options.js';

interface InfoFlags {
  json?: boolean;
  token?: string;
}

function describe(client: BAPClient): string {
  const caps = client.capabilities!;
  const features = Object.entries(caps.features).filter(([, on]) => on).map(([name]) => name);
  const limits = Object.entries(caps.limits).map(([name, value]) => `${name}=${value}`);
  const rows: [string, string][] = [
    ['protocol', `${client.protocolVersion} (this client: ${PROTOCOL_VERSION})`],
    ['session', client.sessionId ?? '(none)'],
    ['browsers', caps.browsers.join(', ') || '(none)'],
    ['events', caps.events.join(', ') || '(none)'],
    ['features', features.join(', ') || '(none)'],
    ['methods', String(caps.methods.length)],
    ['limits', limits.join(' ')],
  ];
  const { name, version } = client.serverInfo!;
  return [`${name} ${version}`, ...rows.map(([key, value]) => `  ${key.padEnd(9)} ${value}`)].join('\n');
}

async function info(url: string, flags: InfoFlags): Promise<void> {
  const client = new BAPClient(url, {
    clientInfo: { name: 'bap-cli', version: CLI_VERSION },
    events: [],
    ...(flags.token === undefined ? {} : { token: flags.token }),
  });
  try {
    const init = await client.connect();
    const text = flags.json ? JSON.stringify(init, null, 2) : describe(client);
    process.stdout.write(`${text}\n`);
  } catch (error) {
    process.stderr.write(`bap info: cannot connect to ${url}: ${errorMessage(error)}\n`);
    process.exitCode = 1;
  } finally {
    await client.close();
  }
}

export function registerInfo(program: Command): void {
  program
    .command('info')
    .description("Connect to a BAP server and print its name, version, protocol version and capabilities.")
    .argument('<url>', 'server WebSocket URL, e.g. ws://127.0.0.1:9222')
    .option('--json', 'print the initialize result as JSON')
    .option('--token <token>', 'access token (sent as ?token=)')
    .action(info);
}
