import { BAPError, ErrorCodes } from '@browseragentprotocol/protocol';
import { defaultRefusal, hostOfUrl, knownAddresses, parseHostPattern, patternMatches, type HostPattern } from './policyHosts.js';

/** An allow list and what to call it in a refusal. */
interface AllowList {
  label: string;
  patterns: readonly HostPattern[];
}

/** Names refused for the address they resolved to, kept so a later refusal(url) can say why. */
const REMEMBERED_REFUSALS = 256;

/**
 * Which hosts a browser context may reach: every allow list that is not empty must match a host
 * (the server's, then a token's), no block-list pattern may, and cloud metadata services never
 * can. The policy proxy enforces it on every connection; `refusal` answers for a URL up front.
 */
export class DomainPolicy {
  private readonly remembered = new Map<string, string>();

  private constructor(
    private readonly allowLists: readonly AllowList[],
    private readonly blocked: readonly HostPattern[],
  ) {}

  /** Throws on an invalid pattern, naming it. */
  static create(options: { allow?: readonly string[]; deny?: readonly string[] }): DomainPolicy {
    const allow = (options.allow ?? []).map(parseHostPattern);
    return new DomainPolicy(allow.length ? [{ label: 'the allowed list', patterns: allow }] : [], (options.deny ?? []).map(parseHostPattern));
  }

  /** This policy narrowed by a token's allowedDomains (hosts must pass both). */
  narrow(allow: readonly string[] | undefined): DomainPolicy {
    if (!allow?.length) return this;
    return new DomainPolicy([...this.allowLists, { label: "the token's allowed list", patterns: allow.map(parseHostPattern) }], this.blocked);
  }

  /** Whether the user set a policy (an allow or a block list); without one only the defaults apply. */
  get restricts(): boolean {
    return this.allowLists.length > 0 || this.blocked.length > 0;
  }

  /**
   * Why `url` may not be reached, or null when it may. A navigation must also be http(s) or
   * about:blank; a request to a URL the browser does not connect for (data:, blob:) is never
   * refused. Names are judged as far as is known without DNS, and by what the proxy found when
   * it resolved them.
   */
  refusal(url: string, kind: 'navigation' | 'request'): string | null {
    if (kind === 'navigation') {
      const scheme = schemeRefusal(url);
      if (scheme) return scheme;
    }
    const host = hostOfUrl(url);
    if (host === null) return null;
    return this.refusalOfHost(host) ?? this.remembered.get(host) ?? null;
  }

  /** Why `host` (normalised) may not be reached, or null; see `admit`. */
  refusalOfHost(host: string, addresses?: readonly string[]): string | null {
    const verdict = this.admit(host, addresses);
    return 'refusal' in verdict ? verdict.refusal : null;
  }

  /**
   * The addresses `host` (normalised) may be reached at, or why it may not. Its addresses are
   * those known without DNS (literals, `*.localhost`), else `addresses` as resolved; without
   * either, IP and CIDR patterns cannot judge it yet and `addresses` comes back empty. One
   * blocked address refuses the host; addresses no allow list admits are left out. A refusal
   * because of resolved addresses is remembered for `refusal`.
   */
  admit(host: string, addresses?: readonly string[]): { addresses: string[] } | { refusal: string } {
    const known = knownAddresses(host);
    const checked: (string | null)[] = known ?? (addresses ? [...addresses] : [null]);
    const refuse = (refusal: string) => {
      if (!known && addresses) this.remember(host, refusal);
      return { refusal };
    };
    for (const address of checked) {
      const why = this.blockedBy(host, address);
      if (why) return refuse(why);
    }
    const admitted = checked.filter((address) => this.notAllowedBy(host, address) === null);
    if (!admitted.length) return refuse(this.notAllowedBy(host, checked[0] ?? null)!);
    return { addresses: admitted.filter((address) => address !== null) };
  }

  /** Why `host` at `address` is blocked: the defaults, then the block list. */
  private blockedBy(host: string, address: string | null): string | null {
    const always = defaultRefusal(host, address);
    if (always) return always;
    const block = this.blocked.find((p) => patternMatches(p, host, address));
    return block ? `${block.kind === 'range' ? subject(host, address) : host} matches the blocked pattern "${block.text}"` : null;
  }

  /** Which allow list leaves `host` at `address` out. `address` null: not known yet, so IP and CIDR patterns do not judge. */
  private notAllowedBy(host: string, address: string | null): string | null {
    for (const list of this.allowLists) {
      if (list.patterns.some((p) => patternMatches(p, host, address))) continue;
      const ranges = list.patterns.some((p) => p.kind === 'range');
      if (address === null && ranges) continue;
      return `${ranges ? subject(host, address) : host} is not on ${list.label}`;
    }
    return null;
  }

  private remember(host: string, why: string): void {
    this.remembered.delete(host);
    this.remembered.set(host, why);
    if (this.remembered.size > REMEMBERED_REFUSALS) this.remembered.delete(this.remembered.keys().next().value!);
  }
}

/** The host, and the address an IP or CIDR pattern judged it by. */
function subject(host: string, address: string | null): string {
  return address === null || address === host ? host : `${host} (${address})`;
}

/** Why a URL may not be navigated to whatever the host: only http(s) pages and about:blank may. */
function schemeRefusal(url: string): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `"${url}" is not a valid URL`;
  }
  if (parsed.protocol === 'http:' || parsed.protocol === 'https:') return null;
  if (parsed.protocol === 'about:' && parsed.pathname === 'blank') return null;
  return `${parsed.protocol} URLs cannot be opened (only http:, https: and about:blank)`;
}

/** -32041 for a navigation the domain policy refused: which URL and host, and why. */
export function domainNotAllowed(url: string, reason: string): BAPError {
  return new BAPError(ErrorCodes.DomainNotAllowed, `Domain not allowed: ${reason}.`, {
    details: { url, host: hostOfUrl(url), reason },
    recoveryHint: 'The server\'s domain policy (--allowed-domain, --blocked-domain, the token\'s allowedDomains) refuses this; navigate to a host it allows.',
  });
}

/** Whether `url`'s host matches any of the patterns (`example.com`, `*.example.com`, IP, CIDR); invalid patterns match nothing. */
export function urlMatchesHosts(patterns: readonly string[], url: string): boolean {
  const host = hostOfUrl(url);
  if (host === null) return false;
  const addresses = knownAddresses(host) ?? [null];
  return patterns.some((text) => {
    try {
      const pattern = parseHostPattern(text);
      return addresses.some((address) => patternMatches(pattern, host, address));
    } catch {
      return false;
    }
  });
}
