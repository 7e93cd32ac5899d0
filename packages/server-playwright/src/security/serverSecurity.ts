import type { ResolvedServerOptions } from '../options.js';
import type { SessionGuards } from '../engine/session.js';
import { DomainPolicy } from './domainPolicy.js';
import { Redactor } from './redactor.js';
import { TokenTable, isLoopbackHost, type Principal } from './tokens.js';

/**
 * The server's security state, built once from its options: who may connect, what they may
 * reach, and what must never be shown. Throws at start-up on a configuration that would be
 * unsafe or invalid.
 */
export class ServerSecurity {
  readonly tokens: TokenTable;
  readonly redactor: Redactor;
  readonly policy: DomainPolicy;

  constructor(private readonly options: ResolvedServerOptions) {
    this.tokens = new TokenTable(options.tokens);
    if (!this.tokens.enabled && !isLoopbackHost(options.host)) {
      throw new Error(`Refusing to bind ${options.host} without tokens: anyone who can reach it could drive the browser. Configure tokens (--tokens-file or BAP_TOKENS), or bind 127.0.0.1.`);
    }
    this.redactor = new Redactor(options.redactPatterns);
    for (const token of this.tokens.secrets) this.redactor.add(token, '[REDACTED:token]');
    this.policy = DomainPolicy.create({ allow: options.allowedDomains, deny: options.blockedDomains });
  }

  /** What a session opened by `principal` runs under: the server's policy narrowed by the token's. */
  guards(principal: Principal): SessionGuards {
    return {
      policy: this.policy.narrow(principal.allowedDomains),
      redactor: this.redactor,
      maxRefs: this.options.maxRefs,
      maxInterceptRules: this.options.maxSubscriptions,
    };
  }
}
