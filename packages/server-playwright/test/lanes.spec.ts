import { expect, test } from 'vitest';
import { RequestLanes } from '../src/rpc/lanes.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('page requests run in order per page and in parallel across pages', async () => {
  const lanes = new RequestLanes();
  const log: string[] = [];
  const task = (name: string, ms: number) => async () => {
    log.push(`start ${name}`);
    await sleep(ms);
    log.push(`end ${name}`);
  };
  await Promise.all([
    lanes.run('page', () => 'a', task('a1', 30)),
    lanes.run('page', () => 'b', task('b1', 5)),
    lanes.run('page', () => 'a', task('a2', 1)),
  ]);
  expect(log.indexOf('end a1')).toBeLessThan(log.indexOf('start a2'));
  expect(log.indexOf('end b1')).toBeLessThan(log.indexOf('end a1'));
});

test('a session request waits for earlier requests and holds later ones, which then see its effect', async () => {
  const lanes = new RequestLanes();
  let active = 'p1';
  const seen: string[] = [];
  const log: string[] = [];
  await Promise.all([
    lanes.run('page', () => active, async () => {
      await sleep(20);
      log.push('page before');
    }),
    lanes.run('session', () => '', async () => {
      log.push('session');
      active = 'p2';
    }),
    lanes.run('page', () => {
      seen.push(active);
      return active;
    }, async () => {
      log.push('page after');
    }),
  ]);
  expect(log).toEqual(['page before', 'session', 'page after']);
  expect(seen).toEqual(['p2']);
});

test('a failing request does not block its lane', async () => {
  const lanes = new RequestLanes();
  const failed = lanes.run('page', () => 'a', async () => {
    throw new Error('boom');
  });
  await expect(failed).rejects.toThrow('boom');
  await expect(lanes.run('page', () => 'a', async () => 'ok')).resolves.toBe('ok');
});
