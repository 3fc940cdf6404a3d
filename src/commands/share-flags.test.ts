import { describe, expect, it } from 'vitest';
import { unsharedBecause, withExposureSharing, withPasswordPerDialSharing, withShareDefault, type ShareFlags } from './share-flags.js';

const none: ShareFlags = {};

// Issue 26: open shares by default, --no-share and defaults.share: false opt out, proxy stays a
// byte relay unless --share; when s or the grid cannot work, the notice says what would.

describe('whether a command shares, and what would make it', () => {
  it('open shares unless --no-share or defaults.share: false; the flag wins over the config file', () => {
    expect(withShareDefault(none, undefined, true).share).toBe(true);
    expect(withShareDefault({ share: false }, undefined, true).share).toBe(false);
    expect(withShareDefault(none, false, true).share).toBe(false);
    expect(withShareDefault({ share: true }, false, true).share).toBe(true);
  });

  it('proxy shares only when asked (--share or defaults.share: true)', () => {
    expect(withShareDefault(none, undefined).share).toBeUndefined();
    expect(withShareDefault(none, true).share).toBe(true);
    expect(withShareDefault({ share: false }, true).share).toBe(false);
  });

  it('names the change that would share: drop --no-share, or --share over the config file', () => {
    expect(unsharedBecause({ share: false }, undefined)).toBe('drop --no-share');
    expect(unsharedBecause({ share: false }, true)).toBe('drop --no-share');
    expect(unsharedBecause({}, false)).toBe('pass --share, or drop defaults.share: false from the config file');
    expect(unsharedBecause({}, undefined)).toBeUndefined();
    expect(unsharedBecause({ share: true }, false)).toBeUndefined();
  });
});

describe('withPasswordPerDialSharing', () => {
  const ticketed = { name: 'pve:100', facts: { consoleType: 'vnc', consolePasswordPerDial: true } };
  it("shares a VNC console whose password is a one-time ticket (only the hub's client can answer it)", () => {
    expect(withPasswordPerDialSharing(none, [ticketed]).share).toBe(true);
    expect(withPasswordPerDialSharing(none, [{ ...ticketed, facts: { ...ticketed.facts, consoleType: 'serial' } }]).share).toBeUndefined();
    expect(withPasswordPerDialSharing(none, [{ name: 'tcp://h:5900', facts: { consoleType: 'vnc' } }]).share).toBeUndefined();
  });
  it('refuses --no-share for it, naming it', () => {
    expect(() => withPasswordPerDialSharing({ share: false }, [ticketed])).toThrow(/pve:100: its VNC server asks for a one-time ticket/);
  });
});

describe('a listener beyond loopback (issue 28: every exposed VNC port offers VeNCrypt)', () => {
  it('shares, over defaults.share: false too; on loopback the flags are left as they are', () => {
    expect(withShareDefault(withExposureSharing(none, '0.0.0.0'), false).share).toBe(true);
    expect(withShareDefault(withExposureSharing(none, '10.0.0.5'), false, true).share).toBe(true);
    expect(withExposureSharing(none, '127.0.0.1')).toBe(none);
    expect(withShareDefault(withExposureSharing(none, '::1'), false).share).toBe(false);
  });

  it('refuses --no-share, unless --insecure-expose-unauthenticated asks for the unshared relay by name', () => {
    expect(() => withExposureSharing({ share: false }, '0.0.0.0')).toThrow(
      /^--no-share on --listen 0\.0\.0\.0 would relay VNC consoles unencrypted/,
    );
    expect(withExposureSharing({ share: false, insecureExposeUnauthenticated: true }, '0.0.0.0').share).toBe(false);
    // The flag alone serves serial and SPICE consoles; VNC stays shared.
    expect(withExposureSharing<ShareFlags>({ insecureExposeUnauthenticated: true }, '0.0.0.0').share).toBe(true);
  });
});
