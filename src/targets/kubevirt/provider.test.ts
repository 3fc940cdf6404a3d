import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startKubevirtFixture, type KubevirtFixture } from '../../../test/fixtures/kubevirt-api.js';
import { failure, readBytes } from '../../../test/support/streams.js';
import { VconsoleError, describeError } from '../../errors.js';
import type { LogLevel } from '../../proxy/types.js';
import { splitTarget } from '../index.js';
import type { KubeEnvironment } from './kubernetes-api.js';
import { createKubevirtProvider } from './provider.js';
import type { ConsoleTarget, TargetOptions } from '../types.js';

let fixture: KubevirtFixture;
let kubeconfig: string;

beforeAll(async () => {
  fixture = await startKubevirtFixture({
    vmis: [
      { namespace: 'default', name: 'vm-a' },
      { namespace: 'default', name: 'vm-shared' },
      { namespace: 'prod', name: 'db-1' },
      { namespace: 'default', name: 'stopped', phase: 'Succeeded' },
      { namespace: 'default', name: 'headless', graphics: false },
      { namespace: 'default', name: 'no-serial', serialConsole: false },
      { namespace: 'default', name: 'crashed', phase: 'Failed' },
      { namespace: 'default', name: 'orphan', phase: 'Failed', ownedByVm: false },
    ],
    stoppedVms: [
      { namespace: 'default', name: 'halted' },
      { namespace: 'default', name: 'pending', printableStatus: 'ErrorPvcNotFound' },
    ],
  });
  kubeconfig = fixture.kubeconfigPath();
});
afterAll(() => fixture?.close());

/** An environment that knows nothing of this machine's own kubeconfig or cluster. */
function environment(env: NodeJS.ProcessEnv = {}, overrides: Partial<KubeEnvironment> = {}): KubeEnvironment {
  return { env, homeDir: join(fixture.dir, 'no-home'), serviceAccountDir: join(fixture.dir, 'no-service-account'), ...overrides };
}

function target(text: string, env: KubeEnvironment = environment({ KUBECONFIG: kubeconfig }), options: TargetOptions = {}): ConsoleTarget {
  return createKubevirtProvider(() => env).resolve(splitTarget(text), options);
}

const signal = () => AbortSignal.timeout(20_000);
const context = () => ({ signal: signal(), log: (_level: LogLevel, _message: string) => undefined });

async function checkFailure(t: ConsoleTarget): Promise<VconsoleError> {
  const error = await failure(t.check!(signal()));
  expect(error).toBeInstanceOf(VconsoleError);
  return error as VconsoleError;
}

describe('target names', () => {
  it('refuses a name longer than Kubernetes allows at once, echoing a capped part of it', () => {
    let error: unknown;
    try {
      target('a'.repeat(10_000), environment({}));
    } catch (err) {
      error = err;
    }
    expect(describeError(error)).toMatch(/^bad KubeVirt target "a{77}\.\.\."; use NAME, NS\/NAME or kubevirt:NS\/NAME with at most 253 /);
    expect(() => target(`default/${'a'.repeat(254)}`, environment({}))).toThrow(/bad KubeVirt target/);
    expect(target(`default/${'a'.repeat(253)}`, environment({})).name).toContain('a'.repeat(253));
  });
});

describe('where the kubeconfig comes from', () => {
  it('reads KUBECONFIG from the injected environment, not from the process', async () => {
    await target('vm-a', environment({ KUBECONFIG: kubeconfig })).check!(signal());
  });

  it('falls back to HOME/.kube/config', async () => {
    const home = mkdtempSync(join(fixture.dir, 'home-'));
    mkdirSync(join(home, '.kube'));
    writeFileSync(join(home, '.kube', 'config'), readFileSync(kubeconfig));
    await target('vm-a', environment({}, { homeDir: home })).check!(signal());
  });

  it("uses the pod's service account when there is no kubeconfig", async () => {
    const account = mkdtempSync(join(fixture.dir, 'serviceaccount-'));
    writeFileSync(join(account, 'token'), fixture.token);
    writeFileSync(join(account, 'ca.crt'), fixture.caPem);
    writeFileSync(join(account, 'namespace'), 'prod\n');
    const port = new URL(fixture.url).port;
    const t = target(
      'db-1',
      environment({ KUBERNETES_SERVICE_HOST: '127.0.0.1', KUBERNETES_SERVICE_PORT: port }, { serviceAccountDir: account }),
    );
    await t.check!(signal());
    expect(t.name).toBe('prod/db-1');
  });

  it('says what to do when there is no configuration at all', async () => {
    const error = await checkFailure(target('vm-a', environment()));
    expect(describeError(error)).toMatch(/^no Kubernetes configuration found; set KUBECONFIG/);
  });

  it('is configured (for list with no provider named) by --kubeconfig, a $KUBECONFIG file that exists, or a service account', async () => {
    const configured = (env: KubeEnvironment, options: TargetOptions = {}) => createKubevirtProvider(() => env).configured!(options);
    expect(await configured(environment())).toBe(false);
    expect(await configured(environment({ KUBECONFIG: join(fixture.dir, 'missing') }))).toBe(false);
    expect(await configured(environment({ KUBECONFIG: kubeconfig }))).toBe(true);
    expect(await configured(environment(), { kubeconfig: '/anywhere' })).toBe(true);
    const account = mkdtempSync(join(fixture.dir, 'serviceaccount-'));
    writeFileSync(join(account, 'token'), 'x');
    expect(await configured(environment({ KUBERNETES_SERVICE_HOST: '10.0.0.1' }, { serviceAccountDir: account }))).toBe(true);
  });
});

describe('check', () => {
  it('names the VMI and its namespace once the kubeconfig is read', async () => {
    const t = target('vm-a');
    expect(t.name).toBe('vm-a');
    await t.check!(signal());
    expect(t.name).toBe('default/vm-a');
  });

  it('reports a missing VMI with what to check, without the target name', async () => {
    const error = await checkFailure(target('nope'));
    expect(error.message).toBe('virtualmachineinstances.kubevirt.io "nope" not found');
    expect(error.hint).toBe('check the VM name and namespace (-n)');
    expect(error.exitCode).toBe(1);
  });

  it('calls a VM without a VMI stopped only when KubeVirt does; else says what it is waiting for', async () => {
    const halted = await checkFailure(target('halted'));
    expect(describeError(halted)).toBe(
      'the VM is stopped (its VirtualMachine exists, it has no VMI); start it (virtctl start halted) and retry',
    );
    const pending = await checkFailure(target('pending'));
    expect(describeError(pending)).toBe(
      'the VM is ErrorPvcNotFound; it has no VMI yet; retry in a moment, or wait for it (console --wait)',
    );
  });

  it('reports a VMI that is not running', async () => {
    const error = await checkFailure(target('stopped'));
    expect(error.message).toBe('VMI is not running (phase Succeeded)');
    expect(error.hint).toMatch(/virtctl start stopped/);
  });

  it('reports a VMI without a display when its VNC console is asked for', async () => {
    const error = await checkFailure(target('headless', undefined, { consoleType: 'vnc' }));
    expect(error.message).toBe('No graphics devices are present.');
    expect(error.hint).toMatch(/serial console \(headless#serial\)/);
  });

  it("reports a VMI without a serial console, and a failed VMI, in virt-api's words", async () => {
    const noSerial = await checkFailure(target('no-serial', undefined, { consoleType: 'serial' }));
    expect(noSerial.message).toBe('No serial consoles are present.');
    expect(noSerial.hint).toMatch(/no-serial#vnc/);
    const failed = await checkFailure(target('crashed', undefined, { consoleType: 'serial' }));
    expect(failed.message).toBe('VMI is in failed status');
    expect(failed.hint).toBe('restart it (virtctl restart crashed)');
    expect(failed.exitCode).toBe(1);
  });

  it('words a failed VMI as /vnc does, and hints virtctl restart only where a VirtualMachine owns it', async () => {
    const vnc = await checkFailure(target('crashed', undefined, { consoleType: 'vnc' }));
    expect(describeError(vnc)).toBe('VMI is not running (phase Failed); restart it (virtctl restart crashed)');
    const orphan = await checkFailure(target('orphan', undefined, { consoleType: 'serial' }));
    expect(describeError(orphan)).toBe('VMI is in failed status; no VirtualMachine owns this VMI: delete and recreate it');
  });

  it('auto: the VNC console of a VMI with a display, the serial console of one without', async () => {
    const withDisplay = target('vm-a', undefined, { consoleType: 'auto' });
    await withDisplay.check!(signal());
    expect(withDisplay.facts.consoleType).toBe('vnc');
    const headless = target('headless', undefined, { consoleType: 'auto' });
    await headless.check!(signal());
    expect(headless.facts.consoleType).toBe('serial');
    const serial = await headless.dial(context());
    const greeting = await new Promise<string>((resolve) => serial.once('data', (chunk: Buffer) => resolve(chunk.toString())));
    expect(greeting).toContain('login: ');
    serial.destroy();
    expect(fixture.requests.at(-1)?.path).toBe(
      '/apis/subresources.kubevirt.io/v1/namespaces/default/virtualmachineinstances/headless/console',
    );
  });

  it('asks a SelfSubjectAccessReview and reports the missing RBAC rule before anything dials', async () => {
    const viewer = fixture.kubeconfigPath({ token: fixture.forbiddenToken, fileName: 'unit-viewer.yaml' });
    const before = fixture.requests.length;
    const error = await checkFailure(target('vm-a', environment({ KUBECONFIG: viewer })));
    expect(error.message).toBe('forbidden: you may not get virtualmachineinstances/vnc in namespace "default"');
    expect(error.hint).toMatch(/RBAC "get" on virtualmachineinstances\/vnc/);
    const asked = fixture.requests.slice(before);
    expect(asked.some((r) => r.method === 'POST' && r.path === '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews')).toBe(true);
    expect(asked.some((r) => r.upgrade)).toBe(false);
  });

  it('opens the console of a VMI RBAC forbids reading, as virtctl does: the review and virt-api decide', async () => {
    const consoleOnly = await startKubevirtFixture({
      vmis: [{ namespace: 'default', name: 'vm-a' }],
      deniedVmiVerbs: ['get', 'list', 'watch'],
    });
    try {
      const env = environment({ KUBECONFIG: consoleOnly.kubeconfigPath() });
      const auto = target('vm-a', env, { consoleType: 'auto' });
      await auto.check!(signal());
      expect(consoleOnly.requests.some((r) => r.method === 'GET' && r.path.endsWith('/virtualmachineinstances/vm-a'))).toBe(true);
      expect(auto.facts.consoleType).toBe('vnc');
      const stream = await auto.dial(context());
      expect((await readBytes(stream, 12)).toString()).toBe('RFB 003.008\n');
      stream.destroy();
      // Where the console's own review refuses, that is still said before anything dials.
      const viewer = consoleOnly.kubeconfigPath({ token: consoleOnly.forbiddenToken, fileName: 'unit-console-viewer.yaml' });
      const refused = await checkFailure(target('vm-a', environment({ KUBECONFIG: viewer }), { consoleType: 'serial' }));
      expect(refused.message).toBe('forbidden: you may not get virtualmachineinstances/console in namespace "default"');
    } finally {
      await consoleOnly.close();
    }
  });

  it('passes the 401 hint on when the credentials are refused', async () => {
    const wrong = fixture.kubeconfigPath({ token: 'wrong-token', fileName: 'unit-wrong.yaml' });
    const error = await checkFailure(target('vm-a', environment({ KUBECONFIG: wrong })));
    expect(error.message).toMatch(/Unauthorized/);
    expect(error.hint).toMatch(/credentials were rejected/);
  });

  it('says which API it could not reach, and how', async () => {
    const text = readFileSync(kubeconfig, 'utf8').replace(/server: .*/, 'server: https://127.0.0.1:1');
    const file = join(fixture.dir, 'unit-refused.yaml');
    writeFileSync(file, text);
    const error = await checkFailure(target('vm-a', environment({ KUBECONFIG: file })));
    expect(describeError(error)).toBe(
      'cannot reach the Kubernetes API at 127.0.0.1:1: connection refused by 127.0.0.1:1; check that the API server 127.0.0.1:1 is reachable',
    );
  });
});

describe('dial', () => {
  it('opens the vnc subresource with the plain.kubevirt.io subprotocol', async () => {
    const before = fixture.requests.length;
    const stream = await target('prod/db-1').dial(context());
    expect((await readBytes(stream, 12)).toString()).toBe('RFB 003.008\n');
    stream.destroy();
    const upgrade = fixture.requests.slice(before).find((r) => r.upgrade);
    expect(upgrade?.path).toBe('/apis/subresources.kubevirt.io/v1/namespaces/prod/virtualmachineinstances/db-1/vnc');
    expect(upgrade?.protocols).toEqual(['plain.kubevirt.io']);
    expect(upgrade?.query.preserveSession).toBeUndefined();
  });

  it('asks virt-handler to preserve a session another client holds, and says so when it is held', async () => {
    const holder = await target('vm-shared').dial(context());
    await readBytes(holder, 12);
    try {
      const before = fixture.requests.length;
      const error = (await failure(target('vm-shared', undefined, { preserveSession: true }).dial(context()))) as VconsoleError;
      const upgrade = fixture.requests.slice(before).find((r) => r.upgrade);
      expect(upgrade?.query.preserveSession).toBe('true');
      expect(error).toBeInstanceOf(VconsoleError);
      expect(error.message).not.toMatch(/vm-shared:/);
      expect(describeError(error)).toBe(
        "the VM's VNC session is held by another client (KubeVirt: Active VNC connection. Request denied.); close that client first",
      );
      // screenshot refuses with preserveSession too, where dropping --preserve-session means nothing.
      expect(error.hint).not.toMatch(/preserve-session/);
      expect(error.exitCode).toBe(1);
    } finally {
      holder.destroy();
    }
  });

  it('knows an older virt-api\'s "bad handshake" for a held session when the hub asks preserveSession per dial', async () => {
    const older = await startKubevirtFixture({ vmis: [{ namespace: 'default', name: 'vm-old' }], virtApiRelease: 'pre-v1.8' });
    try {
      const env = environment({ KUBECONFIG: older.kubeconfigPath() });
      const holder = await target('vm-old', env).dial(context());
      await readBytes(holder, 12);
      try {
        // As the hub dials (console-connection.ts): the flag on the dial, none in the target's options.
        const error = (await failure(target('vm-old', env).dial({ ...context(), preserveSession: true }))) as VconsoleError;
        expect(older.requests.filter((r) => r.upgrade).at(-1)?.query.preserveSession).toBe('true');
        expect(describeError(error)).toBe(
          "the VM's VNC session is held by another client (KubeVirt: websocket: bad handshake); close that client first",
        );
      } finally {
        holder.destroy();
      }
    } finally {
      await older.close();
    }
  });

  it('reports a refused upgrade with the Status message and the RBAC hint', async () => {
    const viewer = fixture.kubeconfigPath({ token: fixture.forbiddenToken, fileName: 'unit-viewer-dial.yaml' });
    const error = (await failure(target('vm-a', environment({ KUBECONFIG: viewer })).dial(context()))) as VconsoleError;
    expect(error.message).toMatch(/^virtualmachineinstances.subresources.kubevirt.io "vm-a" is forbidden/);
    expect(error.hint).toBe('ask for RBAC "get" on virtualmachineinstances/vnc in API group subresources.kubevirt.io');
    const serial = (await failure(
      target('vm-a', environment({ KUBECONFIG: viewer }), { consoleType: 'serial' }).dial(context()),
    )) as VconsoleError;
    expect(serial.message).toMatch(/cannot get resource "virtualmachineinstances\/console"/);
    expect(serial.hint).toBe('ask for RBAC "get" on virtualmachineinstances/console in API group subresources.kubevirt.io');
  });
});
