import type { ViewerId } from './types.js';

/** What a viewer's `-help` / `--version` output says it is. */
export interface ViewerIdentity {
  id: ViewerId;
  version?: string;
}

const VERSION = String.raw`(\d+(?:\.\d+)+)`;

/**
 * Tells apart the programs installed as `vncviewer` by what they print for `-help`:
 * TigerVNC "TigerVNC Viewer 64-bit v1.12.0", TightVNC "TightVNC Viewer version 1.3.10",
 * RealVNC "VNC(R) Viewer 7.5.1 (r50075)". TigerVNC is checked first because older
 * TigerVNC builds credit RealVNC in their banner. Undefined when nothing matches.
 */
export function identifyVncviewerOutput(output: string): ViewerIdentity | undefined {
  const tiger = /TigerVNC(?: Viewer)?\b[^\n]*?\bv?(\d+(?:\.\d+)+)/i.exec(output);
  if (tiger) return { id: 'tigervnc', version: tiger[1] };
  if (/TigerVNC/i.test(output)) return { id: 'tigervnc' };
  const tight = new RegExp(String.raw`TightVNC Viewer(?: version)?\s+v?${VERSION}`, 'i').exec(output);
  if (tight) return { id: 'tightvnc', version: tight[1] };
  if (/TightVNC Viewer/i.test(output)) return { id: 'tightvnc' };
  const real = new RegExp(String.raw`VNC\(R\) Viewer\s+${VERSION}`).exec(output);
  if (real) return { id: 'realvnc', version: real[1] };
  if (/VNC\(R\) Viewer|RealVNC/.test(output)) return { id: 'realvnc' };
  return undefined;
}

/** `remote-viewer version 11.0` -> `11.0`. */
export function parseRemoteViewerVersion(output: string): string | undefined {
  return /remote-viewer version\s+(\S+)/i.exec(output)?.[1];
}

/** `VirtViewer v11.0-256` (Windows install dir) -> `11.0-256`. */
export function versionFromVirtViewerDir(dirName: string): string | undefined {
  return /^VirtViewer\s+v?(\S+)$/i.exec(dirName)?.[1];
}

/** `TigerVNC Viewer 1.14.1.app` (the Homebrew cask's bundle name) -> `1.14.1`. */
export function versionFromBundleName(bundleName: string): string | undefined {
  return new RegExp(String.raw`\s${VERSION}\.app$`).exec(bundleName)?.[1];
}

/** CFBundleShortVersionString from an app bundle's Info.plist (XML form). */
export function versionFromInfoPlist(plist: string): string | undefined {
  return /<key>CFBundleShortVersionString<\/key>\s*<string>([^<]+)<\/string>/.exec(plist)?.[1]?.trim();
}
