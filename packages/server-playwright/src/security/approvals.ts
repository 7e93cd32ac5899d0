import { randomUUID } from 'node:crypto';
import {
  ApprovalConfigSchema,
  BAPError,
  ErrorCodes,
  formatZodError,
  type ApprovalConfig,
  type ApprovalRespondParams,
  type ResolvedApprovalConfig,
} from '@browseragentprotocol/protocol';
import { limitError } from '../engine/errors.js';
import { urlMatchesHosts } from './domainPolicy.js';

type Rule = ResolvedApprovalConfig['rules'][number];

/** What a rule is matched against: the request and, lazily, its page and target element. */
export interface ApprovalSubject {
  method: string;
  pageUrl: string;
  element: { role: string; name: string } | undefined;
}

/** How a request fared: run (`allowed`, `approved`, `flagged` in audit mode) or refused. */
export interface ApprovalOutcome {
  decision: 'allowed' | 'approved' | 'flagged';
  rule?: string;
  approver?: string;
}

interface Pending {
  session: object;
  rule: string;
  resolve(answer: { decision: ApprovalRespondParams['decision']; reason?: string; approver: string }): void;
}

/**
 * Human approval of sensitive requests (bap-roadmap §5). Rules are checked in order and the
 * first match decides; `require` sends approval/required to the session's connection and waits
 * for approval/respond — from that connection or any other holding the approval:respond scope —
 * or for the rule's timeout. Pending approvals are kept server-wide by unguessable id.
 */
export class ApprovalBroker {
  readonly config: ResolvedApprovalConfig;
  private readonly patterns: Map<Rule, RegExp[][]>;
  private readonly pending = new Map<string, Pending>();
  /** Per session: rules approved for the rest of it (approve-session). */
  private readonly sessionApprovals = new WeakMap<object, Set<string>>();

  constructor(
    config: ApprovalConfig | undefined,
    private readonly maxPending: number,
  ) {
    const parsed = ApprovalConfigSchema.safeParse(config ?? { mode: 'disabled' });
    if (!parsed.success) throw new Error(`Invalid approval config: ${formatZodError(parsed.error, 'approval').message}`);
    this.config = parsed.data;
    this.patterns = new Map(
      this.config.rules.map((rule, i) => {
        const compile = (source: string, field: string) => {
          try {
            return new RegExp(source, 'i');
          } catch (error) {
            throw new Error(`Invalid approval config: approval.rules.${i}.match.${field}: ${(error as Error).message}`);
          }
        };
        const names = (rule.match.selectors ?? []).map((s, j) => compile(s.namePattern ?? '', `selectors.${j}.namePattern`));
        const urls = (rule.match.urlPatterns ?? []).map((u, j) => compile(u, `urlPatterns.${j}`));
        return [rule, [names, urls]];
      }),
    );
  }

  get enabled(): boolean {
    return this.config.mode !== 'disabled';
  }

  /** Whether a rule could need the page or element (so the caller looks them up). */
  needsSubject(method: string): boolean {
    return this.enabled && (this.config.defaultAction === 'require' || this.config.rules.some((r) => actionMatches(r, method)));
  }

  /** The rule deciding `subject`, or a synthetic `default` rule when defaultAction is require. */
  match(subject: ApprovalSubject): { name: string; action: Rule['action']; timeout: number } | null {
    for (const rule of this.config.rules) {
      if (this.matches(rule, subject)) return { name: rule.name, action: rule.action, timeout: rule.timeout ?? this.config.timeout };
    }
    return this.config.defaultAction === 'require' ? { name: 'default', action: 'require', timeout: this.config.timeout } : null;
  }

  /** Whether approve-session already covers this rule in this session. */
  approvedForSession(session: object, rule: string): boolean {
    return this.sessionApprovals.get(session)?.has(rule) ?? false;
  }

  /**
   * Registers a waiting request and returns its id and a promise of the decision; the promise
   * rejects with ApprovalTimeout after `timeout` ms.
   */
  wait(session: object, rule: string, timeout: number): { requestId: string; expiresAt: number; decision: Promise<ApprovalOutcome> } {
    const waiting = [...this.pending.values()].filter((p) => p.session === session).length;
    if (waiting >= this.maxPending) {
      throw limitError('pendingApprovals', this.maxPending, waiting, 'Answer the waiting approval/required notifications (approval/respond) first.', 1_000);
    }
    const requestId = randomUUID();
    const expiresAt = Date.now() + timeout;
    const decision = new Promise<ApprovalOutcome>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(requestId);
        reject(
          new BAPError(ErrorCodes.ApprovalTimeout, `Approval timed out: nobody answered within ${timeout} ms (rule "${rule}").`, {
            details: { requestId, rule, timeout },
            recoveryHint: 'Answer approval/required notifications with approval/respond {requestId, decision} before they expire.',
          }),
        );
      }, timeout);
      this.pending.set(requestId, {
        session,
        rule,
        resolve: ({ decision: answer, reason, approver }) => {
          clearTimeout(timer);
          this.pending.delete(requestId);
          if (answer === 'deny') {
            reject(
              new BAPError(ErrorCodes.ApprovalDenied, `Approval denied${reason ? `: ${reason}` : ''} (rule "${rule}").`, {
                retryable: false,
                details: { requestId, rule, approver, ...(reason ? { reason } : {}) },
                recoveryHint: 'A person refused this action; do not retry it unchanged.',
              }),
            );
            return;
          }
          if (answer === 'approve-session') {
            const approved = this.sessionApprovals.get(session) ?? new Set<string>();
            approved.add(rule);
            this.sessionApprovals.set(session, approved);
          }
          resolve({ decision: 'approved', rule, approver });
        },
      });
    });
    return { requestId, expiresAt, decision };
  }

  /** approval/respond: false when the id is unknown, answered or expired. */
  respond(params: ApprovalRespondParams, approver: string): { acknowledged: boolean } {
    const pending = this.pending.get(params.requestId);
    if (!pending) return { acknowledged: false };
    pending.resolve({ decision: params.decision, ...(params.reason ? { reason: params.reason } : {}), approver });
    return { acknowledged: true };
  }

  /** The session ended: its waiting requests are denied rather than left hanging. */
  forget(session: object): void {
    for (const pending of [...this.pending.values()]) {
      if (pending.session === session) pending.resolve({ decision: 'deny', reason: 'the session ended', approver: 'server' });
    }
  }

  private matches(rule: Rule, subject: ApprovalSubject): boolean {
    const [names, urls] = this.patterns.get(rule)!;
    const { match } = rule;
    if (!actionMatches(rule, subject.method)) return false;
    if (match.selectors?.length) {
      const element = subject.element;
      if (!element) return false;
      const hit = match.selectors.some((s, i) => (!s.role || s.role === element.role) && names![i]!.test(element.name));
      if (!hit) return false;
    }
    if (match.domains?.length && !urlMatchesHosts(match.domains, subject.pageUrl)) return false;
    if (urls!.length && !urls!.some((u) => u.test(subject.pageUrl))) return false;
    return true;
  }
}

function actionMatches(rule: Rule, method: string): boolean {
  const actions = rule.match.actions;
  if (!actions?.length) return true;
  return actions.some((a) => a === method || (a.endsWith('/*') && method.startsWith(a.slice(0, -1))));
}
