// The registry of viewers. A new viewer is its own file plus one line in VIEWER_DESCRIPTORS;
// `ViewerId`, `--viewer`'s names, detection, the catalogue and command building derive from it.
// The order is `--viewer`'s help order and, for a program several viewers install under one
// name (`vncviewer`), the order their banners are read in: TigerVNC first, as old TigerVNC
// builds credit RealVNC in theirs.
import { chicken } from './chicken.js';
import { custom } from './custom.js';
import { realvnc } from './realvnc.js';
import { remmina } from './remmina.js';
import { remoteViewer } from './remote-viewer.js';
import { screenSharing } from './screen-sharing.js';
import { tightvnc } from './tightvnc.js';
import { tigervnc } from './tigervnc.js';
import type { ViewerDescriptor } from './types.js';

export const VIEWER_DESCRIPTORS = [tigervnc, remoteViewer, realvnc, tightvnc, chicken, screenSharing, remmina, custom] as const;

/** The viewers vconsole knows how to hand an address to; `custom` is any other executable. */
export type ViewerId = (typeof VIEWER_DESCRIPTORS)[number]['id'];

/** The descriptor of a viewer id. */
export function viewerDescriptor(id: ViewerId): ViewerDescriptor<ViewerId> {
  const found = VIEWER_DESCRIPTORS.find((d) => d.id === id);
  if (!found) throw new Error(`no viewer descriptor for ${id}`);
  return found;
}

export type { ViewerDescriptor, ViewerPlace } from './types.js';
