// vconsole's KubeVirt provider against the real programs: kube-apiserver, etcd and virt-api on loopback, with a
// stand-in for virt-handler's console server (mutual TLS, its paths) that bridges to real QEMU; real virtctl against
// the same control plane is the control. Built by scripts/kube/build.sh; see docs/DEVELOPING.md.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PNG } from 'pngjs';
import type WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { USERS } from './support/kube-control-plane.js';
import { kubeClient } from './support/kube-http.js';
import { closeCode, dialSubresource, subresourceUrl } from './support/kube-websocket.js';
import { createVmi } from './support/virt-handler-node.js';
import { badRequestStatus, type FixtureVmi } from '../fixtures/kubevirt-objects.js';
import { checkConsoleRequest, NOT_WEBSOCKET, type Identity } from '../fixtures/kubevirt-rules.js';
import { writeKubeconfig } from './support/kube-kubeconfig.js';
import { requireKubePrograms } from './support/kube-programs.js';
import { grantClusterWide, grantInNamespace, openConsoles, READ_VMS } from './support/kube-rbac.js';
import { NAMESPACE, OTHER_NAMESPACE, startRealKubevirt, type RealKubevirt } from './support/kubevirt-real-cluster.js';
import { countLit, pngPixelsDiffering } from './support/images.js';
import { freeLoopbackPort } from './support/net.js';
import { GiveUp, pollFor } from './support/poll.js';
import { ProcessLab, runProgram, type RunningProcess } from './support/processes.js';
import { askForBootMenu, BOOT_MENU, ESC } from './support/serial.js';
import { E2E_SETUP_TIMEOUT_MS, E2E_TEST_TIMEOUT_MS, VCONSOLE_BIN, gatedTitle, requireTools } from './support/tools.js';
import { startProxy, vconsoleEnv } from './support/vconsole.js';
import { takeVncSnapshot } from './support/vncsnapshot.js';

const tools = requireTools(['openssl', 'qemu-system-x86_64', 'vncsnapshot', 'convert']);
const kube = requireKubePrograms(['etcd', 'kubeApiserver', 'kubevirtCrds', 'virtApi', 'virtctl']);
const gate = { skip: tools.skip ?? kube.skip };

const lab = new ProcessLab();
let kv: RealKubevirt;
/** The token user may read VMs everywhere and open both consoles in vconsole-e2e. */
let tokenConfig: string;
/** The certificate user may read VMs and open only VNC in vconsole-e2e. */
let vncOnlyConfig: string;

async function vconsole(args: readonly string[]) {
  return runProgram(process.execPath, [VCONSOLE_BIN, ...args], { timeoutMs: 60_000, env: vconsoleEnv({ HOME: kv.plane.dir }) });
}

async function listTargets(args: readonly string[]): Promise<{ target: string; state?: string }[]> {
  const result = await vconsole(['list', '--provider', 'kubevirt', '--kubeconfig', tokenConfig, '--json', ...args]);
  expect(result.stderr, `vconsole list ${args.join(' ')}`).toBe('');
  expect(result.code).toBe(0);
  return (JSON.parse(result.stdout) as { target: string; state?: string }[]).map(({ target, state }) => ({ target, state }));
}

interface RefusalCase {
  name: string;
  kind: 'vnc' | 'console';
  vmi: FixtureVmi | undefined;
}

const REFUSALS: RefusalCase[] = [
  { name: 'no-display', kind: 'vnc', vmi: { namespace: NAMESPACE, name: 'no-display', graphics: false } },
  { name: 'no-serial', kind: 'console', vmi: { namespace: NAMESPACE, name: 'no-serial', serialConsole: false } },
  { name: 'pending', kind: 'vnc', vmi: { namespace: NAMESPACE, name: 'pending', phase: 'Pending' } },
  { name: 'pending', kind: 'console', vmi: { namespace: NAMESPACE, name: 'pending', phase: 'Pending' } },
  { name: 'failed', kind: 'vnc', vmi: { namespace: NAMESPACE, name: 'failed', phase: 'Failed' } },
  { name: 'failed', kind: 'console', vmi: { namespace: NAMESPACE, name: 'failed', phase: 'Failed' } },
  { name: 'missing', kind: 'vnc', vmi: undefined },
];

/** The Status test/fixtures/kubevirt-api answers the same request with. */
function fixtureRefusal(
  name: string,
  kind: 'vnc' | 'console',
  vmi: FixtureVmi | undefined,
  inUse: boolean,
  identity: Identity = { user: USERS.admin.name, role: 'admin' },
): unknown {
  const route = { type: 'console', version: 'v1', namespace: NAMESPACE, name, kind: kind === 'vnc' ? 'vnc' : 'serial' } as const;
  const check = checkConsoleRequest({ route, identity, vmi, query: inUse ? { preserveSession: 'true' } : {}, inUse, release: 'v1.8+' });
  return check.ok ? 'the fixture lets it through' : check.status;
}

function firstMessage(ws: WebSocket): Promise<string> {
  return new Promise((resolve, reject) => {
    ws.once('message', (data: Buffer) => resolve(data.toString('latin1')));
    ws.once('close', (code) => reject(new Error(`closed (${code}) before a message`)));
  });
}

const opened = (kind: 'vnc' | 'console') =>
  kv.handler.events.filter((e) => e.vmi === `${NAMESPACE}/vm-a` && e.kind === kind && e.what === 'opened').length;

/** Resets the VM once a serial session is open, so SeaBIOS offers its boot menu to whoever holds the line. */
async function resetOnceSerialOpens(before: number, proc: RunningProcess): Promise<void> {
  await pollFor(
    () => {
      if (proc.hasExited()) throw new GiveUp(`${proc.describe()}`);
      return opened('console') > before && kv.handler.activeSessions(`${NAMESPACE}/vm-a`, 'console') === 1 ? true : undefined;
    },
    { what: 'the serial session at the stand-in', timeoutMs: 60_000, detail: () => proc.describe() },
  );
  await kv.qemu.qmp.execute('system_reset');
}

describe.skipIf(gate.skip)(gatedTitle('the KubeVirt provider against real kube-apiserver and virt-api, QEMU behind', gate), () => {
  beforeAll(async () => {
    kv = await startRealKubevirt(lab, kube.programs);
    await grantClusterWide(kv.plane, 'vconsole-e2e-reader', USERS.token.name, [READ_VMS]);
    await grantInNamespace(kv.plane, NAMESPACE, 'vconsole-e2e-consoles', USERS.token.name, [openConsoles('vnc', 'console')]);
    await grantInNamespace(kv.plane, NAMESPACE, 'vconsole-e2e-vnc-only', USERS.cert.name, [READ_VMS, openConsoles('vnc')]);
    tokenConfig = await writeKubeconfig(kv.plane, 'token', NAMESPACE);
    vncOnlyConfig = await writeKubeconfig(kv.plane, 'cert', NAMESPACE);
  }, E2E_SETUP_TIMEOUT_MS);
  afterAll(async () => {
    await kv?.close();
    await lab.cleanup();
  }, E2E_SETUP_TIMEOUT_MS);

  it(
    'lists the context namespace, -n another, and -A with a stopped VM',
    async () => {
      expect(await listTargets([])).toEqual([
        { target: `${NAMESPACE}/vm-a`, state: 'Running' },
        { target: `${NAMESPACE}/vm-off`, state: 'Stopped' },
      ]);
      expect((await listTargets(['-n', OTHER_NAMESPACE])).map((vm) => vm.target)).toEqual([`${OTHER_NAMESPACE}/vm-b`]);
      // Sorted by target text: '-' sorts before '/'.
      expect((await listTargets(['-A'])).map((vm) => vm.target)).toEqual([
        `${OTHER_NAMESPACE}/vm-b`,
        `${NAMESPACE}/vm-a`,
        `${NAMESPACE}/vm-off`,
      ]);
    },
    E2E_TEST_TIMEOUT_MS,
  );

  it(
    "`proxy` serves QEMU's screen through kube-apiserver, virt-api and the stand-in",
    async () => {
      const before = opened('vnc');
      const proxy = await startProxy(lab, ['vm-a'], ['--kubeconfig', tokenConfig], { HOME: kv.plane.dir });
      const snapshot = await takeVncSnapshot(proxy.ports[0].port, kv.plane.dir);
      expect([snapshot.width, snapshot.height]).toEqual([720, 400]);
      expect(snapshot.desktopName).toBe('QEMU (vm-a)');
      expect(countLit(snapshot.image)).toBeGreaterThan(1_500);
      expect(opened('vnc')).toBeGreaterThan(before);
      await proxy.interrupt();
    },
    E2E_TEST_TIMEOUT_MS,
  );

  it(
    "`screenshot` equals QEMU's screendump pixel for pixel",
    async () => {
      const file = join(kv.plane.dir, 'vm-a.png');
      let last = '';
      await pollFor(
        async () => {
          const result = await vconsole(['screenshot', 'vm-a', '--kubeconfig', tokenConfig, '-o', file]);
          if (result.code !== 0) throw new GiveUp(`screenshot failed (${result.code}): ${result.stderr}`);
          const png = PNG.sync.read(await readFile(file));
          const differing = pngPixelsDiffering(png, await kv.qemu.qmp.screendump(kv.plane.dir));
          // The text cursor blinks: a picture taken between two blinks is the one to compare.
          last = `${png.width}x${png.height}, ${differing} pixels differ`;
          return differing === 0 ? true : undefined;
        },
        { what: 'a screenshot equal to the screendump', timeoutMs: 90_000, intervalMs: 100, detail: () => last },
      );
    },
    E2E_TEST_TIMEOUT_MS,
  );

  it(
    '`console` reaches SeaBIOS on the serial line both ways',
    async () => {
      const before = opened('console');
      const result = await askForBootMenu(lab, ['vm-a', '--kubeconfig', tokenConfig], { HOME: kv.plane.dir }, (proc) =>
        resetOnceSerialOpens(before, proc),
      );
      expect(result.stdout).toMatch(BOOT_MENU);
      expect(result.code, result.stderr).toBe(0);
    },
    E2E_TEST_TIMEOUT_MS,
  );

  it(
    'the pre-flight refuses the serial console to a user whose Role grants only vnc, before virt-api is dialled',
    async () => {
      const before = opened('console');
      const result = await vconsole(['console', 'vm-a', '--kubeconfig', vncOnlyConfig]);
      expect(result.code).toBe(1);
      expect(result.stderr).toBe(
        `vconsole: ${NAMESPACE}/vm-a: forbidden: you may not get virtualmachineinstances/console in namespace "${NAMESPACE}"; ` +
          'ask for RBAC "get" on virtualmachineinstances/console in API group subresources.kubevirt.io\n',
      );
      expect(opened('console')).toBe(before);
      // The real RBAC agrees: the websocket itself is refused with 403, and VNC is let through.
      const asCertUser = kubeClient(kv.plane.server, kv.plane.ca.cert, kv.plane.userCert);
      const path = `/apis/subresources.kubevirt.io/v1/namespaces/${NAMESPACE}/virtualmachineinstances/vm-a`;
      expect((await asCertUser.call('GET', `${path}/console`, undefined, { accept: '*/*' })).status).toBe(403);
      const screens = await vconsole(['screenshot', 'vm-a', '--kubeconfig', vncOnlyConfig, '-o', join(kv.plane.dir, 'cert-user.png')]);
      expect(screens.code, screens.stderr).toBe(0);
    },
    E2E_TEST_TIMEOUT_MS,
  );

  it(
    "refusals read exactly as the fixture words them, virt-handler's included",
    async () => {
      await createVmi(kv.plane, { namespace: NAMESPACE, name: 'no-display', phase: 'Running', graphics: false });
      await createVmi(kv.plane, { namespace: NAMESPACE, name: 'no-serial', phase: 'Running', serialConsole: false });
      await createVmi(kv.plane, { namespace: NAMESPACE, name: 'pending', phase: 'Pending' });
      await createVmi(kv.plane, { namespace: NAMESPACE, name: 'failed', phase: 'Failed' });
      const admin = kv.plane.adminCert;
      for (const c of REFUSALS) {
        const real = await dialSubresource(kv.plane, admin, subresourceUrl(kv.plane, NAMESPACE, c.name, c.kind));
        const fixture = fixtureRefusal(c.name, c.kind, c.vmi, false);
        expect('status' in real && JSON.parse(real.body), `${c.kind} of ${c.name}`).toEqual(fixture);
      }
      const asCert = { cert: kv.plane.userCert.cert, key: kv.plane.userCert.key };
      const forbidden = await dialSubresource(kv.plane, asCert, subresourceUrl(kv.plane, NAMESPACE, 'vm-a', 'console'));
      expect('status' in forbidden && JSON.parse(forbidden.body)).toEqual(
        fixtureRefusal('vm-a', 'console', { namespace: NAMESPACE, name: 'vm-a' }, false, { user: USERS.cert.name, role: 'viewer' }),
      );

      // One VNC session per VMI: preserveSession=true is refused while one is open, a plain dial takes it over.
      const first = await dialSubresource(kv.plane, admin, subresourceUrl(kv.plane, NAMESPACE, 'vm-a', 'vnc'));
      if (!('ws' in first)) throw new Error(`the first VNC dial was refused: ${first.body}`);
      expect(await firstMessage(first.ws)).toBe('RFB 003.008\n');
      const kept = await dialSubresource(kv.plane, admin, subresourceUrl(kv.plane, NAMESPACE, 'vm-a', 'vnc', '?preserveSession=true'));
      expect('status' in kept && JSON.parse(kept.body)).toEqual(
        fixtureRefusal('vm-a', 'vnc', { namespace: NAMESPACE, name: 'vm-a' }, true),
      );
      const firstClosed = closeCode(first.ws);
      const second = await dialSubresource(kv.plane, admin, subresourceUrl(kv.plane, NAMESPACE, 'vm-a', 'vnc'));
      if (!('ws' in second)) throw new Error(`the second VNC dial was refused: ${second.body}`);
      expect(await firstMessage(second.ws)).toBe('RFB 003.008\n');
      expect(await firstClosed).toBe(1006);

      // virt-api dials virt-handler before it upgrades the client: a plain GET takes the session, then fails.
      const secondClosed = closeCode(second.ws);
      const plain = await kv.plane.admin.call('GET', new URL(subresourceUrl(kv.plane, NAMESPACE, 'vm-a', 'vnc')).pathname, undefined, {
        accept: '*/*',
      });
      // gorilla's Upgrade has already written http.Error's "Bad Request" when virt-api writes its Status after it.
      expect(plain.status).toBe(400);
      expect(plain.body.startsWith('Bad Request\n{')).toBe(true);
      expect(JSON.parse(plain.body.slice('Bad Request\n'.length))).toEqual(badRequestStatus(NOT_WEBSOCKET));
      expect(await secondClosed).toBe(1006);
    },
    E2E_TEST_TIMEOUT_MS,
  );

  it(
    'real virtctl: `vnc --proxy-only` serves the same screen, `console` reaches the same serial line',
    async () => {
      const virtctlEnv = vconsoleEnv({ HOME: kv.plane.dir });
      const port = await freeLoopbackPort();
      const vnc = lab.start(
        'virtctl vnc',
        kube.programs.virtctl,
        ['--kubeconfig', tokenConfig, '-n', NAMESPACE, 'vnc', 'vm-a', '--proxy-only', '--port', String(port)],
        { env: virtctlEnv },
      );
      await pollFor(
        () => {
          if (vnc.hasExited()) throw new GiveUp(vnc.describe());
          return vnc.stdout().includes(`"port":${port}`) ? true : undefined;
        },
        { what: 'virtctl vnc to print its port', timeoutMs: 60_000, detail: () => vnc.describe() },
      );
      const snapshot = await takeVncSnapshot(port, kv.plane.dir);
      expect([snapshot.width, snapshot.height, snapshot.desktopName]).toEqual([720, 400, 'QEMU (vm-a)']);
      await vnc.signalAndWait('SIGINT', 15_000);

      const before = opened('console');
      const serial = lab.start(
        'virtctl console',
        kube.programs.virtctl,
        ['--kubeconfig', tokenConfig, '-n', NAMESPACE, 'console', 'vm-a'],
        {
          env: virtctlEnv,
          stdio: ['pipe', 'pipe', 'pipe'],
        },
      );
      await resetOnceSerialOpens(before, serial);
      await pollFor(
        () => {
          if (serial.hasExited()) throw new GiveUp(serial.describe());
          if (BOOT_MENU.test(serial.stdout())) return true;
          serial.child.stdin?.write(ESC);
          return undefined;
        },
        { what: "the boot menu on virtctl console's stdout", timeoutMs: 60_000, intervalMs: 300, detail: () => serial.describe() },
      );
      serial.child.stdin?.write('\x1d'); // ^], virtctl's escape
      const status = await serial.exited;
      expect(status.code, serial.describe()).toBe(0);
    },
    E2E_TEST_TIMEOUT_MS,
  );
});
