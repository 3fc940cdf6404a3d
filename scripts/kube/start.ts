// Starts the KubeVirt tests' control plane by hand, as the e2e suite does (test/e2e/support/kube-control-plane.ts):
// etcd, kube-apiserver, KubeVirt's CRDs and virt-api behind the aggregation layer, all on loopback. Prints a
// kubeconfig per kind of user and runs until Ctrl+C, which stops everything and removes the temp dir.
//
//   bash scripts/kube/build.sh && npx tsx scripts/kube/start.ts [--no-virt-api]
import { startControlPlane } from '../../test/e2e/support/kube-control-plane.js';
import { writeKubeconfig } from '../../test/e2e/support/kube-kubeconfig.js';
import { kubePrograms, missingKubeProgramsReason } from '../../test/e2e/support/kube-programs.js';
import { installKubeVirtCrds, startVirtApi } from '../../test/e2e/support/kubevirt-control-plane.js';
import { ProcessLab } from '../../test/e2e/support/processes.js';

async function main(): Promise<void> {
  const withVirtApi = !process.argv.includes('--no-virt-api');
  const programs = kubePrograms();
  const missing = missingKubeProgramsReason(programs, [
    'etcd',
    'kubeApiserver',
    'kubevirtCrds',
    ...(withVirtApi ? (['virtApi'] as const) : []),
  ]);
  if (missing) {
    process.stderr.write(`kube start: ${missing}\n`);
    process.exit(1);
  }
  const lab = new ProcessLab();
  const stop = async () => {
    process.stdout.write('kube start: stopping\n');
    await lab.cleanup();
    process.exit(0);
  };
  process.once('SIGINT', () => void stop());
  process.once('SIGTERM', () => void stop());
  try {
    const plane = await startControlPlane(lab, programs);
    process.stdout.write(`kube-apiserver ${plane.server} (files in ${plane.dir})\n`);
    const crds = await installKubeVirtCrds(plane, programs);
    process.stdout.write(`${crds.length} KubeVirt CRDs established\n`);
    if (withVirtApi) {
      const virtApi = await startVirtApi(lab, plane, programs);
      process.stdout.write(`virt-api on 127.0.0.1:${virtApi.port}, registered as v1.subresources.kubevirt.io\n`);
    }
    for (const kind of ['admin', 'cert', 'token', 'exec'] as const)
      process.stdout.write(`kubeconfig (${kind} user): ${await writeKubeconfig(plane, kind)}\n`);
    process.stdout.write('running; Ctrl+C stops it\n');
  } catch (err) {
    process.stderr.write(`kube start: ${err instanceof Error ? err.message : String(err)}\n`);
    await lab.cleanup();
    process.exit(1);
  }
}

void main();
