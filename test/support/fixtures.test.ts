import fs from 'node:fs';
import { describe, expect } from 'vitest';
import { Cleanup, test } from './fixtures.js';

// The shared fixtures end what a test started even when the test fails: the first test of each
// pair fails on purpose (`test.fails`), the second checks what its fixtures left.

const order: string[] = [];
let dirs: string[] = [];
let pid = 0;

describe('the shared test fixtures', () => {
  test.fails(
    'a failing test still gets its cleanup, its directories and its vconsole ended',
    async ({ cleanup, tmpDir, makeTmpDir, vconsole }) => {
      cleanup.add(() => order.push('first'));
      cleanup.add(() => order.push('second'));
      dirs = [tmpDir, makeTmpDir('vconsole-fixtures')];
      const child = vconsole.start(['proxy', 'demo:vm-a']);
      pid = child.process.pid!;
      cleanup.add(() =>
        order.push(child.process.exitCode === null && child.process.signalCode === null ? 'vconsole runs' : 'vconsole ended'),
      );
      await child.jsonLines(1);
      throw new Error('the test fails');
    },
  );

  test('after it: vconsole ended before the steps, which ran last first; the directories are gone', () => {
    expect(order).toEqual(['vconsole ended', 'second', 'first']);
    expect(dirs).toHaveLength(2);
    for (const dir of dirs) expect(fs.existsSync(dir)).toBe(false);
    expect(() => process.kill(pid, 0)).toThrow();
  });

  test('every step runs though one throws, and the failures are reported together', async () => {
    const cleanup = new Cleanup();
    const ran: number[] = [];
    cleanup.add(() => ran.push(1));
    cleanup.add(() => {
      throw new Error('step 2');
    });
    cleanup.add(() => ran.push(3));
    cleanup.add(() => Promise.reject(new Error('step 4')));
    const failure = await cleanup.run().then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(ran).toEqual([3, 1]);
    expect(failure).toBeInstanceOf(AggregateError);
    expect((failure as AggregateError).errors.map((e: Error) => e.message)).toEqual(['step 4', 'step 2']);
  });
});
