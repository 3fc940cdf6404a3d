// The KubeVirt fixture API server holding many VMIs, for the listing rows (kubevirt-listing.ts):
// VMIS VMIs spread over NAMESPACES namespaces, no consoles. It pages lists as kube-apiserver does.
//
//   node --import tsx kubevirt-many-api.ts VMIS NAMESPACES
//
// Prints {"kubeconfig"} once it listens.
import { startKubevirtFixture } from '../../test/fixtures/kubevirt-api.js';

const [vmis, namespaces] = process.argv.slice(2).map(Number);
const fixture = await startKubevirtFixture({
  vmis: Array.from({ length: vmis }, (_, i) => ({ namespace: `ns-${i % namespaces}`, name: `vm-${i}` })),
});
process.stdout.write(`${JSON.stringify({ kubeconfig: fixture.kubeconfigPath() })}\n`);
process.on('SIGTERM', () => void fixture.close().then(() => process.exit(0)));
