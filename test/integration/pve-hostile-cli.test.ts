import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Duplex } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPveFixture, type FixtureGuest, type PveFixture } from '../fixtures/pve-api.js';
import { runVconsole, startVconsole, type RunResult } from '../support/cli.js';
import { isRunning } from '../fixtures/viewer-processes.js';
import { waitFor } from '../support/wait.js';
import { duplexPair } from '../../src/streams/duplex-pair.js';

// A Proxmox VE API that answers as an attacker in front of it would: a 401 whose reason quotes
// the Authorization header, vncproxy answers of the wrong types, a spiceproxy answer with keys
// that hand this machine's USB devices and smartcard to the VM. What vconsole prints holds no
// secret, and the connection file it writes holds only what a viewer needs, for as long as needed.

const TOKEN_ID = 'vconsole@pve!console';
const TOKEN_SECRET = '7d0f1e2a-3b4c-4d5e-8f60-718293a4b5c6';
const WRONG_SECRET = 'c6b5a493-8271-406f-8e5d-4c3b2a1f0e7d';

let dir: string;
let fixture: PveFixture;
let given: string[];
let wrongToken: string[];
/** The VNC password vncproxy made last (what the fake QEMU was given). */
let lastVncPassword = '';

const guest: FixtureGuest = {
  vmid: 100,
  name: 'web-1',
  node: 'pve1',
  type: 'qemu',
  status: 'running',
  vnc: () => {
    const [ours, theirs] = duplexPair();
    askVncPassword(theirs);
    return ours;
  },
  setVncPassword: async (password) => {
    lastVncPassword = password;
  },
};

/** QEMU's VNC server with `password=on`, as far as its challenge: the client answers it with the one-time password. */
function askVncPassword(server: Duplex): void {
  let received = 0;
  server.write('RFB 003.008\n');
  server.on('data', (chunk: Buffer) => {
    const before = received;
    received += chunk.length;
    // Its version (12 bytes): one security type, VNC authentication; the type chosen (1 byte): the challenge.
    if (before < 12 && received >= 12) server.write(Buffer.from([1, 2]));
    if (before < 13 && received >= 13) server.write(randomBytes(16));
  });
}

const SPICE_EXTRAS = {
  'enable-usb-autoshare': 1,
  'enable-usbredir': 1,
  'usb-filter': '-1,-1,-1,-1,1',
  'enable-smartcard': 1,
  'smartcard-insert': 'shift+f8',
  'delete-this-file': 0,
  'newer-version-url': 'http://attacker.example/',
  'tls-ciphers': 'NULL',
};

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vconsole-pve-hostile-'));
  fixture = await startPveFixture({
    dir,
    guests: [guest],
    tokens: { [TOKEN_ID]: TOKEN_SECRET },
    hostile: { reflectAuthorization: true, mistypedConsoleProxy: true, spiceExtras: SPICE_EXTRAS },
  });
  const tokenFile = (name: string, secret: string) => {
    const file = path.join(dir, name);
    fs.writeFileSync(file, `${TOKEN_ID}=${secret}\n`, { mode: 0o600 });
    return file;
  };
  given = ['--pve-url', fixture.url, '--ca', fixture.caFile, '--pve-token-file', tokenFile('token', TOKEN_SECRET)];
  wrongToken = ['--pve-url', fixture.url, '--ca', fixture.caFile, '--pve-token-file', tokenFile('wrong', WRONG_SECRET)];
});
afterAll(async () => {
  await fixture?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

function expectOneLine(result: RunResult, code: number): void {
  expect(result.signal).toBeNull();
  expect(result.code, result.stderr).toBe(code);
  expect(result.stderr.trim().split('\n'), result.stderr).toHaveLength(1);
}

describe('a Proxmox VE 401 that quotes the Authorization header', () => {
  it.each([
    ['list', ['list', '--provider', 'pve']],
    ['screenshot', ['screenshot', 'pve:100', '-o', 'never.png']],
  ])('%s says 401 in one line without the token secret', async (_command, args) => {
    const result = await runVconsole([...args, ...wrongToken], {}, 60_000);
    expectOneLine(result, 1);
    expect(result.stderr).toMatch(/Proxmox VE refused the credentials \(401 invalid token value!/);
    expect(result.stderr + result.stdout).not.toContain(WRONG_SECRET);
  });
});

describe('a vncproxy answer of the wrong types', () => {
  it('is one line naming what is wrong, without the one-time password or the ticket', async () => {
    const result = await runVconsole(['screenshot', 'pve:100', '-o', path.join(dir, 'shot.png'), ...given], {}, 60_000);
    expectOneLine(result, 1);
    expect(result.stderr).toMatch(/^vconsole: .*Proxmox VE answered vncproxy with a password that is not text/);
    expect(lastVncPassword).toMatch(/^\d{8}$/);
    expect(result.stderr).not.toContain(lastVncPassword);
    expect(result.stderr).not.toMatch(/TypeError|PVEVNC/);
  });
});

describe('open pve:100#spice: the connection file', () => {
  /** A remote-viewer that answers --version, copies the file it is given, says where it was, then stays or exits. */
  function viewerScript(name: string, stays: boolean): string {
    fs.mkdirSync(path.join(dir, name));
    // Named as the program, so --viewer PATH knows it for remote-viewer.
    const file = path.join(dir, name, 'remote-viewer');
    const copy = path.join(dir, `${name}.vv`);
    fs.writeFileSync(
      file,
      `#!/bin/sh\nif [ "$1" = --version ]; then echo 'remote-viewer version 11.0'; exit 0; fi\ncp "$1" '${copy}.tmp' && mv '${copy}.tmp' '${copy}'\nprintf '%s' "$1" > '${copy}.path'\n${stays ? 'exec sleep 600\n' : ''}`,
      { mode: 0o755 },
    );
    return file;
  }

  function settingsIn(file: string): Record<string, string> {
    const lines = fs.readFileSync(file, 'utf8').trim().split('\n');
    expect(lines[0]).toBe('[virt-viewer]');
    return Object.fromEntries(lines.slice(1).map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]));
  }

  it('holds only the keys a viewer needs, USB autoshare and smartcard off, and is gone once the viewer exits', async () => {
    const viewer = viewerScript('exits', false);
    const result = await runVconsole(['open', 'pve:100#spice', '--viewer', viewer, '--no-tui', ...given], {}, 60_000);
    expect(result.code, result.stderr).toBe(0);
    const settings = settingsIn(path.join(dir, 'exits.vv'));
    expect(Object.keys(settings).sort()).toEqual(
      [
        'ca',
        'delete-this-file',
        'enable-smartcard',
        'enable-usb-autoshare',
        'host',
        'host-subject',
        'password',
        'proxy',
        'release-cursor',
        'secure-attention',
        'title',
        'tls-port',
        'toggle-fullscreen',
        'type',
      ].sort(),
    );
    expect(settings).toMatchObject({ 'delete-this-file': '1', 'enable-usb-autoshare': '0', 'enable-smartcard': '0', type: 'spice' });
    const written = fs.readFileSync(path.join(dir, 'exits.vv.path'), 'utf8');
    expect(fs.existsSync(written), `${written} is left behind`).toBe(false);
    expect(fs.existsSync(path.dirname(written)), `${path.dirname(written)} is left behind`).toBe(false);
  });

  it('is gone when vconsole is interrupted while the viewer runs', async () => {
    const viewer = viewerScript('stays', true);
    const child = startVconsole(['open', 'pve:100#spice', '--viewer', viewer, '--no-tui', ...given]);
    try {
      await waitFor(() => fs.existsSync(path.join(dir, 'stays.vv.path')), 'the viewer given its file');
      const written = fs.readFileSync(path.join(dir, 'stays.vv.path'), 'utf8');
      await child.stop();
      expect(fs.existsSync(written), `${written} is left behind`).toBe(false);
      expect(fs.existsSync(path.dirname(written))).toBe(false);
    } finally {
      child.kill();
    }
  });

  /** A cluster of guests 100 and 101 whose spiceproxy answer for 101 waits until `release()`. */
  async function heldSecondFile() {
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    const cluster = await startPveFixture({
      dir,
      guests: [guest, { ...guest, vmid: 101, name: 'web-2' }],
      tokens: { [TOKEN_ID]: TOKEN_SECRET },
      spiceproxyHeld: (vmid) => (vmid === 101 ? held : Promise.resolve()),
    });
    const args = ['--pve-url', cluster.url, '--ca', cluster.caFile, '--pve-token-file', path.join(dir, 'token')];
    return { slow: { fixture: cluster, args }, release };
  }

  it('is gone, and its viewer ended, when vconsole opening files beside a session is interrupted while the next file is asked for', async () => {
    const { slow, release } = await heldSecondFile();
    // Given a file, it says which and its pid, and stays; given a session's address, it only stays.
    const mark = path.join(dir, 'mixed');
    const viewer = path.join(mark, 'remote-viewer');
    fs.mkdirSync(mark);
    fs.writeFileSync(
      viewer,
      `#!/bin/sh\nif [ "$1" = --version ]; then echo 'remote-viewer version 11.0'; exit 0; fi\ncase "$1" in *.vv) printf '%s' "$1" > '${mark}/file'; echo $$ > '${mark}/pid' ;; esac\nexec sleep 600\n`,
      { mode: 0o755 },
    );
    const args = slow.args;
    const child = startVconsole(['open', 'pve:100#spice', 'pve:101#spice', 'demo:vm-a', '--viewer', viewer, '--no-tui', ...args]);
    try {
      await waitFor(() => fs.existsSync(path.join(mark, 'pid')), 'the first viewer given its file');
      await waitFor(
        () => slow.fixture.requests.includes('POST /api2/json/nodes/pve1/qemu/101/spiceproxy'),
        "the second console's file asked for",
      );
      const written = fs.readFileSync(path.join(mark, 'file'), 'utf8');
      const pid = Number(fs.readFileSync(path.join(mark, 'pid'), 'utf8'));
      await child.stop();
      expect(child.process.signalCode, 'vconsole was ended by the signal itself, nothing cleaned up').toBeNull();
      expect(fs.existsSync(written), `${written} is left behind`).toBe(false);
      expect(isRunning(pid), 'the viewer of the connection file outlives vconsole').toBe(false);
    } finally {
      child.kill();
      release();
      await slow.fixture.close();
    }
  });

  it('is gone when vconsole is interrupted while the next console is still asked for', async () => {
    const { slow, release } = await heldSecondFile();
    const viewer = viewerScript('first', true);
    const args = slow.args;
    const child = startVconsole(['open', 'pve:100#spice', 'pve:101#spice', '--viewer', viewer, '--no-tui', ...args]);
    try {
      await waitFor(() => fs.existsSync(path.join(dir, 'first.vv.path')), 'the first viewer given its file');
      await waitFor(
        () => slow.fixture.requests.includes('POST /api2/json/nodes/pve1/qemu/101/spiceproxy'),
        "the second console's file asked for",
      );
      const written = fs.readFileSync(path.join(dir, 'first.vv.path'), 'utf8');
      await child.stop();
      expect(child.process.signalCode, 'vconsole was ended by the signal itself, nothing cleaned up').toBeNull();
      expect(fs.existsSync(written), `${written} is left behind`).toBe(false);
    } finally {
      child.kill();
      release();
      await slow.fixture.close();
    }
  });
});
