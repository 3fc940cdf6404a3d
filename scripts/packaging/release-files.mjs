// What the release manifests (krew, Homebrew, Scoop) say about a release: its version, where its
// files are downloaded from, and which executables it has, with their SHA-256 from SHA256SUMS.
// Nothing here reaches the network: the download address is only written down.

/** Base address of a release's files, `https://.../v1.2.3` (wins over package.json's repository). */
export const RELEASE_URL_ENV = 'VCONSOLE_RELEASE_URL';

/** One line for krew's shortDescription and Homebrew's desc (< 80 characters, no period). */
export const SHORT_DESCRIPTION = 'Open VM consoles (KubeVirt, OpenStack, Proxmox VE, libvirt) as local viewers';

/** package.mjs's target names to the GOOS/GOARCH names krew selects platforms by. */
const OS_NAMES = { linux: 'linux', win: 'windows', macos: 'darwin' };
const ARCH_NAMES = { x64: 'amd64', arm64: 'arm64' };

/** SHA256SUMS (`HEX  NAME` lines) as [{ file, sha256, os, arch }], os/arch in Go's names. */
export function releaseExecutables(checksumsText) {
  return checksumsText
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      const fields = /^([0-9a-f]{64}) {2}(vconsole-([a-z0-9]+)-([a-z0-9]+)(\.exe)?)$/.exec(line);
      const os = fields && OS_NAMES[fields[3]];
      const arch = fields && ARCH_NAMES[fields[4]];
      if (!os || !arch) throw new Error(`package: SHA256SUMS line not understood: "${line}"`);
      return { file: fields[2], sha256: fields[1], os, arch };
    });
}

/** `https://github.com/OWNER/REPO` from package.json's repository, when it names a GitHub repository. */
export function githubRepository(pkg) {
  const spec = typeof pkg.repository === 'string' ? pkg.repository : pkg.repository?.url;
  if (!spec) return undefined;
  const match =
    /^(?:github:)?([\w.-]+)\/([\w.-]+?)(?:\.git)?$/.exec(spec) ??
    /^(?:git\+)?(?:https|ssh|git):\/\/(?:git@)?github\.com[/:]([\w.-]+)\/([\w.-]+?)(?:\.git)?\/?$/.exec(spec);
  return match ? `https://github.com/${match[1]}/${match[2]}` : undefined;
}

/**
 * The release as the manifests name it, or { missing } saying why they cannot be written:
 * the files' base address ($VCONSOLE_RELEASE_URL, else the GitHub release of v<version>) and
 * a homepage (package.json's, else the GitHub repository's) are both needed.
 */
export function releaseInfo(pkg, env = process.env) {
  const repository = githubRepository(pkg);
  const baseUrl = env[RELEASE_URL_ENV] || (repository && `${repository}/releases/download/v${pkg.version}`);
  const releaseRepository = /^(https:\/\/github\.com\/[\w.-]+\/[\w.-]+)\/releases\//.exec(baseUrl ?? '')?.[1];
  const homepage = pkg.homepage || repository || releaseRepository;
  for (const [what, url] of [
    [`$${RELEASE_URL_ENV}`, baseUrl],
    ['the homepage', homepage],
  ]) {
    if (url && !/^https:\/\/[^\s/]+/.test(url)) throw new Error(`package: ${what} "${url}" is not an https:// address`);
  }
  if (!baseUrl || !homepage) {
    return {
      missing: !baseUrl
        ? `no download address for the release files: set package.json's repository (GitHub) or $${RELEASE_URL_ENV}`
        : "no homepage for the manifests: set package.json's homepage",
    };
  }
  return { version: pkg.version, license: pkg.license, baseUrl: baseUrl.replace(/\/+$/, ''), homepage };
}

/** Where `file` of the release is downloaded from. */
export function releaseUrl(info, file) {
  return `${info.baseUrl}/${encodeURIComponent(file)}`;
}
