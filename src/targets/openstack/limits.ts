/** Numbers of the OpenStack provider alone (src/limits.ts has those the layers share). */

/**
 * A console URL from Nova is handed to a client only while it is this young. Nova's tokens
 * serve any number of connections until [consoleauth] token_ttl runs out (600 s by default,
 * often set far lower): only a few seconds are certainly inside it. The connections of one
 * SPICE session (main, display, inputs, cursor, ... opened in a burst of a second or two)
 * share one URL this long, and the `auto` pre-flight's URL serves the first client only this
 * long; after that Nova is asked for a fresh console.
 */
export const NOVA_CONSOLE_URL_SHARE_MS = 5_000;
export const NOVA_PROBED_URL_MAX_AGE_MS = 5_000;
/**
 * Nova's console proxies refuse a token after the websocket upgrade by closing the connection
 * without a byte. A console that closes this soon after its upgrade, before the VM said
 * anything, is taken for refused: vconsole asks Nova for a fresh console once and dials again.
 */
export const NOVA_REFUSAL_WINDOW_MS = 5_000;
/** What vconsole keeps of a client's first bytes to replay them to the console dialled again (a SPICE link message is a few hundred). */
export const NOVA_REPLAY_LIMIT_BYTES = 64 * 1024;
