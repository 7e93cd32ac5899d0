import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { expect } from 'vitest';
import { callTool as call, refOf } from './support.js';

export { call };

/** Sign in with a wrong password, then the right one, using refs from each result. */
export async function loginFlow(client: Client, site: string): Promise<void> {
  const start = await call(client, 'navigate', { url: `${site}/login` });
  expect(start.isError).toBe(false);
  expect(start.text).toContain('"Sign in"');
  const email = refOf(start.text, 'textbox', 'Email');
  const password = refOf(start.text, 'textbox', 'Password');
  const submit = refOf(start.text, 'button', 'Sign in');

  await call(client, 'fill', { target: email, value: 'ada@example.com' });
  const wrong = await call(client, 'act', {
    steps: [
      { tool: 'fill', args: { target: password, value: 'wrong' } },
      { tool: 'click', args: { target: submit } },
    ],
  });
  expect(wrong.isError).toBe(false);
  expect(wrong.text).toContain('Sign in failed');

  const again = await call(client, 'navigate', { url: `${site}/login` });
  const typed = await call(client, 'fill', { target: refOf(again.text, 'textbox', 'Password'), value: 'correct-horse' });
  expect(typed.text).toMatch(/^✓ fill @\w+\nTab /);
  const changed = await call(client, 'observe', { incremental: true });
  expect(changed.text).toContain('textbox "Password" = "••••••"');
  expect(changed.text).not.toContain('correct-horse');
  await call(client, 'fill', { target: refOf(again.text, 'textbox', 'Email'), value: 'ada@example.com' });
  const signedIn = await call(client, 'click', { target: refOf(again.text, 'button', 'Sign in') });
  expect(signedIn.isError).toBe(false);
  expect(signedIn.text).toMatch(/"Your account" http:\/\/127\.0\.0\.1:\d+\/account/);
  expect(signedIn.text).toContain('button "Add gift card"');
}

/** From the account page: open orders in a new tab, work in both tabs by id, close one. */
export async function multiTabFlow(client: Client, site: string): Promise<void> {
  const account = await call(client, 'navigate', { url: `${site}/account` });
  const opened = await call(client, 'click', { target: refOf(account.text, 'link', 'Open orders') });
  expect(opened.isError).toBe(false);
  const accountTab = opened.text.match(/^Tab (\S+)/m)![1]!;
  // Chromium opens the tab as the click lands; it may reach the tab list a moment after the click returns.
  let list = await call(client, 'tabs', { action: 'list' });
  for (let i = 0; i < 50 && !/ "Orders" /.test(list.text); i++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    list = await call(client, 'tabs', { action: 'list' });
  }
  const ordersTab = list.text.match(/^(\S+) "Orders"/m)?.[1];
  expect(ordersTab, list.text).toBeDefined();
  expect(list.text).toContain(`${accountTab} (active)`);

  // The orders tab, by id, while the account tab stays active.
  const orders = await call(client, 'observe', { tab: ordersTab! });
  expect(orders.text).toContain(`Tab ${ordersTab} (2 open): "Orders"`);
  const reorder = await call(client, 'click', { tab: ordersTab!, target: refOf(orders.text, 'button', 'Reorder') });
  expect(reorder.text).toContain('button "Reordered"');
  const data = await call(client, 'extract', {
    tab: ordersTab!,
    schema: { type: 'object', properties: { orders: { type: 'array', items: { type: 'object', properties: { order: { type: 'string' }, item: { type: 'string' }, total: { type: 'string' } } } } } },
  });
  expect(JSON.parse(data.text)).toEqual({
    orders: [
      { order: 'A-1001', item: 'Trail Runner', total: '$120.00' },
      { order: 'A-1002', item: 'Down Jacket', total: '$249.00' },
    ],
  });

  const gift = await call(client, 'click', { target: 'role:button:Add gift card' });
  expect(gift.text).toContain(`Tab ${accountTab} (active, 2 open)`);
  const state = await call(client, 'wait_for', { text: 'Basket: 1 item' });
  expect(state.isError).toBe(false);

  await call(client, 'tabs', { action: 'select', tab: ordersTab! });
  const selected = await call(client, 'observe', {});
  expect(selected.text).toContain(`Tab ${ordersTab} (active, 2 open)`);
  const closed = await call(client, 'tabs', { action: 'close', tab: ordersTab! });
  expect(closed.text).not.toContain(ordersTab!);
  expect(closed.text.split('\n')).toHaveLength(1);
}
