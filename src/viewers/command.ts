// The command line that makes a viewer connect to a local port, from the viewer's descriptor
// (each gets the address form it parses and only flags it accepts), and that command as one
// copy-pasteable line.
import { consoleKind, type ConsoleType } from '../console-kinds/index.js';
import { VconsoleError } from '../errors.js';
import { VIEWER_DESCRIPTORS, viewerDescriptor } from './descriptors/index.js';
import type { HostPlatform, ViewerCandidate, ViewerCommand, ViewerTarget } from './types.js';

/**
 * The command line that makes `viewer` connect to `target`, as its descriptor builds it (see
 * src/viewers/descriptors). Throws VconsoleError, naming a viewer that can, when the viewer
 * cannot show the target's kind of console.
 */
export function buildViewerCommand(viewer: ViewerCandidate, target: ViewerTarget): ViewerCommand {
  const type: ConsoleType = target.consoleType ?? 'vnc';
  const kind = consoleKind(type);
  const descriptor = viewerDescriptor(viewer.id);
  // A copy detection found without what the kind needs (Remmina without its SPICE plugin) cannot show it.
  const shown = !viewer.shows || viewer.shows.includes(type);
  const command = kind && shown ? descriptor.command(viewer.path, { ...target, kind }) : undefined;
  if (command) return command;
  const able = VIEWER_DESCRIPTORS.find((d) => d.byName !== false && d.shows.includes(type));
  const added = descriptor.showsWith?.[type];
  const use = able ? `use ${able.name}: --viewer ${able.id}` : undefined;
  const hint = added
    ? `install ${added.install} (${viewer.name} shows ${kind?.label ?? type} with ${added.needs})${use ? `, or ${use}` : ''}`
    : use;
  throw new VconsoleError(`${viewer.name} cannot show ${kind?.label ?? type} consoles`, hint ? { hint } : {});
}

/** One argument as a user would type it in this OS's shell. */
function quoteArgument(arg: string, platform: HostPlatform): string {
  if (arg !== '' && /^[A-Za-z0-9_@%+=:,./\\[\]-]+$/.test(arg)) return arg;
  if (platform === 'win32') return `"${arg.replace(/"/g, '\\"')}"`;
  return `'${arg.replace(/'/g, `'\\''`)}'`;
}

/** The command as one copy-pasteable line, for `vconsole viewers` and logs. */
export function formatCommandLine(command: ViewerCommand, platform: HostPlatform): string {
  return [command.command, ...command.args].map((arg) => quoteArgument(arg, platform)).join(' ');
}
