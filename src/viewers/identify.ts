// Reads what a program answers when asked what it is (`-help`, `--version`), through the
// descriptors' probes: which viewer it is and which version.
import { VIEWER_DESCRIPTORS, type ViewerDescriptor, type ViewerId } from './descriptors/index.js';

/** What a viewer's `-help` / `--version` output says it is. */
interface ViewerIdentity {
  id: ViewerId;
  version?: string;
}

/** The first of `among` whose probe reads `output` as its own, in their order. */
function readOutput(output: string, among: readonly ViewerDescriptor<ViewerId>[]): ViewerIdentity | undefined {
  for (const descriptor of among) {
    const read = descriptor.probe?.read(output);
    if (read) return read.version ? { id: descriptor.id, version: read.version } : { id: descriptor.id };
  }
  return undefined;
}

/**
 * Asks a program each argument list of `among`'s probes in turn (each list once) until one
 * answer names one of them. Undefined when none does.
 */
export async function identifyOutput(
  run: (args: readonly string[]) => Promise<string>,
  among: readonly ViewerDescriptor<ViewerId>[],
): Promise<ViewerIdentity | undefined> {
  const asked = new Set<string>();
  for (const descriptor of among) {
    for (const args of descriptor.probe?.args ?? []) {
      const key = args.join('\0');
      if (asked.has(key)) continue;
      asked.add(key);
      const identity = readOutput(await run(args), among);
      if (identity) return identity;
    }
  }
  return undefined;
}

/**
 * Tells apart the programs installed as `vncviewer` by what they print for `-help`:
 * TigerVNC "TigerVNC Viewer 64-bit v1.12.0", TightVNC "TightVNC Viewer version 1.3.10",
 * RealVNC "VNC(R) Viewer 7.5.1 (r50075)", read by every descriptor's probe in registry order.
 * Undefined when nothing matches.
 */
export function identifyVncviewerOutput(output: string): ViewerIdentity | undefined {
  return readOutput(output, VIEWER_DESCRIPTORS);
}
