// KubeVirt as a user meets it, all real but the node: etcd, kube-apiserver and virt-api on loopback
// (kube-control-plane.ts, kubevirt-control-plane.ts), virt-handler's console server as a stand-in with
// mutual TLS (virt-handler-standin.ts) and its Pod on a node, and one QEMU behind a running VM whose
// VNC and serial sockets the stand-in bridges to, as virt-handler bridges to virt-launcher's.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { makeLeaf } from './kube-certs.js';
import { startControlPlane, type ControlPlane } from './kube-control-plane.js';
import type { KubePrograms } from './kube-programs.js';
import { installKubeVirtCrds, startVirtApi, type VirtApi } from './kubevirt-control-plane.js';
import { awaitSocketFile } from './net.js';
import type { ProcessLab, RunningProcess } from './processes.js';
import { Qmp } from './qmp.js';
import { qemuPcArgs } from './qemu.js';
import { createVirtHandlerPod, createVm } from './virt-handler-node.js';
import { startVirtHandlerStandin, VIRT_HANDLER_SERVER_CN, type VirtHandlerStandin } from './virt-handler-standin.js';

export const NAMESPACE = 'vconsole-e2e';
export const OTHER_NAMESPACE = 'vconsole-e2e-b';
/** The loopback address virt-handler's Pod IP says and the stand-in listens on. */
const NODE_ADDRESS = '127.0.0.1';

export interface QemuConsoles {
  vncPath: string;
  serialPath: string;
  qmp: Qmp;
  process: RunningProcess;
}

export interface RealKubevirt {
  plane: ControlPlane;
  virtApi: VirtApi;
  handler: VirtHandlerStandin;
  qemu: QemuConsoles;
  close(): Promise<void>;
}

/**
 * One disk-less PC with a screen and a serial line, as virt-launcher gives QEMU both: `-vnc unix:` and
 * `-serial unix:`. SeaBIOS writes to the serial line too when fw_cfg names its port (etc/sercon-port,
 * 0x3f8 as a little-endian integer), and offers its boot menu there for 30 s after each reset.
 */
export async function startQemuWithConsoles(lab: ProcessLab, dir: string, name: string): Promise<QemuConsoles> {
  const vncPath = join(dir, `${name}.vnc.sock`);
  const serialPath = join(dir, `${name}.serial.sock`);
  const qmpPath = join(dir, `${name}.qmp.sock`);
  const sercon = join(dir, 'sercon-port');
  await writeFile(sercon, Buffer.from([0xf8, 0x03]));
  const qemu = lab.start(
    `qemu ${name}`,
    'qemu-system-x86_64',
    [
      ...qemuPcArgs(name),
      '-vnc',
      `unix:${vncPath}`,
      '-serial',
      `unix:${serialPath},server=on,wait=off`,
      '-qmp',
      `unix:${qmpPath},server=on,wait=off`,
      '-fw_cfg',
      `name=etc/sercon-port,file=${sercon}`,
      '-boot',
      'menu=on,splash-time=30000',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  await awaitSocketFile(vncPath, `QEMU ${name}'s VNC socket`, 60_000, () => qemu.describe());
  await awaitSocketFile(serialPath, `QEMU ${name}'s serial socket`, 60_000, () => qemu.describe());
  return { vncPath, serialPath, qmp: await Qmp.connect(qmpPath), process: qemu };
}

/**
 * Starts it all: `vconsole-e2e/vm-a` runs on QEMU, `vconsole-e2e/vm-off` is a stopped VM (no VMI),
 * `vconsole-e2e-b/vm-b` runs on the node with no QEMU behind it.
 */
export async function startRealKubevirt(lab: ProcessLab, programs: KubePrograms): Promise<RealKubevirt> {
  const plane = await startControlPlane(lab, programs);
  const qemu = await startQemuWithConsoles(lab, plane.dir, 'vm-a');
  for (const name of [NAMESPACE, OTHER_NAMESPACE])
    await plane.admin.ok('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  await installKubeVirtCrds(plane, programs);
  // The CA virt-api trusts virt-handler by is the kubevirt-ca ConfigMap's, here the cluster CA.
  const serving = await makeLeaf(plane.dir, 'virt-handler', plane.ca, {
    commonName: VIRT_HANDLER_SERVER_CN,
    usage: 'server',
    ips: [NODE_ADDRESS],
  });
  const handler = await startVirtHandlerStandin({
    caFile: plane.ca.cert,
    serving,
    address: NODE_ADDRESS,
    vmis: [
      {
        namespace: NAMESPACE,
        name: 'vm-a',
        vncSocketPath: qemu.vncPath,
        serialSocketPath: qemu.serialPath,
        // virt-launcher's libvirt suspend and resume are QEMU's stop and cont.
        lifecycle: async (action) => {
          if (action !== 'softreboot') await qemu.qmp.execute(action === 'pause' ? 'stop' : 'cont');
        },
      },
    ],
  });
  const virtApi = await startVirtApi(lab, plane, programs, handler.port);
  await createVirtHandlerPod(plane, NODE_ADDRESS);
  await createVm(plane, { namespace: NAMESPACE, name: 'vm-a', running: true, labels: { app: 'web' } });
  await createVm(plane, { namespace: NAMESPACE, name: 'vm-off', running: false });
  await createVm(plane, { namespace: OTHER_NAMESPACE, name: 'vm-b', running: true, labels: { app: 'web' } });
  return {
    plane,
    virtApi,
    handler,
    qemu,
    async close() {
      qemu.qmp.close();
      await handler.close();
    },
  };
}
