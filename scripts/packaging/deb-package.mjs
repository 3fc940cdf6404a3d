// `npm run package`'s Debian packages: dist/bin/vconsole_<version>_<amd64|arm64>.deb around each
// linux single executable, built by dpkg-deb with root-owned files. Installs /usr/bin/vconsole,
// /usr/bin/kubectl-vconsole (a symlink: kubectl finds the plugin by that name), vconsole(1) and
// the bash, zsh and fish completions `vconsole completion SHELL` prints, in their system places.
// The completion scripts and the man page do not depend on the architecture: the host's
// executable and build (dist/src) write them once.
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { gzipSync } from 'node:zlib';

/** Debian's name of each linux target's architecture. */
export const DEB_ARCHITECTURES = { 'linux-x64': 'amd64', 'linux-arm64': 'arm64' };

/**
 * What the embedded Node.js links (ldd): glibc 2.28 is the newest GLIBC_ symbol version it asks
 * for, GLIBCXX_3.4.21 (GCC 5) the newest of libstdc++.
 */
const DEPENDS = 'libc6 (>= 2.28), libgcc-s1 | libgcc1, libstdc++6 (>= 5.2)';

/** Where each shell's completion goes on Debian, by `vconsole completion SHELL`. */
export const DEB_COMPLETIONS = {
  bash: 'usr/share/bash-completion/completions/vconsole',
  zsh: 'usr/share/zsh/vendor-completions/_vconsole',
  fish: 'usr/share/fish/vendor_completions.d/vconsole.fish',
};

export function debFileName(version, targetName) {
  return `vconsole_${version}_${DEB_ARCHITECTURES[targetName]}.deb`;
}

export function controlFile({ pkg, architecture, installedKiB }) {
  const maintainer = typeof pkg.author === 'string' ? pkg.author : 'vconsole maintainers <vconsole@users.noreply.github.com>';
  return [
    'Package: vconsole',
    `Version: ${pkg.version}`,
    `Architecture: ${architecture}`,
    `Maintainer: ${maintainer}`,
    `Installed-Size: ${installedKiB}`,
    `Depends: ${DEPENDS}`,
    'Section: admin',
    'Priority: optional',
    `Description: ${pkg.description.split(':')[0]}`,
    ` ${pkg.description}.`,
    ' One executable (Node.js inside) that opens the consoles of KubeVirt, OpenStack,',
    ' Proxmox VE and libvirt VMs; also a kubectl plugin (kubectl vconsole).',
    '',
  ].join('\n');
}

function filesUnder(root, dir = root) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'DEBIAN' ? [] : filesUnder(root, path);
    return entry.isFile() ? [relative(root, path)] : [];
  });
}

function place(root, path, content, mode = 0o644) {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), content);
  chmodSync(join(root, path), mode);
}

/**
 * What no architecture changes, made once for every package: the gzipped man page and each
 * shell's completion script, from `hostExecutable cliArgs... completion SHELL`.
 */
function architectureFreeTexts({ hostExecutable, cliArgs = [], manPage }) {
  const completions = {};
  for (const shell of Object.keys(DEB_COMPLETIONS)) completions[shell] = execFileSync(hostExecutable, [...cliArgs, 'completion', shell]);
  return { manPage: gzipSync(manPage, { level: 9 }), completions };
}

/** Those texts at a format's paths: path in the package -> content. */
function sharedFiles(texts, completionPaths) {
  const files = { 'usr/share/man/man1/vconsole.1.gz': texts.manPage };
  for (const [shell, path] of Object.entries(completionPaths)) files[path] = texts.completions[shell];
  return files;
}

/** Builds one .deb into `outDir` around `executable`; returns its path. */
export function buildDeb({ pkg, targetName, executable, shared, outDir }) {
  const root = mkdtempSync(join(tmpdir(), 'vconsole-deb-'));
  try {
    chmodSync(root, 0o755);
    mkdirSync(join(root, 'usr/bin'), { recursive: true });
    copyFileSync(executable, join(root, 'usr/bin/vconsole'));
    chmodSync(join(root, 'usr/bin/vconsole'), 0o755);
    symlinkSync('vconsole', join(root, 'usr/bin/kubectl-vconsole'));
    for (const [path, content] of Object.entries(shared)) place(root, path, content);
    place(root, 'usr/share/doc/vconsole/copyright', `vconsole ${pkg.version}\nLicense: ${pkg.license}\n`);
    const files = filesUnder(root).sort();
    const md5sums = files
      .map(
        (file) =>
          `${createHash('md5')
            .update(readFileSync(join(root, file)))
            .digest('hex')}  ${file}\n`,
      )
      .join('');
    const bytes = files.reduce((sum, file) => sum + statSync(join(root, file)).size, 0);
    place(root, 'DEBIAN/md5sums', md5sums);
    place(root, 'DEBIAN/control', controlFile({ pkg, architecture: DEB_ARCHITECTURES[targetName], installedKiB: Math.ceil(bytes / 1024) }));
    const out = join(outDir, debFileName(pkg.version, targetName));
    // xz -1: the ~140 MiB executable compresses in ~10 s, not minutes as at the default level (20 % larger).
    execFileSync('dpkg-deb', ['--root-owner-group', '-Zxz', '-z1', '--build', root, out], { stdio: ['ignore', 'ignore', 'inherit'] });
    return out;
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

/**
 * One Linux package format: the targets it packs (their architecture names), the tool that
 * builds it and where each shell's completion goes in its distributions.
 */
export const DEB_FORMAT = {
  suffix: '.deb',
  architectures: DEB_ARCHITECTURES,
  tool: 'dpkg-deb',
  toolPackage: 'dpkg',
  completions: DEB_COMPLETIONS,
  build: buildDeb,
};

/**
 * After the executables are built: for each of `formats`, one package per linux executable in
 * `jobs` (`{ name, output }`); none of a format, with a line saying why, when its tool is
 * missing. The man page and completions come from the build in dist/src (`npm run build`), which
 * declares the same commands as the executables' bundle, and are made once for every package.
 */
export async function writeLinuxPackages(formats, { jobs, pkg, projectRoot, outDir, log }) {
  const wanted = formats
    .map((format) => ({ format, linux: jobs.filter((job) => format.architectures[job.name]) }))
    .filter(({ format, linux }) => linux.length > 0 && toolInstalled(format, log));
  if (!wanted.length) return [];
  const { manPageText } = await import('./man-page.mjs');
  const cli = join(projectRoot, 'bin', 'vconsole.js');
  const texts = architectureFreeTexts({ hostExecutable: process.execPath, cliArgs: [cli], manPage: await manPageText() });
  return wanted.flatMap(({ format, linux }) => {
    const shared = sharedFiles(texts, format.completions);
    return linux.map((job) => {
      const out = format.build({ pkg, targetName: job.name, executable: job.output, shared, outDir });
      log(`built ${relative(projectRoot, out)}`);
      return out;
    });
  });
}

function toolInstalled(format, log) {
  if (!spawnSync(format.tool, ['--version'], { stdio: 'ignore' }).error) return true;
  log(`no ${format.suffix}: ${format.tool} is not installed (Debian: apt install ${format.toolPackage})`);
  return false;
}
