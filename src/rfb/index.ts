/**
 * RFB as the commands see it: the back-off that slows a guessed password, and the types of the hub,
 * a login slot and a picture. The parts that weigh (the hub, the RFB client with its decoders and
 * zlib) are loaded when a command uses them: the hub by a lazy import() of its module, the client
 * through loadRfbClient. `proxy` and `--help` load none of them. src/commands import src/rfb
 * statically only through here (docs/ARCHITECTURE.md, "Walls").
 */
export { AuthBackoff } from './server/auth-backoff.js';
export type { AuthGate } from './server/auth-backoff.js';
export type { LoginSlot } from './server/login-slots.js';
export type { RfbHub } from './hub/hub.js';
export type { RfbConsoleClient } from './client/rfb-client.js';
export type { Framebuffer } from './wire/framebuffer.js';

/** vconsole's RFB client and a framebuffer to draw into, for a command that takes a picture. */
export async function loadRfbClient() {
  const [{ RfbConsoleClient }, { wholePicture }, { Framebuffer }] = await Promise.all([
    import('./client/rfb-client.js'),
    import('./client/whole-picture.js'),
    import('./wire/framebuffer.js'),
  ]);
  return { RfbConsoleClient, wholePicture, Framebuffer };
}
