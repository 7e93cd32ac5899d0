import type { Logger } from 'pino';
import type { ResolvedServerOptions } from '../options.js';
import { AuditLog } from './audit.js';
import type { SessionGuards } from '../engine/session.js';
import { DomainPolicy } from './domainPolicy.js';
import { ApprovalBroker } from './approvals.js';
import { ClientLimits, ConnectionCounter } from './rateLimits.js';
import { Redactor } from './redactor.js';
import { SecretStore } from './secretStore.js';
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
  readonly secrets: SecretStore;
  readonly approvals: ApprovalBroker;
  readonly connections: ConnectionCounter;
  readonly audit: AuditLog | null;
  /** The server's logger, with every argument scrubbed before it is written. */
  readonly log: Logger;
  /** Rate budgets per token name (all of a token's connections share them). */
  private readonly tokenLimits = new Map<string, ClientLimits>();

  constructor(readonly options: ResolvedServerOptions) {
    this.tokens = new TokenTable(options.tokens);
    if (!this.tokens.enabled && !isLoopbackHost(options.host)) {
      throw new Error(`Refusing to bind ${options.host} without tokens: anyone who can reach it could drive the browser. Configure tokens (--tokens-file or BAP_TOKENS), or bind 127.0.0.1.`);
    }
    this.redactor = new Redactor(options.redactPatterns);
    for (const token of this.tokens.secrets) this.redactor.add(token, '[REDACTED:token]');
    this.policy = DomainPolicy.create({ allow: options.allowedDomains, deny: options.blockedDomains });
    // A token's bad domain pattern is refused now, not when its first session opens.
    for (const principal of this.tokens.principals) this.policy.narrow(principal.allowedDomains);
    this.secrets = new SecretStore(options.secrets, this.redactor);
    this.approvals = new ApprovalBroker(options.approval, options.maxPendingApprovals);
    this.connections = new ConnectionCounter(options.maxConnectionsPerIp);
    this.log = redacting(options.logger, this.redactor);
    const log = this.log;
    this.audit = options.audit
      ? AuditLog.open({ ...options.audit, onError: (error) => log.error({ err: error }, 'audit log write failed') })
      : null;
  }

  close(): void {
    this.audit?.close();
  }

  /**
   * A client's rate budgets: shared by every connection of a token, or the connection's own when
   * the server has no tokens.
   */
  clientLimits(principal: Principal): ClientLimits {
    const fresh = () => new ClientLimits(this.options.requestsPerSecond, this.options.screenshotsPerMinute);
    if (!this.tokens.enabled) return fresh();
    let limits = this.tokenLimits.get(principal.name);
    if (!limits) this.tokenLimits.set(principal.name, (limits = fresh()));
    return limits;
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

const LEVELS = new Set(['fatal', 'error', 'warn', 'info', 'debug', 'trace']);

/** A logger whose arguments (objects, errors, messages) pass through the redactor first. */
function redacting(logger: Logger, redactor: Redactor): Logger {
  const scrub = (arg: unknown): unknown => {
    if (arg instanceof Error) return { type: arg.name, message: redactor.scrub(arg.message), stack: redactor.scrub(arg.stack ?? '') };
    if (arg && typeof arg === 'object') {
      return Object.fromEntries(Object.entries(arg).map(([k, v]) => [k, v instanceof Error ? scrub(v) : redactor.scrubValue(v)]));
    }
    return typeof arg === 'string' ? redactor.scrub(arg) : arg;
  };
  return new Proxy(logger, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver) as unknown;
      if (typeof key === 'string' && LEVELS.has(key) && typeof value === 'function') {
        // A level that is off writes nothing: nothing to scrub.
        return (...args: unknown[]) => {
          if (target.isLevelEnabled(key)) (value as (...a: unknown[]) => void).apply(target, args.map(scrub));
        };
      }
      if (key === 'child' && typeof value === 'function') {
        return (...args: unknown[]) => redacting((value as (...a: unknown[]) => Logger).apply(target, args), redactor);
      }
      return value;
    },
  });
}
