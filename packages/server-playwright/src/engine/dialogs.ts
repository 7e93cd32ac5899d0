import type { Dialog, Page } from 'playwright-core';
import type { DialogEvent, MethodResult, ParsedParams } from '@browseragentprotocol/protocol';
import type { Emit } from './events.js';

export type DialogInfo = NonNullable<MethodResult<'dialog/handle'>['dialog']>;
type Policy = ParsedParams<'dialog/setPolicy'>['policy'];
type Answer = Pick<ParsedParams<'dialog/handle'>, 'action' | 'promptText'>;

/** How long a queued dialog waits for dialog/handle before it is dismissed (ms). */
const DEFAULT_QUEUE_MS = 10_000;
/** How long an armed answer waits for a dialog (ms); also the most a client may ask for. */
const MAX_ARMED_MS = 120_000;

interface Queued {
  dialog: Dialog;
  info: DialogInfo;
  timer: NodeJS.Timeout;
}

/**
 * Answers a page's dialogs so they never freeze it: by an armed answer (a dialog/handle sent
 * before the dialog opened), by the page's policy, or, under the `queue` policy, by the client
 * — and by dismissal when the client does not answer in time.
 */
export class DialogController {
  private policy: Policy = 'dismiss';
  private queueMs = DEFAULT_QUEUE_MS;
  private armed: (Answer & { timer: NodeJS.Timeout }) | null = null;
  private readonly queue: Queued[] = [];

  constructor(
    page: Page,
    private readonly pageId: string,
    private readonly emit: Emit,
  ) {
    page.on('dialog', (dialog) => this.opened(dialog));
    page.on('close', () => {
      this.disarm();
      for (const queued of this.queue.splice(0)) clearTimeout(queued.timer);
    });
  }

  /** Dialogs open right now, waiting for dialog/handle (oldest first). */
  open(): DialogInfo[] {
    return this.queue.map((q) => q.info);
  }

  /** Answers the oldest queued dialog, or arms the answer for the next dialog. */
  async handle(params: ParsedParams<'dialog/handle'>): Promise<MethodResult<'dialog/handle'>> {
    const queued = this.queue.shift();
    if (queued) {
      clearTimeout(queued.timer);
      await answer(queued.dialog, params);
      return { status: 'handled', dialog: queued.info };
    }
    this.disarm();
    const timer = setTimeout(() => {
      this.armed = null;
    }, params.timeout ?? MAX_ARMED_MS);
    this.armed = { action: params.action, promptText: params.promptText, timer };
    return { status: 'armed' };
  }

  /** Sets the policy; dialogs still queued when the policy stops being `queue` are answered by the new one. */
  async setPolicy(params: ParsedParams<'dialog/setPolicy'>): Promise<MethodResult<'dialog/setPolicy'>> {
    this.policy = params.policy;
    this.queueMs = params.timeout ?? DEFAULT_QUEUE_MS;
    if (params.policy !== 'queue') {
      const waiting = this.queue.splice(0);
      await Promise.all(
        waiting.map(async ({ dialog, info, timer }) => {
          clearTimeout(timer);
          const action = this.policyAction(info);
          await answer(dialog, { action });
          this.report(info, action, 'policy');
        }),
      );
    }
    return {};
  }

  private opened(dialog: Dialog): void {
    const info: DialogInfo = { type: dialog.type() as DialogInfo['type'], message: dialog.message() };
    if (info.type === 'prompt') info.defaultValue = dialog.defaultValue();
    if (this.armed) {
      const { action, promptText } = this.armed;
      this.disarm();
      void answer(dialog, { action, promptText });
      this.report(info, action, 'armed');
      return;
    }
    if (this.policy === 'queue') {
      const queued: Queued = {
        dialog,
        info,
        timer: setTimeout(() => {
          const index = this.queue.indexOf(queued);
          if (index < 0) return;
          this.queue.splice(index, 1);
          void answer(dialog, { action: 'dismiss' });
          this.report(info, 'dismiss', 'timeout');
        }, this.queueMs),
      };
      this.queue.push(queued);
      this.report(info, 'queue', 'policy');
      return;
    }
    const action = this.policyAction(info);
    void answer(dialog, { action });
    this.report(info, action, 'policy');
  }

  /** beforeunload is accepted under `dismiss` too: dismissing it would block navigation and page/close. */
  private policyAction(info: DialogInfo): Answer['action'] {
    return this.policy === 'accept' || info.type === 'beforeunload' ? 'accept' : 'dismiss';
  }

  private disarm(): void {
    if (this.armed) clearTimeout(this.armed.timer);
    this.armed = null;
  }

  private report(info: DialogInfo, what: Answer['action'] | 'queue', by: NonNullable<DialogEvent['by']>): void {
    const outcome = what === 'accept' ? 'accepted' : what === 'dismiss' ? 'dismissed' : 'queued';
    this.emit('events/dialog', { pageId: this.pageId, ...info, outcome, by, timestamp: Date.now() });
  }
}

/** Accepting a prompt without text keeps its default value, as pressing OK would. */
async function answer(dialog: Dialog, { action, promptText }: Answer): Promise<void> {
  const done = action === 'accept' ? dialog.accept(promptText ?? dialog.defaultValue()) : dialog.dismiss();
  await done.catch(() => {});
}
