/** Numbers of the providers' websocket dial alone, each inside DIAL_TIMEOUT_MS of src/limits.ts. */
import { msFromEnv } from '../../limits.js';

/** The websocket upgrade of a console (after the API calls that found it). */
export const WEBSOCKET_HANDSHAKE_TIMEOUT_MS = 20_000;
/** How much of a refused upgrade's body is read for its error message. */
export const REJECTION_BODY_LIMIT_BYTES = 64 * 1024;
/** Websocket pings go out this often (VCONSOLE_KEEPALIVE_MS overrides it). */
const KEEPALIVE_INTERVAL_MS = 10_000;
/** An upstream that misses this many pongs in a row is dropped. */
export const MISSED_PONGS_ALLOWED = 2;
/** The keep-alive ping interval in force: VCONSOLE_KEEPALIVE_MS (tests find a silent console fast), else the default. */
export function keepaliveIntervalMs(): number {
  return msFromEnv('VCONSOLE_KEEPALIVE_MS', KEEPALIVE_INTERVAL_MS);
}
/**
 * A serial console over a websocket counts as established this long after the upgrade when
 * it has not closed (a serial line is silent until someone types): nova-serialproxy checks
 * the token only after answering 101, then hangs up. Short enough not to be noticed at attach.
 */
export const CONSOLE_SETTLE_MS = 1_000;
/** A websocket that closes this soon after its upgrade, with no byte from the console, was refused. */
export const REFUSED_AT_UPGRADE_MS = 2_000;
/** Checking whether a console proxy speaks the other scheme (TLS on ws://, plain HTTP on wss://) before blaming the token. */
export const SCHEME_PROBE_TIMEOUT_MS = 3_000;
