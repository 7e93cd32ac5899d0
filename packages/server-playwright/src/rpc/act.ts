import {
  BAPError,
  ErrorCodes,
  methods,
  type AgentActResult,
  type AgentObserveResult,
  type ParsedActStep,
  type ParsedParams,
} from '@browseragentprotocol/protocol';
import { Deadline } from '../engine/deadline.js';
import { toBAPError } from '../engine/errors.js';
import { waitForState } from '../engine/waiting.js';
import type { HandlerContext } from './handlers.js';

type ActParams = ParsedParams<'agent/act'>;
type StepResult = AgentActResult['results'][number];

const DEFAULT_TIMEOUT_MS = 120_000;
const DEFAULT_RETRIES = 3;
const DEFAULT_RETRY_DELAY_MS = 500;

/**
 * agent/act: runs the steps in order, each through the same path as a call of its own
 * (`ctx.run`), under one deadline. A failing step stops the sequence, is skipped past, or is
 * retried, as its onError says; steps after a stop are reported as skipped.
 */
export async function act(ctx: HandlerContext, p: ActParams): Promise<AgentActResult> {
  const started = Date.now();
  let running = 0;
  const deadline = new Deadline(p.timeout ?? DEFAULT_TIMEOUT_MS, () => outOfTime(running));
  const preObservation = await observe(ctx, p, p.preObserve);
  const results: StepResult[] = [];
  let failedAt: number | undefined;
  for (const [index, step] of p.steps.entries()) {
    if (failedAt !== undefined) {
      results.push({ ...describe(step, index), success: false, skipped: true, duration: 0, retries: 0 });
      continue;
    }
    running = index;
    const result = await runStep(ctx, p, step, index, deadline);
    results.push(result);
    const onError = step.onError ?? (p.stopOnFirstError === false ? 'skip' : 'stop');
    const late = result.error?.code === ErrorCodes.Timeout && deadline.passed;
    const stops = onError === 'stop' || (onError === 'retry' && p.stopOnFirstError !== false) || late;
    if (!result.success && !result.skipped && stops) failedAt = index;
  }
  const postObservation = await observe(ctx, p, p.postObserve);
  return {
    completed: results.filter((r) => r.success).length,
    total: p.steps.length,
    success: failedAt === undefined && results.every((r) => r.success || r.skipped),
    results,
    duration: Date.now() - started,
    ...(failedAt !== undefined ? { failedAt } : {}),
    ...(preObservation ? { preObservation } : {}),
    ...(postObservation ? { postObservation } : {}),
  };
}

async function runStep(ctx: HandlerContext, p: ActParams, step: ParsedActStep, index: number, deadline: Deadline): Promise<StepResult> {
  const started = Date.now();
  const params = withPageId(step, p.pageId);
  const retryLimit = step.onError === 'retry' ? (step.maxRetries ?? DEFAULT_RETRIES) : 0;
  const retryDelay = step.retryDelay ?? DEFAULT_RETRY_DELAY_MS;
  let retries = 0;
  for (;;) {
    try {
      if (step.condition) {
        const { selector, state, timeout } = step.condition;
        try {
          const h = await ctx.session.page(params.pageId as string | undefined);
          await deadline.run(() => waitForState(h, selector, state, Math.min(timeout ?? h.timeouts.action, deadline.remaining())));
        } catch (error) {
          if (!p.continueOnConditionFail) throw error;
          // Skipped with the reason: the sequence goes on and still counts as a success.
          return { ...describe(step, index), success: false, skipped: true, error: toBAPError(error).toWire(), duration: Date.now() - started, retries };
        }
      }
      // Default timeouts inside are cut to the deadline; the race catches a step that ignores them.
      const result = await deadline.run(() => deadline.race(ctx.run(step.action, params, index)));
      return { ...describe(step, index), success: true, result, duration: Date.now() - started, retries };
    } catch (error) {
      const failure = toBAPError(error);
      const retryable = failure.code !== ErrorCodes.InvalidParams && Date.now() + retryDelay < deadline.end;
      if (retries < retryLimit && retryable) {
        retries++;
        await new Promise((resolve) => setTimeout(resolve, retryDelay));
        continue;
      }
      return { ...describe(step, index), success: false, error: failure.toWire(), duration: Date.now() - started, retries };
    }
  }
}

function describe(step: ParsedActStep, index: number): Pick<StepResult, 'step' | 'label' | 'action'> {
  return { step: index, action: step.action, ...(step.label !== undefined ? { label: step.label } : {}) };
}

/** A step without its own pageId runs on the sequence's page (when the method takes a pageId). */
function withPageId(step: ParsedActStep, pageId: ActParams['pageId']): Record<string, unknown> {
  const params = { ...(step.params as Record<string, unknown>) };
  const shape = (methods[step.action].params as { shape?: Record<string, unknown> }).shape;
  if (pageId && shape && 'pageId' in shape && params.pageId == null) params.pageId = pageId;
  return params;
}

function outOfTime(step: number): BAPError {
  return new BAPError(ErrorCodes.Timeout, `agent/act ran out of time during step ${step}.`, {
    retryable: true,
    details: { step },
    recoveryHint: 'Give agent/act a longer timeout, or split the sequence.',
  });
}

async function observe(ctx: HandlerContext, p: ActParams, option: ActParams['preObserve']): Promise<AgentObserveResult | undefined> {
  if (!option) return undefined;
  const params = { ...(option === true ? {} : option), pageId: p.pageId };
  return (await ctx.run('agent/observe', params)) as AgentObserveResult;
}
