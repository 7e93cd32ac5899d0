import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BAPClient } from '@browseragentprotocol/client';
import { ErrorCodes, type ApprovalRequired, type ApprovalConfig } from '@browseragentprotocol/protocol';
import { expectBAPError } from './support/expectations.js';
import { startHarness, type Harness } from './support/harness.js';

/** The approval config docs/security.md shows: payments and deletions need a person, /wipe is never visited. */
const PAYMENTS = JSON.parse(
  /```json approval-config\n([\s\S]*?)```/.exec(readFileSync(new URL('../docs/security.md', import.meta.url), 'utf8'))![1]!,
) as ApprovalConfig;

const pay = { type: 'role', role: 'button', name: 'Pay now' } as const;
const del = { type: 'role', role: 'button', name: 'Delete account' } as const;
const cancel = { type: 'role', role: 'button', name: 'Cancel' } as const;

/** The ids of the buttons clicked so far, as the page shows them. */
async function clicks(client: BAPClient, pageId: string): Promise<string[]> {
  const { content } = await client.call('observe/content', { pageId, format: 'text' });
  const line = /clicks:([^\n]*)/.exec(content)?.[1]?.trim() ?? '';
  return line ? line.split(',') : [];
}

/** The next approval/required notification the client receives. */
function nextApproval(client: BAPClient): Promise<ApprovalRequired> {
  return new Promise((resolve) => {
    const off = client.on('approval/required', (request) => {
      off();
      resolve(request);
    });
  });
}

describe('approval workflow (mode required)', () => {
  let h: Harness;
  let dir: string;
  let auditPath: string;
  let pageId: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'bap-approvals-'));
    auditPath = join(dir, 'audit.log');
    h = await startHarness({ server: { approval: PAYMENTS, audit: { path: auditPath } } });
    ({ id: pageId } = await h.client.call('page/create', { url: h.url('approvals.html') }));
  });

  afterAll(async () => {
    await h?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('approve: the click waits for the decision, then happens', async () => {
    const asked = nextApproval(h.client);
    const click = h.client.call('action/click', { pageId, selector: pay });
    const request = await asked;
    expect(request.rule).toBe('payments');
    expect(request.originalRequest).toEqual({ method: 'action/click', params: expect.objectContaining({ pageId, selector: pay }) });
    expect(request.context.pageUrl).toBe(h.url('approvals.html'));
    expect(request.context.pageTitle).toBe('Checkout');
    expect(request.context.elementInfo).toMatchObject({ role: 'button', name: 'Pay now', bounds: { x: 20, y: 80, width: 160, height: 40 } });
    expect(request.context.screenshot?.slice(0, 8)).toBe('iVBORw0K');
    expect(request.expiresAt).toBeGreaterThan(Date.now());
    // (The page's other requests queue behind the waiting click: its lane is held.)
    expect(await h.client.respondToApproval(request.requestId, 'approve', 'looks right')).toEqual({ acknowledged: true });
    await click;
    expect(await clicks(h.client, pageId)).toEqual(['pay']);
    // The id is spent: a second answer is not acknowledged.
    expect(await h.client.call('approval/respond', { requestId: request.requestId, decision: 'deny' })).toEqual({ acknowledged: false });
  });

  it('deny: ApprovalDenied with the reason, and no click', async () => {
    const asked = nextApproval(h.client);
    const click = expectBAPError(() => h.client.call('action/click', { pageId, selector: del }), ErrorCodes.ApprovalDenied);
    await h.client.respondToApproval((await asked).requestId, 'deny', 'not today');
    const { error } = await click;
    expect(error.message).toContain('not today');
    expect(error.data.retryable).toBe(false);
    expect(await clicks(h.client, pageId)).toEqual(['pay']);
  });

  it('timeout: ApprovalTimeout after the rule timeout, and no click', async () => {
    const { error, elapsedMs } = await expectBAPError(() => h.client.call('action/click', { pageId, selector: del }), ErrorCodes.ApprovalTimeout);
    expect(elapsedMs).toBeGreaterThanOrEqual(1_400);
    expect(error.message).toContain('payments');
    expect(await clicks(h.client, pageId)).toEqual(['pay']);
  });

  it('requests no rule matches run at once; a deny rule refuses without asking', async () => {
    await h.client.call('action/click', { pageId, selector: cancel });
    expect(await clicks(h.client, pageId)).toEqual(['pay', 'cancel']);
    await expectBAPError(() => h.client.call('page/navigate', { pageId, url: h.url('approvals.html?/wipe') }), ErrorCodes.ApprovalDenied);
  });

  it('a click by coordinates is matched by the element under the point', async () => {
    const asked = nextApproval(h.client);
    const click = expectBAPError(() => h.client.call('action/click', { pageId, selector: { type: 'coordinates', x: 100, y: 100 } }), ErrorCodes.ApprovalDenied);
    const request = await asked;
    expect(request.context.elementInfo).toMatchObject({ role: 'button', name: 'Pay now' });
    await h.client.respondToApproval(request.requestId, 'deny');
    await click;
  });

  it('agent/act checks its steps one by one: the sequence stops at the denied step', async () => {
    const asked = nextApproval(h.client);
    const act = h.client.act([
      { action: 'action/click', params: { selector: cancel } },
      { action: 'action/click', params: { selector: del } },
      { action: 'action/click', params: { selector: cancel } },
    ], { pageId });
    const request = await asked;
    expect(request.originalRequest.method).toBe('action/click');
    expect(request.originalRequest.params).toMatchObject({ selector: del });
    await h.client.respondToApproval(request.requestId, 'deny');
    const result = await act;
    expect(result.success).toBe(false);
    expect(result.failedAt).toBe(1);
    expect(result.results[1]).toMatchObject({ success: false, error: { code: ErrorCodes.ApprovalDenied } });
    expect(await clicks(h.client, pageId)).toEqual(['pay', 'cancel', 'cancel']);
  });

  it('approve-session: later requests under the same rule pass without asking', async () => {
    const asked = nextApproval(h.client);
    const click = h.client.call('action/click', { pageId, selector: pay });
    await h.client.respondToApproval((await asked).requestId, 'approve-session');
    await click;
    let askedAgain = false;
    const off = h.client.on('approval/required', () => (askedAgain = true));
    await h.client.call('action/click', { pageId, selector: del });
    off();
    expect(askedAgain).toBe(false);
    expect(await clicks(h.client, pageId)).toEqual(['pay', 'cancel', 'cancel', 'pay', 'delete']);
    // Another session still has to ask.
    const other = await h.newClient();
    const { id } = await other.call('page/create', { url: h.url('approvals.html') });
    await expectBAPError(() => other.call('action/click', { pageId: id, selector: pay, options: { timeout: 1_000 } }), ErrorCodes.ApprovalTimeout);
  });

  it('the TS client answers through onApprovalRequired, and another token-holder may answer too', async () => {
    const seen: string[] = [];
    const client = new BAPClient(h.server.url, {
      onApprovalRequired: (request) => {
        seen.push(request.context.elementInfo?.name ?? '');
        return request.context.elementInfo?.name === 'Pay now' ? 'approve-once' : { decision: 'deny', reason: 'only payments' };
      },
    });
    await client.connect();
    try {
      const { id } = await client.call('page/create', { url: h.url('approvals.html') });
      await client.call('action/click', { pageId: id, selector: pay });
      await expectBAPError(() => client.call('action/click', { pageId: id, selector: del }), ErrorCodes.ApprovalDenied);
      expect(seen).toEqual(['Pay now', 'Delete account']);
      expect(await clicks(client, id)).toEqual(['pay']);

      // A separate approver connection answers a request it learned about out of band.
      const approver = await h.newClient();
      const quiet = await h.newClient();
      const { id: quietPage } = await quiet.call('page/create', { url: h.url('approvals.html') });
      const asked = nextApproval(quiet);
      const click = quiet.call('action/click', { pageId: quietPage, selector: pay });
      expect(await approver.respondToApproval((await asked).requestId, 'approve')).toEqual({ acknowledged: true });
      await click;
      expect(await clicks(quiet, quietPage)).toEqual(['pay']);
    } finally {
      await client.close();
    }
  });

  it('every decision is in the audit log, with its rule and approver', () => {
    const lines = readFileSync(auditPath, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    const decisions = lines.filter((l) => l.method === 'action/click').map((l) => [l.decision, l.rule ?? null, l.outcome]);
    expect(decisions).toContainEqual(['approved', 'payments', 'ok']);
    expect(decisions).toContainEqual(['denied', 'payments', 'error']);
    expect(decisions).toContainEqual(['timeout', 'payments', 'error']);
    expect(decisions).toContainEqual(['allowed', null, 'ok']);
    expect(lines.some((l) => l.decision === 'approved' && l.approver === 'session')).toBe(true);
    const steps = lines.filter((l) => typeof l.step === 'number');
    expect(steps.map((l) => [l.step, l.decision])).toEqual([
      [0, 'allowed'],
      [1, 'denied'],
    ]);
  });
});

describe('approval workflow (mode audit)', () => {
  let h: Harness;
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'bap-approvals-audit-'));
    h = await startHarness({ server: { approval: { ...PAYMENTS, mode: 'audit' }, audit: { path: join(dir, 'audit.log') } } });
  });

  afterAll(async () => {
    await h?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('logs what would need approval without blocking it', async () => {
    let asked = false;
    h.client.on('approval/required', () => (asked = true));
    const { id } = await h.client.call('page/create', { url: h.url('approvals.html') });
    await h.client.call('action/click', { pageId: id, selector: pay });
    expect(await clicks(h.client, id)).toEqual(['pay']);
    expect(asked).toBe(false);
    const lines = readFileSync(join(dir, 'audit.log'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.find((l) => l.method === 'action/click')).toMatchObject({ decision: 'flagged', rule: 'payments', outcome: 'ok' });
  });
});
