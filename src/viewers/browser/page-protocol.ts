// What the server and the console pages agree on (page/reconnecting-socket.ts mirrors it).

/**
 * WebSocket close codes that end a page for good: it shows the close reason and does not
 * reconnect. Any other close (the console dropped, the port refused) makes the page reconnect
 * with back-off.
 */
export const SESSION_CLOSED = { code: 4001, reason: 'session closed' } as const;
export const OPENED_ELSEWHERE = { code: 4002, reason: 'session closed: opened again in another tab' } as const;
/** The page's one-time address was used twice: another program on this machine had it too. */
export const ADDRESS_REUSED = {
  code: 4003,
  reason: "session closed: this page's one-time address was used twice, so another program had it too",
} as const;

/** Close of a page whose console connection ended (the console dropped): the page reconnects. */
export const CONSOLE_ENDED = { code: 1001, reason: 'console connection ended' } as const;

/** The console types a page exists for. */
export type PageConsoleType = 'vnc' | 'serial';
