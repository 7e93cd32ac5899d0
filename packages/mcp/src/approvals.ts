import type { ApprovalDecision, ApprovalRequired } from '@browseragentprotocol/protocol';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';

export interface ApprovalOutcome {
  decision: ApprovalDecision;
  reason?: string;
  /** Whether a person was asked; false when the host cannot ask (no elicitation). */
  asked: boolean;
}

/**
 * Asks the host's user through MCP elicitation whether a held request may run. Hosts without
 * elicitation get a refusal: the tool result then says what needed approval and how to allow it.
 */
export async function askForApproval(server: Server, request: ApprovalRequired): Promise<ApprovalOutcome> {
  if (!server.getClientCapabilities()?.elicitation) return { decision: 'deny', reason: 'the MCP host cannot ask its user', asked: false };
  const element = request.context.elementInfo;
  const target = element ? ` on ${element.role} "${element.name}"` : '';
  const message =
    `The browser agent wants to run ${request.originalRequest.method}${target} at ${request.context.pageUrl} ` +
    `("${request.context.pageTitle}"). Rule "${request.rule}" asks for your approval.`;
  try {
    const answer = await server.elicitInput(
      {
        message,
        requestedSchema: {
          type: 'object',
          properties: {
            decision: {
              type: 'string',
              title: 'Decision',
              enum: ['approve', 'approve-session', 'deny'],
              enumNames: ['Approve once', 'Approve for this session', 'Deny'],
            },
          },
          required: ['decision'],
        },
      },
      { timeout: Math.max(1_000, request.expiresAt - Date.now()) },
    );
    const decision = answer.content?.decision;
    if (answer.action === 'accept' && (decision === 'approve' || decision === 'approve-session')) return { decision, asked: true };
    return { decision: 'deny', reason: answer.action === 'accept' ? 'denied by the user' : `the user chose ${answer.action}`, asked: true };
  } catch (error) {
    return { decision: 'deny', reason: `asking the user failed: ${error instanceof Error ? error.message : String(error)}`, asked: true };
  }
}
