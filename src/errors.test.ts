import { describe, expect, it } from 'vitest';
import {
  MESSAGE_MAX_CHARS,
  UsageError,
  VconsoleError,
  describeError,
  describeWebSocketEnding,
  errorLine,
  errorStackLines,
  withHint,
} from './errors.js';

const ESC_OR_BEL = /[\u001b\u0007]/;

describe('describeError joins the message and the hint', () => {
  it('drops the period of an API message instead of doubling the punctuation', () => {
    const err = new VconsoleError('No graphics devices are present.', { hint: 'the VM was defined without graphics' });
    expect(describeError(err)).toBe('No graphics devices are present; the VM was defined without graphics');
  });

  it.each(['.', '!', '?', ':', ';', '. ', '.!'])('drops a closing %j the same way', (mark) => {
    expect(withHint(`console refused${mark}`, 'retry')).toBe('console refused; retry');
  });

  it('keeps an ellipsis that marks a cut', () => {
    expect(withHint('bad target "vm-aaaa..."...', 'use NAME')).toBe('bad target "vm-aaaa..."...; use NAME');
  });

  it('keeps the message whole when there is no hint', () => {
    expect(describeError(new VconsoleError('Unavailable console type novnc.'))).toBe('Unavailable console type novnc.');
    expect(describeError(new UsageError('bad port "x"', 'use 1..65535'))).toBe('bad port "x"; use 1..65535');
  });
});

describe('describeError is safe to print', () => {
  it('shows the control characters of a name from a user or an API, never sends them', () => {
    const err = new VconsoleError('vm\u001b[31mRED\u0007: not found', { hint: 'check\u001b]0;title\u0007 it' });
    const text = describeError(err);
    expect(text).not.toMatch(ESC_OR_BEL);
    expect(text).toBe('vm\\e[31mRED\\x07: not found; check\\e]0;title\\x07 it');
  });

  it('keeps a message with a newline on one line', () => {
    expect(describeError(new Error('first\nsecond'))).toBe('first\\nsecond');
    expect(describeError('plain\u001bstring')).toBe('plain\\estring');
  });

  it("redacts a token or credentials that an error of vconsole's own quotes, in its message and its hint", () => {
    const err = new VconsoleError('cannot open wss://nova:6083/?token=0c3f9e2a-77aa', { hint: 'try https://admin:hunter2@pve:8006/' });
    const text = describeError(err);
    expect(text).toBe('cannot open wss://nova:6083/?token=***; try https://***@pve:8006/');
    expect(errorLine(new UsageError('bad URL ws://h/?password=pw-1234'))).toBe('vconsole: bad URL ws://h/?password=***');
    // A path it names is the user's, and says what failed.
    expect(describeError(new VconsoleError('unix:///tmp/vconsole-cli-Qts4mf7/x.sock: no such socket'))).toBe(
      'unix:///tmp/vconsole-cli-Qts4mf7/x.sock: no such socket',
    );
  });

  it('caps a huge message and still gives the hint', () => {
    const text = describeError(new UsageError(`bad name ${'x'.repeat(10_000)}`, 'use a short name'));
    expect(text.length).toBeLessThan(MESSAGE_MAX_CHARS + 40);
    expect(text).toMatch(/x\.\.\.; use a short name$/);
  });
});

describe('errorLine and errorStackLines', () => {
  it('prefix every error vconsole prints the same way', () => {
    expect(errorLine(new UsageError('empty target', 'name a VM'))).toBe('vconsole: empty target; name a VM');
  });

  it("keeps the placeholders of vconsole's own hints (?token=TOKEN, ?token=…) and the sentence around a token it redacts", () => {
    const hint = 'use ws://HOST:PORT/PATH?token=TOKEN, wss://..., or a noVNC http(s):// URL';
    expect(describeError(new UsageError('bad console URL "ws//x"', hint))).toBe(`bad console URL "ws//x"; ${hint}`);
    expect(describeError(new VconsoleError('no console (…vnc_auto.html?token=…)'))).toBe('no console (…vnc_auto.html?token=…)');
    expect(describeError(new VconsoleError('refused: ws://h/?token=0c3f9e2a-77aa, then ws://h/?token=T0KEN9)'))).toBe(
      'refused: ws://h/?token=***, then ws://h/?token=***)',
    );
  });

  it('show the stack of the error and its cause safely, secrets redacted', () => {
    const cause = new Error('GET https://api/?token=s3cr3t failed\u0007');
    const err = new VconsoleError('vm\u001b[2J: cannot connect\nreally', { cause });
    const lines = errorStackLines(err);
    expect(lines[0]).toContain('vm\\e[2J: cannot connect\\nreally');
    expect(lines.some((line) => line.startsWith('caused by: Error: GET https://api/?token=***'))).toBe(true);
    expect(lines.some((line) => /^\s+at /.test(line))).toBe(true);
    for (const line of lines) {
      expect(line).not.toMatch(ESC_OR_BEL);
      expect(line).not.toContain('\n');
      expect(line).not.toContain('s3cr3t');
    }
  });

  it('have no stack lines for a thrown non-error', () => {
    expect(errorStackLines('just text')).toEqual([]);
  });
});

describe("a console that ends, in vconsole's words", () => {
  it.each([
    ['WebSocket is not open: readyState 2 (CLOSING)', 'the console had already closed'],
    ['WebSocket is not open: readyState 3 (CLOSED)', 'the console had already closed'],
    ['Opening handshake has timed out', 'the websocket upgrade timed out'],
    ['Server sent no subprotocol', 'the server did not answer as a websocket console proxy'],
  ])("never passes ws's %j through", (raw, words) => {
    expect(describeError(new Error(raw))).toBe(words);
  });

  it('names a broken websocket frame and a write to a closed connection', () => {
    const frame = Object.assign(new RangeError('Invalid WebSocket frame: RSV1 must be clear'), { code: 'WS_ERR_UNEXPECTED_RSV_1' });
    expect(describeError(frame)).toMatch(/^the other end broke the websocket protocol/);
    expect(describeError(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }))).toBe('the connection had already closed');
  });

  it("says the close code's meaning and the reason", () => {
    const ending = (code: number, reason = '', more: object = {}) =>
      describeError(describeWebSocketEnding({ code, reason, soonAfterUpgrade: false, ...more }));
    expect(ending(1000, 'Target closed')).toBe('the console closed: Target closed (the VM stopped?)');
    expect(ending(1000, 'bye')).toBe('the console closed: bye');
    expect(ending(1001)).toMatch(/^the console proxy went away; /);
    expect(ending(1006)).toMatch(/^the console's connection dropped without a close frame; /);
    expect(ending(1006, '', { socketErrorCode: 'ECONNRESET' })).toMatch(/^the console's connection was reset; /);
    expect(ending(1011, 'boom')).toMatch(/^the console proxy failed: boom; /);
    expect(ending(4000, 'custom')).toBe('the console closed the websocket with code 4000: custom');
    expect(ending(1006, '', { soonAfterUpgrade: true })).toBe(
      'the console was refused right after the upgrade; the token is wrong or expired: get a fresh console URL',
    );
    // A close frame right after the upgrade says its own reason (websockify, VM not listening).
    expect(ending(1011, 'Failed to connect to downstream server', { soonAfterUpgrade: true })).toBe(
      "the console proxy could not reach the VM's console: Failed to connect to downstream server; is the VM running?",
    );
    expect(ending(1000, '\u001b[2Jevil')).not.toMatch(ESC_OR_BEL);
  });
});
