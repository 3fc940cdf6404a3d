// A KubeVirt API server for the benchmarks, its own process: the test fixture
// (test/fixtures/kubevirt-api.ts, started by kubevirt-fixture.ts) with one Running VMI,
// `bench/screen`, whose VNC console is a solid-colour RFB server (solid-console.ts).
// Both vconsole and virtctl reach it through the kubeconfig it writes (token, the fixture's CA).
//
//   node --import tsx kubevirt-api.ts [VMIS WIDTH HEIGHT]
//
// With VMIS: `bench/vm-1` .. `bench/vm-VMIS` instead, each console WIDTHxHEIGHT (the
// many-consoles rows, many-consoles.ts).
//
// Prints {"url", "kubeconfig", "namespace", "vm", "width", "height", "colour"} once it listens.
import net from 'node:net';
import { startKubevirtFixture } from '../../test/fixtures/kubevirt-api.js';
import { SCREEN, startSolidConsole } from './solid-console.js';

const [count, width, height] = process.argv.slice(2).map(Number);
const size = count ? { width, height } : SCREEN;
const names = count ? Array.from({ length: count }, (_, i) => `vm-${i + 1}`) : ['screen'];
const console_ = await startSolidConsole(size);
const fixture = await startKubevirtFixture({
  vmis: names.map((name) => ({ namespace: 'bench', name })),
  // What virt-handler does for a VNC connection: dial the VM's VNC server.
  openConsole: () =>
    new Promise<net.Socket>((resolve, reject) => {
      const socket = net.connect(console_.port, '127.0.0.1');
      socket.setNoDelay(true);
      socket.once('connect', () => resolve(socket));
      socket.once('error', reject);
    }),
});
const kubeconfig = fixture.kubeconfigPath({ namespace: 'bench' });
process.stdout.write(`${JSON.stringify({ url: fixture.url, kubeconfig, namespace: 'bench', vm: names[0], ...SCREEN, ...size })}\n`);
const stop = async () => {
  await fixture.close();
  await console_.close();
  process.exit(0);
};
process.on('SIGTERM', () => void stop());
