import { describe, expect, it } from 'vitest';
import { ConsoleEndedError } from '../errors.js';
import { farewell } from './session-connection.js';

describe('farewell', () => {
  it("says the takeover even when the console's websocket said how it closed", () => {
    // A websocket upstream always ends with a ConsoleEndedError: the takeover must still show.
    const ended = new ConsoleEndedError("the console's connection dropped without a close frame");
    expect(farewell({ closedBy: 'upstream', error: ended }, 2)).toEqual({
      level: 'warn',
      message: "disconnected: the console closed the connection: client 2 took over the VM's console session",
    });
  });

  it("gives the transport's account when no client took over", () => {
    const ended = new ConsoleEndedError('the console closed (the VM stopped?)');
    expect(farewell({ closedBy: 'upstream', error: ended }, undefined)).toEqual({
      level: 'warn',
      message: 'disconnected: the console closed (the VM stopped?)',
    });
  });
});
