import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { kubeCacheDir, kubePrograms, kubeVersions, missingKubeProgramsReason, requiredVersion } from './kube-programs.js';

const GO_MOD = `module vconsole.test/kube-apiserver

go 1.26.0

require go.etcd.io/etcd/server/v3 v3.6.8

require (
	k8s.io/kubernetes v1.36.3 // indirect
	k8s.io/kubelet v0.36.3 // indirect
)

replace (
	k8s.io/api => k8s.io/api v0.36.3
)

tool k8s.io/kubernetes/cmd/kube-apiserver
`;

describe('the control plane programs in the build cache', () => {
  const dirs: string[] = [];
  afterAll(async () => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));

  it('reads a module version from a require line or block, not from replace or tool lines', () => {
    expect(requiredVersion(GO_MOD, 'k8s.io/kubernetes')).toBe('v1.36.3');
    expect(requiredVersion(GO_MOD, 'go.etcd.io/etcd/server/v3')).toBe('v3.6.8');
    expect(requiredVersion(GO_MOD, 'k8s.io/api')).toBeUndefined();
    expect(requiredVersion(GO_MOD, 'k8s.io/kube')).toBeUndefined();
  });

  it("keys each program's path by the version the repository's go.mod files pin, under VCONSOLE_KUBE_CACHE", () => {
    const versions = kubeVersions();
    expect(kubeCacheDir({ VCONSOLE_KUBE_CACHE: '/cache' })).toBe('/cache');
    const programs = kubePrograms('/cache');
    expect(programs.kubeApiserver).toBe(`/cache/kubernetes-${versions.kubernetes}/bin/kube-apiserver`);
    expect(programs.etcd).toBe(`/cache/etcd-${versions.etcd}/bin/etcd`);
    expect(programs.virtApi).toBe(`/cache/kubevirt-${versions.kubevirt}/bin/virt-api`);
  });

  it('names the missing programs and the command that builds them, in one line', async () => {
    const cache = await mkdtemp(join(tmpdir(), 'vc-kube-cache-'));
    dirs.push(cache);
    const programs = kubePrograms(cache);
    await mkdir(dirname(programs.etcd), { recursive: true });
    await writeFile(programs.etcd, '');
    expect(missingKubeProgramsReason(programs, ['etcd'])).toBeUndefined();
    const reason = missingKubeProgramsReason(programs, ['etcd', 'kubeApiserver']);
    expect(reason).toBe(`the Kubernetes control plane is not built (missing ${programs.kubeApiserver}); run bash scripts/kube/build.sh`);
  });
});
