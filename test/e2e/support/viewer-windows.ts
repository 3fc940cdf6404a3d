import { keepForInspection } from './expectations.js';
import { locateFramebuffer, showsFramebuffer, type FramebufferMatch } from './images.js';
import { pollFor } from './poll.js';
import type { QemuVm } from './qemu.js';
import { grabScreen, isViewable, listWindows, moveWindow, type XServer, type XWindow } from './xvfb.js';

/** How a viewer's VM windows are told apart from its other windows (splash, dialogs, 1x1 helpers). */
export interface ViewerWindowKind {
  /** For messages: `TigerVNC`, `remote-viewer`. */
  viewer: string;
  /** WM_CLASS class of its windows: `TigerVNC Viewer`, `Remote-viewer`. */
  className: string;
}

export interface VmWindow {
  vm: QemuVm;
  window: XWindow;
  match: FramebufferMatch;
}

/** Left edges the windows are moved to so that none overlaps another (there is no window manager). */
const COLUMN_WIDTH = 1000;

function windowFor(windows: XWindow[], kind: ViewerWindowKind, vm: QemuVm): XWindow | undefined {
  // The title names the VM: TigerVNC shows the desktop name ("QEMU (vm-a) - TigerVNC"),
  // remote-viewer the --title vconsole gives it or the desktop name.
  return windows.find((w) => w.className === kind.className && w.title.includes(vm.name) && w.width >= 320 && w.height >= 200);
}

/**
 * Waits until the viewer shows every VM in a window of its own, each window's area on the X
 * screen holding that VM's BIOS text (see locateFramebuffer for how that is told without
 * OCR). Windows are spread out first; the screen is grabbed again until all match, since a
 * viewer draws the VM's screen only after its window appears (and remote-viewer resizes its
 * window once connected). On timeout the last screenshot is kept and named in the error.
 */
export async function awaitVmWindows(
  x: XServer,
  dir: string,
  kind: ViewerWindowKind,
  vms: readonly QemuVm[],
  detail: () => string,
  timeoutMs = 120_000,
): Promise<VmWindow[]> {
  let last: { file: string; report: string } | undefined;
  try {
    return await pollFor(
      async () => {
        const windows = await listWindows(x);
        const placed: XWindow[] = [];
        for (const [i, vm] of vms.entries()) {
          let window = windowFor(windows, kind, vm);
          if (!window || !(await isViewable(x, window.id))) {
            last = {
              file: last?.file ?? '',
              report: `no ${kind.viewer} window for ${vm.name} yet; windows: ${
                windows
                  .filter((w) => w.width > 1)
                  .map((w) => `"${w.title}" (${w.className}) ${w.width}x${w.height}`)
                  .join(', ') || 'none'
              }`,
            };
            return undefined;
          }
          if (window.x !== i * COLUMN_WIDTH || window.y !== 0) window = await moveWindow(x, window, i * COLUMN_WIDTH, 0);
          placed.push(window);
        }
        const shot = await grabScreen(x, dir, kind.viewer);
        const found = vms.map((vm, i) => ({ vm, window: placed[i], match: locateFramebuffer(shot.image, vm.reference.image, placed[i]) }));
        last = {
          file: shot.file,
          report: found
            .map(
              ({ vm, window, match }) =>
                `${vm.name} in "${window.title}" ${window.width}x${window.height}+${window.x}+${window.y}: ${match ? `${(match.textMatch * 100).toFixed(1)}% text, ${(match.backgroundMatch * 100).toFixed(1)}% background at (${match.x},${match.y})` : 'window smaller than the VM screen'}`,
            )
            .join('; '),
        };
        if (!found.every((f) => showsFramebuffer(f.match))) return undefined;
        return found.map((f) => ({ vm: f.vm, window: f.window, match: f.match! }));
      },
      { what: `${kind.viewer} windows showing ${vms.map((vm) => vm.name).join(' and ')}'s BIOS text`, timeoutMs, intervalMs: 500, detail },
    );
  } catch (err) {
    const kept = last?.file ? await keepForInspection(last.file, kind.viewer) : 'none taken';
    throw new Error(`${(err as Error).message}\nlast check: ${last?.report ?? 'none'}\nscreenshot: ${kept}`, { cause: err });
  }
}
