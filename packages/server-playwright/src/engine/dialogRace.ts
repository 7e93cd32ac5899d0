import { BAPError, ErrorCodes } from '@browseragentprotocol/protocol';
import type { PageHandle } from './pageHandle.js';

/**
 * `work`'s result, or null as soon as the page queues a dialog: a page showing a dialog runs no
 * script, so whatever waits on it (an observation, an input event's acknowledgement) would wait
 * until the dialog is answered.
 */
export async function unlessDialog<T>(h: PageHandle, work: Promise<T>): Promise<T | null> {
  let listener = () => {};
  const opened = new Promise<null>((resolve) => {
    // Registered after the page's DialogController, which has queued the dialog by now.
    listener = () => {
      if (h.dialogs.open().length) resolve(null);
    };
    h.page.on('dialog', listener);
  });
  work.catch(() => {});
  try {
    return await Promise.race([work, opened]);
  } finally {
    h.page.off('dialog', listener);
  }
}

/**
 * Runs an input action (one whose result is `{}`) so that a dialog never holds the session: an
 * action that opens a dialog the page's policy queues is done — its input was delivered — and
 * returns at once, the dialog waiting for dialog/handle; an action started while a dialog waits
 * fails at once instead of stalling behind it.
 */
export async function inputUnlessDialog(h: PageHandle, action: (h: PageHandle) => Promise<object>): Promise<object> {
  const [open] = h.dialogs.open();
  if (open) {
    throw new BAPError(ErrorCodes.ActionFailed, `A ${open.type} dialog is open (${JSON.stringify(open.message)}): the page runs nothing until it is answered.`, {
      retryable: true,
      recoveryHint: 'Answer it with dialog/handle, then retry.',
    });
  }
  return (await unlessDialog(h, action(h))) ?? {};
}
