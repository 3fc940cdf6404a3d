// The Scoop manifest (vconsole.json): the Windows executable per architecture with its hash,
// shimmed as `vconsole`. autoupdate lets Scoop's checkver tooling follow GitHub releases.
import { releaseUrl, SHORT_DESCRIPTION } from './release-files.mjs';

export const SCOOP_MANIFEST_FILE = 'vconsole.json';

const SCOOP_ARCHES = { amd64: '64bit', arm64: 'arm64' };

/** The manifest for the Windows executables among `executables`, or undefined when there are none. */
export function scoopManifest(info, executables) {
  const windows = executables.filter((entry) => entry.os === 'windows');
  if (windows.length === 0) return undefined;
  const architecture = Object.fromEntries(
    windows.map((entry) => [
      SCOOP_ARCHES[entry.arch],
      { url: releaseUrl(info, entry.file), hash: entry.sha256, bin: [[entry.file, 'vconsole']] },
    ]),
  );
  const onGitHub = info.baseUrl.startsWith('https://github.com/') && info.baseUrl.endsWith(`/v${info.version}`);
  return {
    version: info.version,
    description: SHORT_DESCRIPTION,
    homepage: info.homepage,
    ...(info.license ? { license: info.license } : {}),
    architecture,
    ...(onGitHub
      ? {
          checkver: 'github',
          autoupdate: {
            architecture: Object.fromEntries(
              windows.map((entry) => [
                SCOOP_ARCHES[entry.arch],
                { url: releaseUrl(info, entry.file).replace(`/v${info.version}/`, '/v$version/') },
              ]),
            ),
            hash: { url: '$baseurl/SHA256SUMS' },
          },
        }
      : {}),
  };
}
