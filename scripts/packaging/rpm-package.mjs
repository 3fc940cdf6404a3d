// `npm run package`'s RPM packages: dist/bin/vconsole-<version>-1.<x86_64|aarch64>.rpm around each
// linux single executable, built by rpmbuild (Debian's `rpm` package) with root-owned files. The
// same contents as the .deb (deb-package.mjs): /usr/bin/vconsole, the kubectl-vconsole symlink,
// vconsole(1) and the shell completions, zsh's in Fedora's site-functions. The executable is
// packed as built: rpmbuild's strip, build-id and buildroot checks are off, since stripping a
// single executable would cut off the program inside it.
import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/** rpm's name of each linux target's architecture. */
export const RPM_ARCHITECTURES = { 'linux-x64': 'x86_64', 'linux-arm64': 'aarch64' };

/** Where each shell's completion goes on Fedora, RHEL and SUSE. */
export const RPM_COMPLETIONS = {
  bash: 'usr/share/bash-completion/completions/vconsole',
  zsh: 'usr/share/zsh/site-functions/_vconsole',
  fish: 'usr/share/fish/vendor_completions.d/vconsole.fish',
};

/** What the embedded Node.js links, as the .deb's Depends says, in Fedora's package names. */
const REQUIRES = ['glibc >= 2.28', 'libgcc', 'libstdc++ >= 5.2'];

export function rpmFileName(version, targetName) {
  return `vconsole-${version}-1.${RPM_ARCHITECTURES[targetName]}.rpm`;
}

/** The spec: its %install copies the staged tree; `files` are the paths it installs. */
export function specFile({ pkg, stage, files }) {
  return [
    // Packed as built: no strip, no debug package, no build-id links, no buildroot scan of the executable.
    '%global __os_install_post %{nil}',
    '%global __arch_install_post %{nil}',
    '%global debug_package %{nil}',
    '%global _build_id_links none',
    // xz -1: seconds per package, as for the .deb.
    '%global _binary_payload w1.xzdio',
    'Name: vconsole',
    `Version: ${pkg.version}`,
    'Release: 1',
    `Summary: ${pkg.description.split(':')[0]}`,
    `License: ${pkg.license}`,
    'AutoReqProv: no',
    ...REQUIRES.map((requirement) => `Requires: ${requirement}`),
    '',
    '%description',
    `${pkg.description}.`,
    'One executable (Node.js inside) that opens the consoles of KubeVirt, OpenStack,',
    'Proxmox VE and libvirt VMs; also a kubectl plugin (kubectl vconsole).',
    '',
    '%install',
    `cp -a ${stage}/. %{buildroot}/`,
    '',
    '%files',
    '%defattr(-,root,root,-)',
    ...files.map((file) => `/${file}`),
    '',
  ].join('\n');
}

function place(root, path, content, mode = 0o644) {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), content);
  chmodSync(join(root, path), mode);
}

/** Builds one .rpm into `outDir` around `executable`; returns its path. */
export function buildRpm({ pkg, targetName, executable, shared, outDir }) {
  const work = mkdtempSync(join(tmpdir(), 'vconsole-rpm-'));
  try {
    const stage = join(work, 'stage');
    mkdirSync(join(stage, 'usr/bin'), { recursive: true });
    copyFileSync(executable, join(stage, 'usr/bin/vconsole'));
    chmodSync(join(stage, 'usr/bin/vconsole'), 0o755);
    symlinkSync('vconsole', join(stage, 'usr/bin/kubectl-vconsole'));
    for (const [path, content] of Object.entries(shared)) place(stage, path, content);
    place(stage, 'usr/share/doc/vconsole/copyright', `vconsole ${pkg.version}\nLicense: ${pkg.license}\n`);
    const files = ['usr/bin/vconsole', 'usr/bin/kubectl-vconsole', ...Object.keys(shared), 'usr/share/doc/vconsole/copyright'];
    const spec = join(work, 'vconsole.spec');
    writeFileSync(spec, specFile({ pkg, stage, files }));
    const rpmDir = join(work, 'rpms');
    const args = ['-bb', '--nodeps', '--quiet', '--target', `${RPM_ARCHITECTURES[targetName]}-linux`];
    for (const [macro, value] of [
      ['_topdir', join(work, 'top')],
      ['_rpmdir', rpmDir],
      ['_dbpath', join(work, 'db')],
    ])
      args.push('--define', `${macro} ${value}`);
    execFileSync('rpmbuild', [...args, spec], { stdio: ['ignore', 'ignore', 'inherit'] });
    const built = join(rpmDir, RPM_ARCHITECTURES[targetName], rpmFileName(pkg.version, targetName));
    const out = join(outDir, rpmFileName(pkg.version, targetName));
    renameSync(built, out);
    return out;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** The .rpm among the Linux package formats (deb-package.mjs's writeLinuxPackages). */
export const RPM_FORMAT = {
  suffix: '.rpm',
  architectures: RPM_ARCHITECTURES,
  tool: 'rpmbuild',
  toolPackage: 'rpm',
  completions: RPM_COMPLETIONS,
  build: buildRpm,
};
