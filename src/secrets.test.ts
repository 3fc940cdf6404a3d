import { describe, expect, it } from 'vitest';
import { ConsoleEndedError, ConsoleRefusedError, UsageError, VconsoleError, describeError } from './errors.js';
import { SecretSet, scrubError, scrubText, scrubbedCause, urlSecrets, withoutCredentialVariables } from './secrets.js';

describe('scrubText', () => {
  it('replaces a known secret as it is, percent-encoded, form-encoded and inside a JSON string', () => {
    const secret = 'p@ss w/rd"!';
    const text = [secret, encodeURIComponent(secret), new URLSearchParams({ q: secret }).toString(), JSON.stringify({ secret })].join(
      ' | ',
    );
    const out = scrubText(text, [secret]);
    expect(out).not.toContain('w/rd');
    expect(out).not.toContain('w%2Frd');
    expect(out.match(/\*\*\*/g)).toHaveLength(4);
  });

  it('replaces a secret that holds another whole, and leaves short or missing ones alone', () => {
    expect(scrubText('ticket PVE:abcd::SIGNATURE', ['abcd', 'PVE:abcd::SIGNATURE', undefined, 'ab'])).toBe('ticket ***');
    expect(scrubText('a b ab', ['ab'])).toBe('a b ab');
  });

  it('also redacts what looks like a secret: query tokens, URL credentials, bearer tokens', () => {
    expect(scrubText('GET https://u:pw@h/x?token=abc and Bearer eyJabc.def', [])).toBe('GET https://***@h/x?token=*** and Bearer ***');
  });
});

describe('scrubError', () => {
  it('rebuilds message, hint and cause without the secrets, the exit code kept', () => {
    const cause = Object.assign(new Error('sent X-Auth-Token: tok-12345'), { code: 'EPROTO' });
    const err = new VconsoleError('Nova said tok-12345', { hint: 'not tok-12345', cause, exitCode: 1 });
    const scrubbed = scrubError(err, ['tok-12345']);
    expect(describeError(scrubbed)).toBe('Nova said ***; not ***');
    expect((scrubbed.cause as Error).message).toBe('sent X-Auth-Token: ***');
    expect((scrubbed.cause as { code?: string }).code).toBe('EPROTO');
    expect(scrubbed.exitCode).toBe(1);
  });

  it("keeps the error's class and its flags, so a refused console is still told from a dropped one", () => {
    class TicketRefused extends ConsoleRefusedError {}
    const refused = scrubError(new TicketRefused('refused ticket s3cr3t-t1cket'), ['s3cr3t-t1cket']);
    expect(refused).toBeInstanceOf(TicketRefused);
    expect(refused).toBeInstanceOf(ConsoleRefusedError);
    expect(refused.message).toBe('refused ticket ***');
    const ended = scrubError(new ConsoleEndedError('closed', undefined, true), []);
    expect(ended).toBeInstanceOf(ConsoleEndedError);
    expect((ended as ConsoleEndedError).refused).toBe(true);
    expect(ended.name).toBe('ConsoleEndedError');
    const usage = scrubError(new UsageError('bad pw-9876', 'not pw-9876'), ['pw-9876']);
    expect(usage).toBeInstanceOf(UsageError);
    expect([usage.exitCode, describeError(usage)]).toEqual([2, 'bad ***; not ***']);
  });

  it('describes an error of no kind of ours, with the code of its cause', () => {
    const raw = new Error('failed for https://h/?password=hunter22', { cause: Object.assign(new Error('inner'), { code: 'EPROTO' }) });
    const scrubbed = scrubError(raw, []);
    expect(scrubbed.message).toBe('failed for https://h/?password=***');
    expect(scrubbed.cause).toMatchObject({ message: 'inner', code: 'EPROTO' });
  });
});

describe('urlSecrets and scrubbedCause', () => {
  it("names a URL's password and its query and fragment values long enough to be a token", () => {
    expect(urlSecrets('wss://me:p%40ss@h:6080/x?token=T0KEN-long&port=5900&word=downstream#frag=F1-long-one')).toEqual([
      'p%40ss',
      'p@ss',
      'T0KEN-long',
      'F1-long-one',
    ]);
    expect(urlSecrets('not a url')).toEqual([]);
  });

  it("names a token a person chose (websockify's token plugins), however it looks, and scrubs it from what the proxy said", () => {
    const secrets = urlSecrets('ws://h:6080/websockify?token=workstation&vncticket=desk01&port=5900&mode=vm-web1');
    expect(secrets).toEqual(['workstation', 'desk01']);
    expect(scrubText("Token 'workstation' not found", secrets)).toBe("Token '***' not found");
    expect(urlSecrets('ws://h/?token=abc')).toEqual([]); // too short to scrub without hiding the message
  });

  it('keeps of a cause only its words, scrubbed, and its code', () => {
    const cause = scrubbedCause(Object.assign(new Error('proxy said ABCDEFGH bye'), { code: 'ECONNRESET', url: 'x' }), ['ABCDEFGH']);
    expect(cause.message).toBe('connection reset by peer');
    expect(Object.keys(cause)).toEqual(['code']);
    expect(scrubbedCause(new VconsoleError('cannot open ws://h/?x=ABCDEFGH'), ['ABCDEFGH']).message).toBe('cannot open ws://h/?x=***');
  });
});

describe('SecretSet', () => {
  it('scrubs what it learnt, forgetting the oldest past its limit', () => {
    const set = new SecretSet(2);
    for (const s of ['first-1', 'second-2', 'third-3', undefined]) set.add(s);
    expect(set.values()).toEqual(['second-2', 'third-3']);
    expect(set.scrubText('first-1 second-2 third-3')).toBe('first-1 *** ***');
    expect(set.scrubError(new VconsoleError('third-3')).message).toBe('***');
  });
});

describe('withoutCredentialVariables', () => {
  it("drops OpenStack's credential variables and keeps the rest, a desktop's activation token too", () => {
    const env = {
      OS_PASSWORD: 'a',
      OS_APPLICATION_CREDENTIAL_SECRET: 'b',
      OS_TOKEN: 'c',
      OS_AUTH_URL: 'u',
      PATH: '/bin',
      XDG_ACTIVATION_TOKEN: 't',
    };
    expect(withoutCredentialVariables(env)).toEqual({ OS_AUTH_URL: 'u', PATH: '/bin', XDG_ACTIVATION_TOKEN: 't' });
  });
});
