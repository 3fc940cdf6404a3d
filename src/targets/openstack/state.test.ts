import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureOpenrc, startOpenStackFixture, type OpenStackFixture } from '../../../test/fixtures/openstack-api.js';
import { waitFor } from '../../../test/support/wait.js';
import { splitTarget } from '../registry.js';
import type { ConfigSources } from './config.js';
import { KeystoneSessions } from './keystone.js';
import { novaState } from './state.js';
import { createOpenStackProvider } from './provider.js';

const SERVER = { id: 'c0ffee00-0000-4000-8000-000000000001', name: 'follow-me', status: 'ACTIVE' };
let fixture: OpenStackFixture;

beforeAll(async () => {
  fixture = await startOpenStackFixture({ servers: [{ ...SERVER }] });
});
afterAll(() => fixture.close());

function follow(text: string, pollMs: number) {
  const env = fixtureOpenrc(fixture);
  const sources = (): ConfigSources => ({ env, readFile: () => undefined, homeDir: '/nonexistent-home', cwd: '/nonexistent-cwd' });
  const target = createOpenStackProvider(sources, new KeystoneSessions()).resolve(splitTarget(text), {});
  const controller = new AbortController();
  const phases: string[] = [];
  const logs: string[] = [];
  const done = target.followState!({
    signal: controller.signal,
    pollMs,
    onState: (state) => {
      if (phases.at(-1) !== state.phase) phases.push(state.phase);
    },
    log: (level, message) => logs.push(`${level} ${message}`),
  });
  return { phases, logs, stop: () => (controller.abort(), done) };
}

describe('following a Nova server', () => {
  it('maps Nova statuses to the phases the table shows', () => {
    expect(['ACTIVE', 'SHUTOFF', 'PAUSED', 'SUSPENDED', 'MIGRATING', 'RESIZE', 'BUILD', 'ERROR'].map((s) => novaState(s).phase)).toEqual([
      'Running',
      'Stopped',
      'Paused',
      'Paused',
      'Migrating',
      'Migrating',
      'Starting',
      'Failed',
    ]);
    expect(novaState(undefined)).toEqual({ phase: 'gone' });
    // Statuses of a server whose QEMU runs (common.py's _STATE_MAP), no longer "Unknown".
    expect(['RESCUE', 'VERIFY_RESIZE', 'PASSWORD', 'REVERT_RESIZE'].map((s) => novaState(s))).toEqual([
      { phase: 'Running', detail: 'RESCUE' },
      { phase: 'Running', detail: 'VERIFY_RESIZE' },
      { phase: 'Running', detail: 'PASSWORD' },
      { phase: 'Migrating', detail: 'REVERT_RESIZE' },
    ]);
    expect(novaState('SOMETHING_NEW')).toEqual({ phase: 'Unknown', detail: 'SOMETHING_NEW' });
  });

  it('polls GET /servers/{id} and sees each status change in order, a deleted server as gone', async () => {
    const f = follow('os:follow-me', 30);
    try {
      await waitFor(() => f.phases.length === 1, 'the first state');
      for (const [status, phase] of [
        ['SHUTOFF', 'Stopped'],
        ['ACTIVE', 'Running'],
        ['PAUSED', 'Paused'],
        ['MIGRATING', 'Migrating'],
        ['ACTIVE', 'Running'],
      ]) {
        fixture.setServerStatus(SERVER.id, status);
        await waitFor(() => f.phases.at(-1) === phase, phase);
      }
      // By name once (the ID is kept), then by ID.
      expect(fixture.count('nova', '/servers?name=')).toBe(1);
      expect(fixture.count('nova', `/servers/${SERVER.id}`)).toBeGreaterThan(5);
      fixture.removeServer(SERVER.id);
      await waitFor(() => f.phases.at(-1) === 'gone', 'gone');
      expect(f.phases).toEqual(['Running', 'Stopped', 'Running', 'Paused', 'Migrating', 'Running', 'gone']);
      expect(f.logs.filter((l) => !l.startsWith('debug'))).toEqual([]);
    } finally {
      // Resolves only once the polling loop has left: no timer, no request after.
      await f.stop();
    }
  });
});
