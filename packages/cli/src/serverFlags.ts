import { readFileSync } from 'node:fs';
import { errorMessage } from './options.js';

/** The flags `bap serve` and `bap mcp` share for files of secrets, tokens, approvals and TLS. */
export interface SecurityFlags {
  tokensFile?: string;
  secretsFile?: string;
  approvalFile?: string;
  auditLog?: string;
  auditMaxBytes?: number;
  auditMaxFiles?: number;
  tlsCert?: string;
  tlsKey?: string;
}

/** Commander's collector for repeatable options. */
export const collect = (value: string, all: string[] = []) => [...all, value];

/** Commander's collector for comma-separated, repeatable lists: `--caps a,b --caps c`. */
export const collectList = (value: string, all: string[] = []) => [...all, ...value.split(',').map((v) => v.trim()).filter(Boolean)];

/** A JSON file's contents, or a one-line reason it cannot be used. */
function readJson(path: string, what: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new Error(`cannot read the ${what} ${path}: ${errorMessage(error)}`);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new Error(`the ${what} ${path} is not valid JSON: ${errorMessage(error)}`);
  }
}

function readPem(path: string, flag: string): Buffer {
  const pem = readFileSync(path);
  if (!pem.includes('-----BEGIN ')) throw new Error(`${flag} ${path} is not a PEM file`);
  return pem;
}

/**
 * Security settings from flags and the environment: `--tokens-file` or `$BAP_TOKENS` (the same
 * JSON), `--secrets-file` plus `$BAP_SECRET_<NAME>` variables, `--approval-file`, TLS files.
 */
export function securityOptions(flags: SecurityFlags, env: NodeJS.ProcessEnv) {
  const tokens = flags.tokensFile ? readJson(flags.tokensFile, 'tokens file') : env.BAP_TOKENS ? JSON.parse(env.BAP_TOKENS) : undefined;
  const secrets: Record<string, unknown> = flags.secretsFile ? { ...(readJson(flags.secretsFile, 'secrets file') as object) } : {};
  for (const [key, value] of Object.entries(env)) {
    if (key.startsWith('BAP_SECRET_') && value) secrets[key.slice('BAP_SECRET_'.length)] = value;
  }
  if ((flags.tlsCert === undefined) !== (flags.tlsKey === undefined)) throw new Error('--tls-cert and --tls-key go together');
  return {
    tokens,
    secrets,
    approval: flags.approvalFile ? readJson(flags.approvalFile, 'approval file') : undefined,
    audit: flags.auditLog ? { path: flags.auditLog, maxBytes: flags.auditMaxBytes, maxFiles: flags.auditMaxFiles } : undefined,
    tls: flags.tlsCert && flags.tlsKey ? { cert: readPem(flags.tlsCert, '--tls-cert'), key: readPem(flags.tlsKey, '--tls-key') } : undefined,
  };
}

