import { describe, expect, it } from 'vitest';
import { displayHere, sshLogin } from './display.js';

const host = () => 'jump-1';
const SSH = { SSH_CONNECTION: '203.0.113.7 51234 198.51.100.2 22', SSH_TTY: '/dev/pts/3', USER: 'ada' };

describe('displayHere', () => {
  it('Linux: DISPLAY or WAYLAND_DISPLAY shows windows, also over ssh -X', () => {
    expect(displayHere({ platform: 'linux', env: { DISPLAY: ':0' } }, host)).toEqual({ shows: true });
    expect(displayHere({ platform: 'linux', env: { WAYLAND_DISPLAY: 'wayland-0' } }, host)).toEqual({ shows: true });
    expect(displayHere({ platform: 'linux', env: { ...SSH, DISPLAY: 'localhost:10.0' } }, host)).toEqual({ shows: true });
  });

  it('Linux over ssh without X forwarding: no display, with the login the user came in on', () => {
    expect(displayHere({ platform: 'linux', env: SSH }, host)).toEqual({
      shows: false,
      reason: 'an ssh session without X forwarding (no DISPLAY)',
      login: { user: 'ada', host: '198.51.100.2' },
    });
  });

  it('Linux with neither variable and no ssh (a console, a container): no display, this host by name', () => {
    expect(displayHere({ platform: 'linux', env: { USER: 'ada', DISPLAY: '' } }, host)).toEqual({
      shows: false,
      reason: 'neither DISPLAY nor WAYLAND_DISPLAY is set',
      login: { user: 'ada', host: 'jump-1' },
    });
  });

  it('macOS and Windows: a display unless in an ssh session without DISPLAY', () => {
    expect(displayHere({ platform: 'darwin', env: {} }, host)).toEqual({ shows: true });
    expect(displayHere({ platform: 'win32', env: { USERNAME: 'ada' } }, host)).toEqual({ shows: true });
    expect(displayHere({ platform: 'darwin', env: { ...SSH, DISPLAY: '/private/tmp/xquartz:0' } }, host)).toEqual({ shows: true });
    expect(displayHere({ platform: 'darwin', env: SSH }, host)).toMatchObject({
      shows: false,
      reason: expect.stringMatching(/^an ssh session/),
    });
    expect(displayHere({ platform: 'win32', env: { SSH_CLIENT: '203.0.113.7 51234 22', USERNAME: 'ada' } }, host)).toMatchObject({
      shows: false,
      login: { user: 'ada', host: 'jump-1' },
    });
  });
});

describe('sshLogin', () => {
  it('has no user when none is set, and the host name without SSH_CONNECTION', () => {
    expect(sshLogin({}, host)).toEqual({ user: undefined, host: 'jump-1' });
    expect(sshLogin({ LOGNAME: 'bob', SSH_CONNECTION: '::1 4000 fe80::2 22' }, host)).toEqual({ user: 'bob', host: 'fe80::2' });
  });

  it("keeps the ssh server's port when it is not 22", () => {
    expect(sshLogin({ USER: 'ada', SSH_CONNECTION: '203.0.113.7 51234 198.51.100.2 2222' }, host)).toEqual({
      user: 'ada',
      host: '198.51.100.2',
      port: 2222,
    });
    expect(sshLogin({ USER: 'ada', SSH_CONNECTION: '203.0.113.7 51234 198.51.100.2 nonsense' }, host)).toEqual({
      user: 'ada',
      host: '198.51.100.2',
    });
  });
});
