// `S` must save what the user asked for: the selectors a session came from, not the VMs they
// happened to find, so the workspace opens what matches then; named targets stay targets.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../config/config.js';
import { SessionRegistry } from '../../proxy/session-registry.js';
import { resolveTarget } from '../../targets/registry.js';
import { saveOpenAsWorkspace } from './workspace.js';

let dir: string;
let file: string;
let registry: SessionRegistry;
beforeEach(() => {
  registry = new SessionRegistry();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vconsole-save-'));
  file = path.join(dir, 'config.yaml');
});
afterEach(async () => {
  await registry.closeAll();
  fs.rmSync(dir, { recursive: true, force: true });
});

const open = (target: string, options = {}) => registry.add(resolveTarget(target, options));

describe('S in the TUI', () => {
  it('saves the selector, its namespaces, --type and --follow for the sessions it found, and named targets as targets', async () => {
    const named = open('vm-a', { namespace: 'prod' });
    const found = [open('prod/web-1'), open('staging/web-2')];
    const reply = await saveOpenAsWorkspace(
      'web',
      [named, ...found],
      { selector: 'app=web', namespace: ['prod', 'staging'], type: 'vnc', follow: true, viewer: 'tigervnc' },
      { defaults: {}, aliases: {}, file },
      new Set(found.map((s) => s.id)),
    );
    expect((await loadConfig(file)).workspaces?.web).toEqual({
      selector: 'app=web',
      namespaces: ['prod', 'staging'],
      type: 'vnc',
      follow: true,
      targets: ['kubevirt:prod/vm-a'],
      viewer: 'tigervnc',
    });
    expect(reply).toBe(
      `saved workspace web in ${file}: the VMs -l app=web -n prod -n staging selects (2 open now) and 1 console; vconsole open @web opens it again`,
    );
  });

  it('saves an OpenStack tag selection alone when nothing was named; -A alone is a selection too', async () => {
    const found = [open('os:web-01'), open('os:web-02')];
    await saveOpenAsWorkspace(
      'tagged',
      found,
      { osTag: ['web', 'prod'] },
      { defaults: {}, aliases: {}, file },
      new Set(found.map((s) => s.id)),
    );
    expect((await loadConfig(file)).workspaces?.tagged).toEqual({ osTags: ['web', 'prod'] });
    const everywhere = [open('prod/db-1')];
    await saveOpenAsWorkspace('all', everywhere, { allNamespaces: true }, { defaults: {}, aliases: {}, file }, new Set([everywhere[0].id]));
    expect((await loadConfig(file)).workspaces?.all).toEqual({ allNamespaces: true });
  });

  it('saves named targets as targets when no selector found them (-n of bare names is pinned into each)', async () => {
    const sessions = [open('vm-a', { namespace: 'prod' }), open('demo:b')];
    await saveOpenAsWorkspace('named', sessions, { namespace: 'prod' }, { defaults: {}, aliases: {}, file });
    expect((await loadConfig(file)).workspaces?.named).toEqual({ targets: ['kubevirt:prod/vm-a', 'demo:b'] });
  });
});
