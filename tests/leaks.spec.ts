import { afterAll, beforeAll, expect, it } from 'vitest';
import { startHarness, type Harness } from './support/harness.js';
import type { RawSocket } from './support/rawSocket.js';

let h: Harness;

beforeAll(async () => {
  h = await startHarness({ connect: false, server: { maxContexts: 2 } });
});

afterAll(async () => {
  await h?.stop();
});

const CONNECTIONS = 200;
const AT_ONCE = 10;

/** One short-lived agent: two contexts, a page in one, a refused third context, then gone. */
async function visit(socket: RawSocket, index: number): Promise<void> {
  await socket.handshake(`leak-${index}`);
  for (const contextId of ['one', 'two']) {
    const created = await socket.request('context/create', { contextId });
    expect(created.result, JSON.stringify(created)).toEqual({ contextId });
  }
  // Pages are what a browser pays for (about 0.15 s each on two cores); one per agent keeps this bounded.
  const page = await socket.request('page/create', { contextId: 'two' });
  expect(page.result, JSON.stringify(page)).toBeDefined();
  const refused = (await socket.request('context/create', {})) as { error?: { code: number } };
  expect(refused.error?.code).toBe(-32024);
  // A third of the agents say goodbye; the others just drop the socket.
  if (index % 3 === 0) await socket.request('shutdown', {});
  await socket.close();
}

it(`${CONNECTIONS} connections that create contexts and pages and drop leave the browser holding none`, async () => {
  for (let start = 0; start < CONNECTIONS; start += AT_ONCE) {
    await Promise.all(
      Array.from({ length: AT_ONCE }, async (_, i) => visit(await h.rawSocket(), start + i)),
    );
  }
  await expect.poll(() => h.server.stats(), { timeout: 15_000 }).toMatchObject({ connections: 0, resumableSessions: 0, contexts: 0, pages: 0 });
}, 240_000);
