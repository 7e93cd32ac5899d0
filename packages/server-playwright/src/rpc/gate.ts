import {
  BAPError,
  ErrorCodes,
  methods,
  scopeGranted,
  type ApprovalRequired,
  type MethodName,
  type Selector,
} from '@browseragentprotocol/protocol';
import type { PageHandle } from '../engine/pageHandle.js';
import type { BrowserSession } from '../engine/session.js';
import { limitError } from '../engine/errors.js';
import { isSensitiveField, learnSecret, sensitiveFieldMasks } from '../engine/secrets.js';
import type { ApprovalSubject } from '../security/approvals.js';
import type { ClientLimits } from '../security/rateLimits.js';
import { SecretStore } from '../security/secretStore.js';
import type { ServerSecurity } from '../security/serverSecurity.js';
import { expired, type Principal } from '../security/tokens.js';

/** Who is on the other end of a connection. */
export interface Caller {
  principal: Principal;
  /** Remote address, for limits and the audit log. */
  remote: string;
}

/** What the gate decided about one call, for the audit log. */
export interface CallRecord {
  decision: 'allowed' | 'refused' | 'approved' | 'denied' | 'timeout' | 'flagged' | 'limited';
  rule?: string;
  approver?: string;
}

/** Where a waiting approval is announced: the session's connection (or its parked buffer). */
export type Notify = (method: 'approval/required', params: ApprovalRequired) => void;

/** Methods the approval workflow never holds: the session's own plumbing and agent/act (its steps are checked). */
const NEVER_HELD = new Set<string>(['initialize', 'shutdown', 'events/subscribe', 'agent/act', 'approval/respond', 'stream/cancel']);
const SCREENSHOTS = new Set<string>(['observe/screenshot']);
/** The params holding text an agent may write `{{secret:NAME}}` into. */
const SECRET_FIELDS: Partial<Record<MethodName, string>> = { 'action/fill': 'value', 'action/type': 'text' };

/**
 * Everything between a parsed request and its handler, in one place: the token's scope and
 * expiry, the client's rate limits, secrets put into fill/type values, and human approval.
 * Every call goes through it, agent/act steps one by one included.
 */
export class CallGate {
  private readonly limits: ClientLimits;

  constructor(
    private readonly security: ServerSecurity,
    readonly caller: Caller,
  ) {
    this.limits = security.clientLimits(caller.principal);
  }

  /** Scope and expiry: checked before params are even parsed, so a refusal reveals nothing. */
  authorize(method: MethodName): void {
    const { principal } = this.caller;
    if (expired(principal)) {
      throw new BAPError(ErrorCodes.Unauthorized, `Unauthorized: token "${principal.name}" has expired.`, {
        retryable: false,
        recoveryHint: 'Reconnect with a valid token.',
      });
    }
    const scope = methods[method].scope;
    if (scope && !scopeGranted(principal.scopes, scope)) {
      throw new BAPError(ErrorCodes.Unauthorized, `Unauthorized: ${method} needs scope "${scope}", which token "${principal.name}" does not have.`, {
        retryable: false,
        details: { method, scope },
        recoveryHint: `Use a token granted "${scope}" (or "${scope.split(':')[0]}:*").`,
      });
    }
  }

  /** The client's request budget (each request of a batch counts). */
  meter(): void {
    const wait = this.limits.requests.take();
    const { requestsPerSecond } = this.security.options;
    if (wait) throw limitError('requestsPerSecond', requestsPerSecond, requestsPerSecond * 2, `Slow down: this client may send ${requestsPerSecond} requests per second, in bursts of up to ${requestsPerSecond * 2}.`, wait);
  }

  /**
   * What runs a validated call: refuses over the screenshot budget, holds it for approval when a
   * rule says so, and returns the params with secrets put in.
   */
  async admit(method: MethodName, params: Record<string, unknown>, session: BrowserSession, notify: Notify, record: CallRecord): Promise<Record<string, unknown>> {
    this.authorize(method);
    if (SCREENSHOTS.has(method) || (method === 'agent/observe' && (params.includeScreenshot || params.annotateScreenshot))) {
      const wait = this.limits.screenshots.take();
      const { screenshotsPerMinute } = this.security.options;
      if (wait) throw limitError('screenshotsPerMinute', screenshotsPerMinute, screenshotsPerMinute, 'Take fewer screenshots: agent/observe without a screenshot costs nothing here.', wait);
    }
    const approvals = this.security.approvals;
    if (methods[method].mutating && !NEVER_HELD.has(method) && approvals.needsSubject(method)) {
      await this.approve(method, params, session, notify, record);
    }
    const field = SECRET_FIELDS[method];
    const text = field ? params[field] : undefined;
    if (field && typeof text === 'string' && SecretStore.hasPlaceholder(text)) {
      const page = await currentPage(session, params.pageId);
      return { ...params, [field]: this.security.secrets.resolve(text, `params.${field}`, page?.page.url() ?? '') };
    }
    return params;
  }

  private async approve(method: MethodName, params: Record<string, unknown>, session: BrowserSession, notify: Notify, record: CallRecord): Promise<void> {
    const approvals = this.security.approvals;
    const page = await currentPage(session, params.pageId);
    const destination = method === 'page/navigate' || method === 'page/create' ? (params.url as string | undefined) : undefined;
    const selector = (params.selector ?? params.source) as Selector | undefined;
    const element = page && selector ? await describeTarget(page, selector, method) : undefined;
    const subject: ApprovalSubject = { method, pageUrl: destination ?? page?.page.url() ?? '', element: element && { role: element.role, name: element.name } };
    const rule = approvals.match(subject);
    if (!rule || rule.action === 'allow') return;
    record.rule = rule.name;
    if (rule.action === 'deny') {
      record.decision = 'denied';
      throw new BAPError(ErrorCodes.ApprovalDenied, `Approval denied: rule "${rule.name}" forbids ${method} here.`, {
        retryable: false,
        details: { rule: rule.name, method },
        recoveryHint: 'This action is not allowed by the server configuration.',
      });
    }
    if (approvals.config.mode === 'audit') {
      record.decision = 'flagged';
      return;
    }
    if (approvals.approvedForSession(session, rule.name)) {
      record.decision = 'approved';
      record.approver = 'session';
      return;
    }
    // A value about to go into a password or card field is a secret from now on, the approval request included.
    const field = SECRET_FIELDS[method];
    if (field && element?.sensitive && typeof params[field] === 'string') learnSecret(this.security.redactor, params[field]);
    const { requestId, expiresAt, decision } = approvals.wait(session, rule.name, rule.timeout);
    const screenshot = approvals.config.includeScreenshot && page ? await viewportShot(page) : undefined;
    notify('approval/required', {
      requestId,
      originalRequest: { method, params: this.security.redactor.scrubValue(params) },
      rule: rule.name,
      context: {
        pageUrl: page?.page.url() ?? '',
        pageTitle: page ? await page.page.title().catch(() => '') : '',
        ...(screenshot ? { screenshot } : {}),
        ...(element ? { elementInfo: { role: element.role, name: element.name, ...(element.bounds ? { bounds: element.bounds } : {}) } } : {}),
      },
      expiresAt,
    });
    try {
      const outcome = await decision;
      record.decision = 'approved';
      if (outcome.approver) record.approver = outcome.approver;
    } catch (error) {
      record.decision = error instanceof BAPError && error.code === ErrorCodes.ApprovalTimeout ? 'timeout' : 'denied';
      throw error;
    }
  }
}

/** The page a call targets, without opening one (approval and secrets only look). */
async function currentPage(session: BrowserSession, pageId: unknown): Promise<PageHandle | undefined> {
  if (typeof pageId === 'string') return session.page(pageId).catch(() => undefined);
  return session.activePageId ? session.page() : undefined;
}

/**
 * The role and accessible name (as Chromium computes them) of the element a selector targets;
 * undefined when it cannot be found, in which case rules naming elements do not match.
 */
async function describeTarget(page: PageHandle, selector: Selector, method: string): Promise<TargetInfo | undefined> {
  try {
    if (selector.type === 'coordinates') return await elementAtPoint(page, selector.x, selector.y);
    const locator = (await page.element(selector, method)).first();
    const timeout = Math.min(page.timeouts.action, 5_000);
    const [snapshot, box, sensitive] = await Promise.all([
      locator.ariaSnapshot({ timeout }),
      locator.boundingBox({ timeout }).catch(() => null),
      isSensitiveField(locator, timeout).catch(() => false),
    ]);
    const first = /^- ([\w-]+)(?: "((?:[^"\\]|\\.)*)")?/.exec(snapshot);
    if (!first) return undefined;
    return { role: first[1]!, name: first[2] ? (JSON.parse(`"${first[2]}"`) as string) : '', sensitive, ...(box ? { bounds: box } : {}) };
  } catch {
    return undefined;
  }
}

interface TargetInfo {
  role: string;
  name: string;
  /** A password or card field: what is typed into it is a secret. */
  sensitive: boolean;
  bounds?: { x: number; y: number; width: number; height: number };
}

/** Chromium's accessibility node for the element at a viewport point, or its nearest named ancestor. */
async function elementAtPoint(page: PageHandle, x: number, y: number): Promise<TargetInfo | undefined> {
  const cdp = await page.page.context().newCDPSession(page.page);
  try {
    const { backendNodeId } = (await cdp.send('DOM.getNodeForLocation', { x: Math.round(x), y: Math.round(y), ignorePointerEventsNone: false })) as { backendNodeId: number };
    const { nodes } = (await cdp.send('Accessibility.getPartialAXTree', { backendNodeId, fetchRelatives: true })) as {
      nodes: { nodeId: string; parentId?: string; ignored: boolean; role?: { value: string }; name?: { value: string }; backendDOMNodeId?: number }[];
    };
    const byId = new Map(nodes.map((n) => [n.nodeId, n]));
    let node = nodes.find((n) => n.backendDOMNodeId === backendNodeId);
    while (node && (node.ignored || ['generic', 'StaticText', 'InlineTextBox', 'none', 'paragraph'].includes(node.role?.value ?? '') || !node.name?.value)) {
      node = node.parentId ? byId.get(node.parentId) : undefined;
    }
    return node ? { role: node.role?.value ?? '', name: node.name?.value ?? '', sensitive: false } : undefined;
  } finally {
    await cdp.detach().catch(() => {});
  }
}

async function viewportShot(page: PageHandle): Promise<string | undefined> {
  const shot = await page.page.screenshot({ timeout: 5_000, mask: sensitiveFieldMasks(page.page) }).catch(() => undefined);
  return shot?.toString('base64');
}
