/**
 * Every timeout and size limit of vconsole, in one place so they can be read side by side
 * and agree with each other (an HTTP call must fit inside the dial that makes it).
 */

/** One HTTP request to the Kubernetes API, Keystone or Nova, from sending to the last byte. */
export const HTTP_REQUEST_TIMEOUT_MS = 20_000;
/** The largest JSON body vconsole reads from an API (a VMI list of a big cluster fits). */
export const HTTP_BODY_LIMIT_BYTES = 8 * 1024 * 1024;

/** One dial of an upstream console, every API call it needs included. */
export const DIAL_TIMEOUT_MS = 30_000;
/**
 * An upstream dialled ahead for a viewer that `open` launched is closed when the viewer has not
 * connected this long after (a viewer that failed to start must not hold the VM's console).
 */
export const DIAL_AHEAD_TTL_MS = 10_000;
/** The websocket upgrade of a console (after the API calls that found it). */
export const WEBSOCKET_HANDSHAKE_TIMEOUT_MS = 20_000;
/** How much of a refused upgrade's body is read for its error message. */
export const REJECTION_BODY_LIMIT_BYTES = 64 * 1024;

/** Websocket pings go out this often (VCONSOLE_KEEPALIVE_MS overrides it). */
export const KEEPALIVE_INTERVAL_MS = 10_000;
/** An upstream that misses this many pongs in a row is dropped. */
export const MISSED_PONGS_ALLOWED = 2;

/** The keep-alive ping interval in force: VCONSOLE_KEEPALIVE_MS (tests find a silent console fast), else the default. */
export function keepaliveIntervalMs(): number {
  const fromEnv = Number(process.env.VCONSOLE_KEEPALIVE_MS);
  return Number.isFinite(fromEnv) && fromEnv > 0 ? fromEnv : KEEPALIVE_INTERVAL_MS;
}

/**
 * A serial console over a websocket counts as established this long after the upgrade when
 * it has not closed (a serial line is silent until someone types): nova-serialproxy checks
 * the token only after answering 101, then hangs up. Short enough not to be noticed at attach.
 */
export const CONSOLE_SETTLE_MS = 1_000;
/** A websocket that closes this soon after its upgrade, with no byte from the console, was refused. */
export const REFUSED_AT_UPGRADE_MS = 2_000;

/** `vconsole list`: every API call of one listing. */
export const LIST_TIMEOUT_MS = 60_000;

/** Viewers get this long to exit on their own before they are killed: well inside the shutdown deadline. */
export const VIEWER_SHUTDOWN_GRACE_MS = 700;
/** Shutdown waits at most this long for sessions to close, so a hung upstream never keeps vconsole alive. */
export const SHUTDOWN_DEADLINE_MS = 1500;
/**
 * What a viewer's socket buffers before the relay holds its console back: room for the frames
 * that follow the first of an event-loop turn (they go out in one writev, see relay.ts). At
 * 128 KiB the batches paused the upstream often enough to cost more than they saved
 * (docs/BENCHMARKS.md); 200 slow viewers add at most 50 MiB.
 */
export const VIEWER_WRITE_BUFFER_BYTES = 256 * 1024;
/** After one side of a relay ends, the other gets this long to flush its last bytes before it is destroyed. */
export const RELAY_END_GRACE_MS = 1000;
/** One viewer probe (`--version` and the like) during detection: a viewer that hangs on it must not stall `open`. */
export const VIEWER_PROBE_TIMEOUT_MS = 2_000;

/** A recording is written out at least this often: a crash loses at most this much of it. */
export const RECORDING_FLUSH_MS = 500;
/** What all recordings of one command may take on disk unless --record-max-size says otherwise. */
export const RECORDING_DEFAULT_MAX_BYTES = 1024 * 1024 * 1024;
/** A VM's state is polled this often (OpenStack; KubeVirt when RBAC forbids the watch). */
export const VM_STATE_POLL_MS = 10_000;
/** A watch on a VMI asks the API server to end it after this long (then it resumes from its resourceVersion). */
export const VMI_WATCH_TIMEOUT_S = 300;
/** A watch that sends nothing for this long past its timeout is taken for dead. */
export const VMI_WATCH_GRACE_MS = 30_000;
/** Following a VM's state backs off from this after a failure ... */
export const VM_STATE_FIRST_RETRY_MS = 1_000;
/** ... up to this. */
export const VM_STATE_MAX_RETRY_MS = 30_000;
/**
 * The connections of one SPICE session (main, display, inputs, cursor, ... opened in a burst)
 * share one console URL from Nova while it is younger than this. Nova's console tokens serve
 * any number of connections until their TTL ([consoleauth] token_ttl, 600 s by default); a
 * burst takes a second or two, so this stays far inside even a shortened TTL.
 */
export const NOVA_CONSOLE_URL_SHARE_MS = 30_000;
/** `open --follow` asks again which VMs match its selectors this often (VCONSOLE_FOLLOW_INTERVAL_MS overrides it). */
export const SELECTOR_FOLLOW_INTERVAL_MS = 5_000;
/** A grid tile's picture is taken again at most this often (and only when its screen changed). */
export const THUMBNAIL_MIN_INTERVAL_MS = 333;
/**
 * `open` loads the TUI (Ink, React, yoga: 100 ms and more that hold the one thread) once the
 * first viewers show their consoles: TUI_LOAD_SETTLE_MS after each one's first connection, or
 * after TUI_LOAD_DEFER_MAX_MS at the latest (a slow cluster, a viewer that never connects), so
 * loading it never sits between the command and the VM's screen.
 */
export const TUI_LOAD_DEFER_MAX_MS = 1000;
export const TUI_LOAD_SETTLE_MS = 200;
