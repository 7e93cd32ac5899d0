import { errors } from 'playwright-core';
import { BAPError, ErrorCodes } from '@browseragentprotocol/protocol';

export interface ErrorContext {
  /** The selector being acted on, as text, for messages and details. */
  selector?: string;
  action?: string;
  url?: string;
  timeout?: number;
}

/** Maps a Playwright failure to the protocol error an agent can act on; BAPErrors pass through. */
export function toBAPError(error: unknown, context: ErrorContext = {}): BAPError {
  if (error instanceof BAPError) return error;
  const message = error instanceof Error ? error.message : String(error);
  const [head = '', ...log] = message.split('\n');
  const summary = head.replace(/^\w+\.\w+: /, '').trim();
  const details = { ...context, log: log.map((l) => l.trim()).filter((l) => l.startsWith('-')).slice(-4) };
  const target = context.selector ? ` (${context.selector})` : '';

  if (/strict mode violation/i.test(message)) {
    const count = Number(/resolved to (\d+) elements/.exec(message)?.[1] ?? 0);
    return new BAPError(ErrorCodes.SelectorAmbiguous, `Selector${target} matched ${count} elements, expected 1.`, {
      details: { ...context, count },
      recoveryHint: 'Make the selector more specific (role + exact name, a ref from observe/ariaSnapshot, or a test id).',
    });
  }
  if (/Target page, context or browser has been closed|Target closed|has been closed/i.test(message)) {
    return new BAPError(ErrorCodes.TargetClosed, `The page was closed${context.action ? ` during ${context.action}` : ''}.`, {
      details,
      recoveryHint: 'List pages with page/list, or create one with page/create.',
    });
  }
  if (/Execution context was destroyed|Frame was detached/i.test(message)) {
    return new BAPError(ErrorCodes.ExecutionContextDestroyed, 'The page navigated while the call was running.', {
      retryAfterMs: 100,
      details,
      recoveryHint: 'Wait for the navigation to finish, then observe again.',
    });
  }
  if (/Unknown engine|Unexpected token|is not a valid selector|Unknown role|not a valid XPath|Failed to execute 'evaluate'|while parsing css selector/i.test(message)) {
    return new BAPError(ErrorCodes.InvalidParams, `selector: ${summary}`, { details: context });
  }
  if (context.url !== undefined && /net::ERR_|NS_ERROR|Navigation failed|Cannot navigate|invalid url/i.test(message)) {
    const reason = /net::ERR_[A-Z_]+/.exec(message)?.[0] ?? summary;
    return new BAPError(ErrorCodes.NavigationFailed, `Navigation to ${context.url} failed: ${reason}`, {
      retryAfterMs: 1000,
      details: { url: context.url, reason },
      recoveryHint: 'Check that the URL is right and the site is reachable.',
    });
  }
  if (error instanceof errors.TimeoutError || /Timeout \d+ms exceeded/.test(message)) {
    return timeoutError(summary, details, context, log.join('\n'));
  }
  if (context.action) {
    return new BAPError(ErrorCodes.ActionFailed, `${context.action} failed${target}: ${summary}`, { details });
  }
  return new BAPError(ErrorCodes.InternalError, summary || 'Internal error', { details });
}

function timeoutError(summary: string, details: object, context: ErrorContext, log: string): BAPError {
  const target = context.selector ? ` (${context.selector})` : '';
  if (context.selector && !/locator resolved to|element is|attempting/i.test(log)) {
    return new BAPError(ErrorCodes.ElementNotFound, `No element matches${target} after ${context.timeout ?? '?'} ms.`, {
      retryAfterMs: 500,
      details,
      recoveryHint: 'Check the selector against a fresh observe/ariaSnapshot, or raise options.timeout if the element appears later.',
    });
  }
  if (/element is not visible|element is outside of the viewport/i.test(log)) {
    return new BAPError(ErrorCodes.ElementNotVisible, `Element${target} is not visible.`, {
      retryAfterMs: 500,
      details,
      recoveryHint: 'Scroll it into view (action/scroll), open what hides it, or wait for it to appear.',
    });
  }
  if (/element is not enabled|element is disabled|element is not editable/i.test(log)) {
    return new BAPError(ErrorCodes.ElementNotEnabled, `Element${target} is disabled or read-only.`, {
      retryAfterMs: 500,
      details,
      recoveryHint: 'Complete whatever enables it first (e.g. required fields), then retry.',
    });
  }
  const covered = /intercepts pointer events/.exec(log);
  return new BAPError(
    ErrorCodes.Timeout,
    covered ? `Element${target} is covered by another element.` : `${summary || 'Timed out'}`,
    {
      retryAfterMs: 0,
      details,
      recoveryHint: covered
        ? 'Close the overlay or dialog covering it, or use options.force.'
        : 'Raise options.timeout, or check what the page is waiting for.',
    },
  );
}

/** The first line of a failure's message, without Playwright's `method.name: ` prefix. */
export function firstLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.split('\n')[0]!.replace(/^\w+\.\w+: /, '').trim();
}

/** A failure caused by the contents of one field: -32602 naming it. */
export function invalidField(field: string, error: unknown): BAPError {
  return new BAPError(ErrorCodes.InvalidParams, `${field}: ${firstLine(error)}`, { details: { field } });
}

/** Playwright options without the keys whose value is undefined. */
export function defined<T extends object>(options: T | undefined): T {
  return Object.fromEntries(Object.entries(options ?? {}).filter(([, v]) => v !== undefined)) as T;
}

const LIMIT_LABELS: Record<string, string> = {
  pagesPerContext: 'pages per context',
  interceptRules: 'network/intercept rules per context',
  refs: 'element refs per snapshot',
  requestsPerSecond: 'requests per second',
  screenshotsPerMinute: 'screenshots per minute',
  pendingApprovals: 'approvals waiting per session',
};

/** -32024 for a limit the caller hit: which resource, the limit and the current count. */
export function limitError(resource: string, limit: number, current: number, recoveryHint: string, retryAfterMs?: number): BAPError {
  return new BAPError(ErrorCodes.ResourceLimitExceeded, `Limit reached: at most ${limit} ${LIMIT_LABELS[resource] ?? resource} (now ${current}).`, {
    retryable: retryAfterMs !== undefined,
    ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
    details: { resource, limit, current },
    recoveryHint,
  });
}
