/**
 * What krew checks in a plugin manifest before it installs it (krew's own validation package and
 * installer, as facts: this is not its code), as one assertion per rule.
 */
import { expect } from 'vitest';

export interface KrewPlatform {
  selector: { matchLabels: Record<string, string>; matchExpressions?: unknown[] };
  uri: string;
  sha256: string;
  bin: string;
  files?: { from: string; to: string }[];
}

export interface KrewManifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string };
  spec: { version: string; homepage?: string; shortDescription: string; description?: string; platforms: KrewPlatform[] };
}

/** Names Windows reserves for devices, which krew refuses as plugin names (any case). */
const WINDOWS_DEVICE_NAMES = ['CON', 'PRN', 'AUX', 'NUL', ...[1, 2, 3, 4, 5, 6, 7, 8, 9].flatMap((n) => [`COM${n}`, `LPT${n}`])];

/** Semantic version as Kubernetes' version parser takes it, with krew's required leading v. */
const KREW_SEMVER = /^v(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?(\+[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?$/;

/** Go's GOOS/GOARCH values krew matches selectors against (those a release of ours can have). */
const KNOWN_OS = ['linux', 'darwin', 'windows'];
const KNOWN_ARCH = ['amd64', 'arm64', '386', 'arm', 'ppc64le', 's390x'];

export function assertKrewRules(manifest: KrewManifest, fileBaseName: string): void {
  expect(manifest.apiVersion).toBe('krew.googlecontainertools.github.com/v1alpha2');
  expect(manifest.kind).toBe('Plugin');
  const name = manifest.metadata.name;
  expect(name, 'plugin name: word characters and dashes').toMatch(/^[\w-]+$/);
  expect(WINDOWS_DEVICE_NAMES).not.toContain(name.toUpperCase());
  expect(name, 'the manifest file is named after the plugin').toBe(fileBaseName);
  expect(manifest.spec.shortDescription).toBeTruthy();
  expect(manifest.spec.shortDescription).not.toMatch(/[\r\n]/);
  expect(manifest.spec.version).toMatch(KREW_SEMVER);
  expect(manifest.spec.platforms.length).toBeGreaterThan(0);
  const selectors = new Set<string>();
  for (const platform of manifest.spec.platforms) {
    expect(platform.uri, 'uri: an https address').toMatch(/^https:\/\/\S+$/);
    expect(platform.sha256).toMatch(/^[a-f0-9]{64}$/);
    expect(platform.bin).toBeTruthy();
    // krew joins bin to the install directory and refuses one that leaves it.
    expect(platform.bin.split(/[\\/]/)).not.toContain('..');
    expect(platform.bin.startsWith('/')).toBe(false);
    if (platform.files !== undefined) {
      expect(platform.files.length, 'files: absent or not empty').toBeGreaterThan(0);
      for (const operation of platform.files) {
        expect(operation.from).toBeTruthy();
        expect(operation.to).toBeTruthy();
      }
    }
    const labels = platform.selector?.matchLabels;
    expect(labels && Object.keys(labels).length, 'a selector with labels').toBeGreaterThan(0);
    for (const key of Object.keys(labels)) expect(['os', 'arch']).toContain(key);
    expect(KNOWN_OS).toContain(labels.os);
    if (labels.arch !== undefined) expect(KNOWN_ARCH).toContain(labels.arch);
    if (labels.os === 'windows') expect(platform.bin).toMatch(/\.exe$/);
    const key = JSON.stringify([labels.os, labels.arch]);
    expect(selectors.has(key), `one platform for ${key}`).toBe(false);
    selectors.add(key);
  }
}
