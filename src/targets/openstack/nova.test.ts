import { describe, expect, it } from 'vitest';
import { consoleWebSocketUrl } from '../dial/console-url.js';
import { describeError } from '../../errors.js';
import { consolePageUrl, isServerId, serverNameFilter } from './nova.js';
import { checkConsoleState, consoleByStatus } from './server-status.js';

const T = '2f6b1e4c-9a8d-4c3b-b2a1-0f9e8d7c6b5a';

describe('console URL shapes', () => {
  it.each([
    [
      'noVNC vnc_lite with the token in an encoded path',
      `http://nova.example:6080/vnc_lite.html?path=%3Ftoken%3D${T}`,
      `ws://nova.example:6080/?token=${T}`,
    ],
    ['https becomes wss', `https://nova.example:6080/vnc_lite.html?path=%3Ftoken%3D${T}`, `wss://nova.example:6080/?token=${T}`],
    [
      'a path prefix inside path=',
      `https://cloud.example/vnc_lite.html?path=novnc%2Fwebsockify%3Ftoken%3D${T}`,
      `wss://cloud.example/novnc/websockify?token=${T}`,
    ],
    ['path= and token= side by side', `http://h:6080/vnc_lite.html?path=websockify&token=${T}`, `ws://h:6080/websockify?token=${T}`],
    ['vnc_auto.html with token=', `http://nova.example:6080/vnc_auto.html?token=${T}`, `ws://nova.example:6080/?token=${T}`],
    ['vnc.html behind a reverse-proxy prefix', `https://cloud.example/novnc/vnc.html?token=${T}`, `wss://cloud.example/novnc/?token=${T}`],
    ['settings in the fragment (noVNC 1.x)', `https://h:6080/vnc_lite.html#path=%3Ftoken%3D${T}`, `wss://h:6080/?token=${T}`],
    ['serial-style ws URL kept as is', `ws://nova.example:6083/?token=${T}`, `ws://nova.example:6083/?token=${T}`],
    ['wss URL', `wss://nova.example:6083/?token=${T}`, `wss://nova.example:6083/?token=${T}`],
    ['path-only http URL', `http://h:6080/?token=${T}`, `ws://h:6080/?token=${T}`],
    ['path-only websockify URL', `http://h:6080/websockify?token=${T}`, `ws://h:6080/websockify?token=${T}`],
    ['default port dropped', `https://h:443/vnc_lite.html?path=%3Ftoken%3D${T}`, `wss://h/?token=${T}`],
    ['IPv6 host', `http://[fd00::5]:6080/vnc_lite.html?path=%3Ftoken%3D${T}`, `ws://[fd00::5]:6080/?token=${T}`],
  ])('%s', (_what, input, expected) => {
    expect(consoleWebSocketUrl(input).href).toBe(expected);
  });

  it('resolves a URL without host against the compute endpoint', () => {
    expect(consoleWebSocketUrl(`/vnc_auto.html?token=${T}`, 'https://api.example:8774/v2.1').href).toBe(
      `wss://api.example:8774/?token=${T}`,
    );
  });

  it('refuses a URL without a token, and never echoes the URL', () => {
    expect(() => consoleWebSocketUrl('http://h:6080/vnc_lite.html')).toThrow('Nova returned a console URL without a token');
    expect(() => consoleWebSocketUrl(`ftp://h/?token=${T}`)).toThrow(/scheme ftp:/);
    try {
      consoleWebSocketUrl(`ftp://h/?token=${T}`);
    } catch (err) {
      expect((err as Error).message).not.toContain(T);
    }
  });
});

describe('server names and IDs', () => {
  it('treats UUIDs (with or without dashes) as IDs and the rest as names', () => {
    expect(isServerId(T)).toBe(true);
    expect(isServerId(T.replace(/-/g, ''))).toBe(true);
    expect(isServerId('web-1')).toBe(false);
    expect(isServerId(`${T}x`)).toBe(false);
  });

  it("anchors and escapes the name for Nova's regex filter", () => {
    expect(serverNameFilter('web-1')).toBe('^web-1$');
    const filter = serverNameFilter('db.1 (old)+[x]*?^$|{2}\\');
    expect(new RegExp(filter).test('db.1 (old)+[x]*?^$|{2}\\')).toBe(true);
    expect(new RegExp(filter).test('dbX1 (old)+[x]*?^$|{2}\\')).toBe(false);
    expect(new RegExp(serverNameFilter('web')).test('web-2')).toBe(false);
  });

  it('sends no `|`: a MySQL-backed Nova rewrites every `|` to `\\|` (db/utils.py), which turned an escaped one into an alternation', () => {
    const mysql = (filter: string) => new RegExp(filter.replace(/\|/g, '\\|'));
    expect(serverNameFilter('a|b')).toBe('^a.b$');
    expect(mysql(serverNameFilter('a|b')).test('a|b')).toBe(true);
    expect(mysql(serverNameFilter('a|b')).test('b')).toBe(false);
    expect(mysql(serverNameFilter('a|b')).test('a\\')).toBe(false);
  });
});

describe('server state', () => {
  it('refuses servers that have no running console', () => {
    expect(() => checkConsoleState({ id: T, status: 'SHUTOFF' }, 'vm')).toThrow('server "vm" is SHUTOFF');
    expect(() => checkConsoleState({ id: T, status: 'SHELVED_OFFLOADED' }, 'vm')).toThrow(/SHELVED_OFFLOADED/);
  });

  it('accepts active, paused and unknown states', () => {
    for (const status of ['ACTIVE', 'PAUSED', 'BUILD', 'ERROR', 'RESCUE', 'VERIFY_RESIZE', 'PASSWORD', undefined]) {
      expect(() => checkConsoleState({ id: T, status }, 'vm')).not.toThrow();
    }
  });

  it("refuses a live-migrating server (Nova's answer would be a 500 InstanceInvalidState), its ID in the hint", () => {
    let error: unknown;
    try {
      checkConsoleState({ id: T, status: 'MIGRATING' }, 'vm');
    } catch (err) {
      error = err;
    }
    expect(describeError(error)).toBe(
      `server "vm" is MIGRATING; it is migrating: try again once it is ACTIVE (openstack server show ${T})`,
    );
  });

  it('one rule for list and the pre-flight: Nova checks no vm_state, so a running QEMU has a console whatever the status', () => {
    const rule = (statuses: (string | undefined)[]) => statuses.map((s) => consoleByStatus(s));
    expect(rule(['ACTIVE', 'PAUSED', 'RESCUE', 'VERIFY_RESIZE', 'REVERT_RESIZE', 'REBOOT', 'HARD_REBOOT', 'PASSWORD', 'resize'])).toEqual(
      Array(9).fill('yes'),
    );
    expect(rule(['SHUTOFF', 'SUSPENDED', 'SHELVED', 'SHELVED_OFFLOADED', 'DELETED', 'SOFT_DELETED', 'MIGRATING'])).toEqual(
      Array(7).fill('no'),
    );
    expect(rule(['BUILD', 'ERROR', 'UNKNOWN', undefined])).toEqual(Array(4).fill('maybe'));
    // The pre-flight refuses exactly the `no` ones.
    for (const status of ['PAUSED', 'RESCUE', 'BUILD', 'ERROR', 'MIGRATING', 'SHUTOFF', 'SUSPENDED']) {
      const refused = (() => {
        try {
          checkConsoleState({ id: T, status }, 'vm');
          return false;
        } catch {
          return true;
        }
      })();
      expect(refused).toBe(consoleByStatus(status) === 'no');
    }
  });
});

describe('browser-only console pages (rdp-html5, webmks)', () => {
  it("keeps Nova's URL as it is, resolves a relative one against the compute endpoint, and remembers the token", () => {
    const tokens: string[] = [];
    const remember = (token: string) => tokens.push(token);
    const given = `http://example.com:6090/mks.html?token=${T}&x=%2F`;
    expect(consolePageUrl(given, 'https://nova.example/compute/v2.1', remember)).toBe(given);
    expect(consolePageUrl(`/rdp/?token=${T}`, 'https://nova.example/compute/v2.1', remember)).toBe(`https://nova.example/rdp/?token=${T}`);
    expect(tokens).toEqual([T, T]);
  });

  it('refuses a page that is no web page, its token still remembered for scrubbing', () => {
    const tokens: string[] = [];
    expect(() => consolePageUrl(`ws://h:6083/?token=${T}`, undefined, (token) => tokens.push(token))).toThrow(
      'Nova returned a console page URL with scheme ws: (expected http or https)',
    );
    expect(tokens).toEqual([T]);
  });
});
