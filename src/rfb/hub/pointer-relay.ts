import type { RfbConsoleClient } from '../client/rfb-client.js';

/** The centre QEMU's relative pointer motion is sent around (QEMU's pointer motion change extension). */
const MOTION_CENTRE = 0x7fff;

/**
 * One hub client's pointer towards the shared console. The hub asks QEMU for its pointer motion
 * change, so a relative console takes the hub's connection's positions as deltas around 0x7FFF:
 * a client told so sends them itself, any other client's absolute positions become the motion
 * from its previous one (what QEMU does for a client that did not ask).
 */
export class PointerRelay {
  private last: { x: number; y: number } | undefined;

  send(upstream: RfbConsoleClient, buttons: number, x: number, y: number, deltas: boolean): void {
    if (deltas || upstream.indicators.absolutePointer !== false) {
      if (!deltas) this.last = { x, y };
      upstream.pointer(buttons, x, y);
      return;
    }
    const from = this.last ?? { x, y };
    this.last = { x, y };
    upstream.pointer(buttons, MOTION_CENTRE + x - from.x, MOTION_CENTRE + y - from.y);
  }
}
