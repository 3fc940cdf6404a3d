// --as and --as-group (and a kubeconfig user's as, as-groups) against the API fixture, which impersonates as
// kube-apiserver does (test/fixtures/kubevirt-impersonation.ts): the headers on every request and on the console's
// websocket upgrade, the pre-flight's access review answered for the impersonated user, and a user who may not
// impersonate told so in one line.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startKubevirtFixture, type KubevirtFixture } from '../fixtures/kubevirt-api.js';
import { FIXTURE_ADMIN_USER } from '../fixtures/kubevirt-impersonation.js';
import { runVconsole } from '../support/cli.js';

let fixture: KubevirtFixture;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vconsole-as-kv-'));
let adminConfig: string;

beforeAll(async () => {
  fixture = await startKubevirtFixture({ vmis: [{ namespace: 'lab', name: 'web' }] });
  adminConfig = fixture.kubeconfigPath({ namespace: 'lab', fileName: 'admin.yaml' });
});
afterAll(async () => {
  await fixture.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const env = (kubeconfig = adminConfig) => ({ HOME: dir, KUBECONFIG: kubeconfig });
const shot = (name: string) => path.join(dir, `${name}.png`);

/** Who each request since `from` acted as, per request kind: `GET .../web 200 as USER[GROUPS]`. */
function actedAs(from: number): string[] {
  return fixture.requests.slice(from).map((r) => {
    const who = r.actingAs ? `${r.actingAs.user}${r.actingAs.groups.length ? `[${r.actingAs.groups.join(',')}]` : ''}` : r.user;
    return `${r.upgrade ? 'UPGRADE' : r.method} ${r.path.split('/').slice(-2).join('/')} ${r.status} as ${who}`;
  });
}

describe('--as on KubeVirt', () => {
  it('the pre-flight reviews for the impersonated user: one who may not open consoles is refused vnc before any dial', async () => {
    const from = fixture.requests.length;
    const result = await runVconsole(['screenshot', 'web', '--as', 'jane', '-o', shot('jane')], env());
    expect(result.stderr).toBe(
      'vconsole: lab/web: forbidden: you may not get virtualmachineinstances/vnc in namespace "lab"; ' +
        'ask for RBAC "get" on virtualmachineinstances/vnc in API group subresources.kubevirt.io\n',
    );
    expect(result.code).toBe(1);
    expect(fixture.requests.slice(from).every((r) => r.actingAs?.user === 'jane' && r.user === 'vconsole-test-admin')).toBe(true);
    expect(fixture.requests.slice(from).some((r) => r.upgrade)).toBe(false);
  });

  it('a user allowed vnc (by --as-group) screenshots: every request and the websocket upgrade carry the headers', async () => {
    const from = fixture.requests.length;
    const result = await runVconsole(
      ['screenshot', 'web', '--as', 'jane', '--as-group', 'devs', '--as-group', 'system:masters', '-o', shot('masters')],
      env(),
    );
    expect(result.stderr).toBe(`lab/web: wrote ${shot('masters')}\n`);
    expect(result.code).toBe(0);
    const seen = actedAs(from);
    expect(seen).toContain('UPGRADE web/vnc 101 as jane[devs,system:masters]');
    expect(seen.every((line) => line.endsWith('as jane[devs,system:masters]'))).toBe(true);
  });

  it('list acts as the user too', async () => {
    const from = fixture.requests.length;
    const result = await runVconsole(['list', '--provider', 'kubevirt', '--as', FIXTURE_ADMIN_USER, '-o', 'json'], env());
    expect(result.code, result.stderr).toBe(0);
    expect(fixture.requests.slice(from).every((r) => r.actingAs?.user === FIXTURE_ADMIN_USER)).toBe(true);
  });

  it('a user who may not impersonate gets one line naming the refusal and what to do', async () => {
    const viewer = fixture.kubeconfigPath({ namespace: 'lab', token: fixture.forbiddenToken, fileName: 'viewer.yaml' });
    const screenshot = await runVconsole(['screenshot', 'web', '--as', 'jane', '-o', shot('refused')], env(viewer));
    expect(screenshot.stderr).toBe(
      'vconsole: lab/web: the API server refuses the impersonation: virtualmachineinstances.kubevirt.io "web" is forbidden: ' +
        'User "system:serviceaccount:default:viewer" cannot impersonate-on:user-info:get resource "virtualmachineinstances" ' +
        'in API group "kubevirt.io" in the namespace "lab"; ' +
        `ask for RBAC "impersonate" on users in the core API group, or run without --as (and the kubeconfig user's as)\n`,
    );
    for (const args of [
      ['list', '--provider', 'kubevirt'],
      ['power', 'web', 'pause', '--yes'],
    ]) {
      const result = await runVconsole([...args, '--as', 'jane'], env(viewer));
      expect(result.code, args.join(' ')).toBe(1);
      const [line, ...rest] = result.stderr.trimEnd().split('\n');
      // kube-apiserver 1.36 (constrained impersonation) names the first request it refused.
      expect(line, args.join(' ')).toMatch(
        /^vconsole: (lab\/web: )?the API server refuses the impersonation: \S+ is forbidden: User "system:serviceaccount:default:viewer" cannot impersonate-on:user-info:(get|list|create) resource "[a-z]+" .*; ask for RBAC "impersonate" on users in the core API group, or run without --as \(and the kubeconfig user's as\)$/,
      );
      // power's closing line after a refused check, as for any refusal.
      expect(rest, args.join(' ')).toEqual(args[0] === 'power' ? ['nothing done'] : []);
    }
  });

  it('--as-group without a user to impersonate is a usage error, before any request', async () => {
    const from = fixture.requests.length;
    const result = await runVconsole(['list', '--provider', 'kubevirt', '--as-group', 'devs'], env());
    expect(result.stderr).toBe('vconsole: --as-group needs a user to impersonate; add --as USER\n');
    expect(result.code).toBe(2);
    expect(fixture.requests.length).toBe(from);
  });
});

describe("a kubeconfig user's as and as-groups", () => {
  it.each(['token', 'exec'] as const)('are honoured (%s user), and --as/--as-group replace them', async (auth) => {
    const impersonate = { as: 'jane', asGroups: ['system:masters', 'devs'] };
    const config = fixture.kubeconfigPath({ namespace: 'lab', auth, impersonate, fileName: `as-${auth}.yaml` });
    let from = fixture.requests.length;
    const allowed = await runVconsole(['screenshot', 'web', '-o', shot(`as-${auth}`)], env(config));
    expect(allowed.code, allowed.stderr).toBe(0);
    expect(actedAs(from)).toContain('UPGRADE web/vnc 101 as jane[system:masters,devs]');

    from = fixture.requests.length;
    const replaced = await runVconsole(['screenshot', 'web', '--as-group', 'devs', '-o', shot(`as-${auth}-2`)], env(config));
    expect(replaced.code).toBe(1);
    expect(replaced.stderr).toMatch(/forbidden: you may not get virtualmachineinstances\/vnc/);
    expect(new Set(actedAs(from).map((line) => line.replace(/.* as /, '')))).toEqual(new Set(['jane[devs]']));
  });
});
