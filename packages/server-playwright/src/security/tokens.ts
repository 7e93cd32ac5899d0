import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';
import { TokenGrantSchema, expandScopes, formatZodError, type TokenGrant } from '@browseragentprotocol/protocol';

/** Who is calling: the token's name and grant, or `local` (every scope) when no tokens are configured. */
export interface Principal {
  name: string;
  scopes: string[];
  allowedDomains: string[] | undefined;
  /** Unix ms; undefined: never. */
  expiresAt: number | undefined;
}

export const LOCAL_PRINCIPAL: Principal = { name: 'local', scopes: ['*'], allowedDomains: undefined, expiresAt: undefined };

const TOKEN = /^\S{16,512}$/;

interface Entry {
  digest: Buffer;
  principal: Principal;
}

/**
 * The accepted tokens, kept as SHA-256 digests and compared in constant time: the time a
 * refusal takes says nothing about how close a guess was.
 */
export class TokenTable {
  private readonly entries: Entry[];
  readonly secrets: string[];

  constructor(tokens: Record<string, TokenGrant> | undefined) {
    this.secrets = Object.keys(tokens ?? {});
    this.entries = Object.entries(tokens ?? {}).map(([token, given], i) => {
      // Errors name the token by its position and name, never by the token itself.
      const label = `tokens[${i}]${typeof given?.name === 'string' ? ` ("${given.name}")` : ''}`;
      if (!TOKEN.test(token)) throw new Error(`Invalid tokens: ${label}: a token is 16 to 512 non-space characters.`);
      const parsed = TokenGrantSchema.safeParse(given);
      if (!parsed.success) throw new Error(`Invalid tokens: ${formatZodError(parsed.error, label).message}`);
      const grant = parsed.data;
      return {
        digest: digest(token),
        principal: {
          name: grant.name,
          scopes: expandScopes(grant.scopes),
          allowedDomains: grant.allowedDomains,
          expiresAt: grant.expiresAt === undefined ? undefined : typeof grant.expiresAt === 'number' ? grant.expiresAt : Date.parse(grant.expiresAt),
        },
      };
    });
  }

  get principals(): Principal[] {
    return this.entries.map((e) => e.principal);
  }

  get enabled(): boolean {
    return this.entries.length > 0;
  }

  /**
   * The principal a request authenticates as, or why it cannot. Without tokens only loopback
   * clients are let in.
   */
  authenticate(req: IncomingMessage): { principal: Principal } | { refusal: string } {
    if (!this.enabled) {
      return isLoopback(req.socket.remoteAddress) ? { principal: LOCAL_PRINCIPAL } : { refusal: 'Only loopback clients may connect to a server without tokens.' };
    }
    const token = presentedToken(req);
    if (!token) return { refusal: 'Unauthorized: a token is required (?token=, Authorization: Bearer or X-BAP-Token).' };
    const presented = digest(token);
    let match: Entry | undefined;
    for (const entry of this.entries) if (timingSafeEqual(entry.digest, presented)) match ??= entry;
    if (!match) return { refusal: 'Unauthorized: the token is not valid.' };
    if (expired(match.principal)) return { refusal: `Unauthorized: token "${match.principal.name}" has expired.` };
    return { principal: match.principal };
  }
}

export function expired(principal: Principal, now = Date.now()): boolean {
  return principal.expiresAt !== undefined && now >= principal.expiresAt;
}

function presentedToken(req: IncomingMessage): string | undefined {
  const auth = req.headers.authorization;
  if (auth && /^Bearer\s+/i.test(auth)) return auth.replace(/^Bearer\s+/i, '').trim();
  const header = req.headers['x-bap-token'];
  if (typeof header === 'string' && header) return header;
  const query = new URL(req.url ?? '/', 'http://x').searchParams.get('token');
  return query ?? undefined;
}

function digest(token: string): Buffer {
  return createHash('sha256').update(token).digest();
}

export function isLoopback(address: string | undefined): boolean {
  if (!address) return false;
  const plain = address.startsWith('::ffff:') ? address.slice(7) : address;
  return plain === '::1' || (isIP(plain) === 4 && plain.startsWith('127.'));
}

/** Whether binding `host` exposes the server beyond this machine. */
export function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || isLoopback(host);
}
