import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { saveWorkspace } from '../../src/config/save-workspace.js';
import { startKubevirtFixture, type KubevirtFixture } from '../fixtures/kubevirt-api.js';
import { runVconsole } from '../support/cli.js';
import { test } from '../support/fixtures.js';

/** `vconsole open @NAME` / `proxy @NAME` from the config file, and a saved workspace opened again. */

let kubevirt: KubevirtFixture;
let dir: string;
let config: string;
let env: NodeJS.ProcessEnv;
beforeAll(async () => {
  kubevirt = await startKubevirtFixture({
    vmis: [
      { namespace: 'default', name: 'web-1', labels: { app: 'web' } },
      { namespace: 'prod', name: 'web-2', labels: { app: 'web' } },
      { namespace: 'prod', name: 'db-1', labels: { app: 'db' } },
    ],
  });
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vconsole-ws-cli-'));
  config = path.join(dir, 'config.yaml');
  fs.writeFileSync(
    config,
    [
      '# team consoles',
      'workspaces:',
      '  web:',
      '    selector: app=web',
      '    allNamespaces: true',
      '    targets: [demo:extra]',
      '  db:',
      '    targets: [db-1]',
      '    namespace: prod',
      '',
    ].join('\n'),
  );
  env = { KUBECONFIG: kubevirt.kubeconfigPath(), HOME: dir };
});
afterAll(async () => {
  await kubevirt?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});
const it = test.extend('start', ({ vconsole }) => {
  return (args: string[]) => vconsole.start(['--config', config, ...args], env);
});

describe('workspaces', () => {
  it('proxy @NAME serves its targets and what its selector finds', async ({ start }) => {
    const p = start(['proxy', '@web']);
    expect((await p.jsonLines(3)).map((l) => l.target)).toEqual(['demo:extra', 'default/web-1', 'prod/web-2']);
  });

  it('open @NAME takes its namespace for bare names', async ({ start }) => {
    const p = start(['open', '@db', '--no-tui', '--viewer', 'none']);
    expect((await p.jsonLines(1)).map((l) => l.target)).toEqual(['prod/db-1']);
  });

  it('an unknown workspace is one usage line listing the known ones', async () => {
    const result = await runVconsole(['--config', config, 'open', '@nope', '--no-tui'], env);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe('vconsole: unknown workspace "@nope"; known workspaces: @web, @db\n');
  });

  it('a bad workspace in the config file is one line naming file and key', async () => {
    const bad = path.join(dir, 'bad.yaml');
    fs.writeFileSync(bad, 'workspaces:\n  web:\n    selector: "app=(web"\n');
    const result = await runVconsole(['--config', bad, 'proxy', 'demo:a'], env);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      `vconsole: config ${bad}: bad value "app=(web" for "workspaces.web.selector"; use a label selector in kubectl's syntax, e.g. app=web,tier!=db\n`,
    );
  });

  it('a saved workspace opens again, the rest of the file kept', async ({ start }) => {
    await saveWorkspace(config, 'saved', { targets: ['prod/web-2', 'demo:box'], type: 'vnc' });
    expect(fs.readFileSync(config, 'utf8')).toMatch(/^# team consoles\nworkspaces:\n {2}web:\n/);
    const p = start(['proxy', '@saved']);
    const lines = await p.jsonLines(2);
    expect(lines.map((l) => [l.target, l.type])).toEqual([
      ['prod/web-2', 'vnc'],
      ['demo:box', 'vnc'],
    ]);
  });
});
