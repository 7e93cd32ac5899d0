/**
 * Which hosts a browser context may reach. STUB: the real policy (normalisation, wildcards,
 * CIDR, metadata addresses) replaces this file.
 */
export class DomainPolicy {
  private constructor(
    readonly allow: readonly string[],
    readonly deny: readonly string[],
  ) {}

  static create(options: { allow?: readonly string[]; deny?: readonly string[] }): DomainPolicy {
    return new DomainPolicy(options.allow ?? [], options.deny ?? []);
  }

  /** This policy narrowed by a token's allowedDomains (hosts must pass both). */
  narrow(allow: readonly string[] | undefined): DomainPolicy {
    return allow ? new DomainPolicy([...this.allow, ...allow], this.deny) : this;
  }

  /** Why `url` may not be reached, or null when it may. */
  refusal(url: string, _kind: 'navigation' | 'request'): string | null {
    void url;
    return null;
  }
}

/** Whether `url`'s host matches any of the patterns (`example.com`, `*.example.com`, IP, CIDR). */
export function urlMatchesHosts(patterns: readonly string[], url: string): boolean {
  try {
    const host = new URL(url).hostname.toLowerCase();
    return patterns.some((p) => (p.startsWith('*.') ? host.endsWith(p.slice(1).toLowerCase()) : host === p.toLowerCase()));
  } catch {
    return false;
  }
}
