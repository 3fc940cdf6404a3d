// Where scripts/kube/build.sh put the real control plane's programs: its cache, keyed by the versions the two
// Go modules under scripts/kube require. Nothing here builds; a suite whose programs are missing is skipped with
// the command that builds them, or fails under VCONSOLE_E2E=required.
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { programsRequired } from '../../support/programs.js';
import type { E2eGate } from './tools.js';
import { REPO_ROOT } from './tools.js';

export interface KubePrograms {
  etcd: string;
  kubeApiserver: string;
  virtApi: string;
  virtctl: string;
  kubevirtCrds: string;
}

export interface KubeVersions {
  kubernetes: string;
  etcd: string;
  kubevirt: string;
}

const BUILD_SCRIPT = 'scripts/kube/build.sh';

/** The version of `modulePath` that `goModText` (a go.mod) requires. */
export function requiredVersion(goModText: string, modulePath: string): string | undefined {
  const escaped = modulePath.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  return new RegExp(`^\\s*(?:require\\s+)?${escaped}\\s+(v\\S+)`, 'm').exec(goModText)?.[1];
}

function versionIn(relativeGoMod: string, modulePath: string): string {
  const path = join(REPO_ROOT, relativeGoMod);
  const version = requiredVersion(readFileSync(path, 'utf8'), modulePath);
  if (!version) throw new Error(`${relativeGoMod} requires no version of ${modulePath}`);
  return version;
}

export function kubeVersions(): KubeVersions {
  return {
    kubernetes: versionIn('scripts/kube/apiserver/go.mod', 'k8s.io/kubernetes'),
    etcd: versionIn('scripts/kube/apiserver/go.mod', 'go.etcd.io/etcd/server/v3'),
    kubevirt: versionIn('scripts/kube/kubevirt/go.mod', 'kubevirt.io/kubevirt'),
  };
}

/** The cache scripts/kube/build.sh builds into (same default, same variable). */
export function kubeCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.VCONSOLE_KUBE_CACHE || join(homedir(), '.cache', 'vconsole-kube');
}

export function kubePrograms(cache = kubeCacheDir()): KubePrograms {
  const v = kubeVersions();
  const bin = (name: string, version: string, program: string) => join(cache, `${name}-${version}`, 'bin', program);
  return {
    etcd: bin('etcd', v.etcd, 'etcd'),
    kubeApiserver: bin('kubernetes', v.kubernetes, 'kube-apiserver'),
    virtApi: bin('kubevirt', v.kubevirt, 'virt-api'),
    virtctl: bin('kubevirt', v.kubevirt, 'virtctl'),
    kubevirtCrds: bin('kubevirt', v.kubevirt, 'kubevirt-crds'),
  };
}

/** One line naming the programs that are not built, or undefined when all of `needed` are. */
export function missingKubeProgramsReason(programs: KubePrograms, needed: readonly (keyof KubePrograms)[]): string | undefined {
  const missing = needed.filter((name) => !existsSync(programs[name])).map((name) => programs[name]);
  if (missing.length === 0) return undefined;
  return `the Kubernetes control plane is not built (missing ${missing.join(', ')}); run bash ${BUILD_SCRIPT}`;
}

/** Like requireTools: `{skip}` with the reason printed once, or a throw under VCONSOLE_E2E=required. */
export function requireKubePrograms(needed: readonly (keyof KubePrograms)[]): E2eGate & { programs: KubePrograms } {
  const programs = kubePrograms();
  const reason = missingKubeProgramsReason(programs, needed);
  if (!reason) return { programs };
  if (programsRequired()) throw new Error(`VCONSOLE_E2E=required but ${reason}`);
  process.stderr.write(`end-to-end tests skipped: ${reason}\n`);
  return { skip: reason, programs };
}
