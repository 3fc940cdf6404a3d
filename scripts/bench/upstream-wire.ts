// What the bench's console stand-ins send, shared by the websocket upstream (upstream.ts) and
// the TCP console behind its relaying mode (tcp-backend.ts).

/** What QEMU's VNC server says first; every mode sends it so websockify-style dials complete. */
export const GREETING = Buffer.from('RFB 003.008\n');
/** virt-handler copies VNC bytes with 32 KiB reads: the largest frame a real console sends. */
export const FRAME_BYTES = 32 * 1024;
