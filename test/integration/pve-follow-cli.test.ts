import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { startPveFixture, type FixtureGuest, type PveFixture } from '../fixtures/pve-api.js';
import { it } from '../support/fixtures.js';
import { serveDemoRfb } from '../../src/rfb/demo/server.js';
import { duplexPair } from '../../src/streams/duplex-pair.js';

/** `open --pve-tag TAG --follow` against the Proxmox VE fixture: guests tagged while it runs are opened, untagged ones marked. */

const TOKEN_ID = 'vconsole@pve!console';
const TOKEN_SECRET = '0b7c3f0e-6a57-4d4e-8a55-5a0f5c1b9e21';

let dir: string;
let fixture: PveFixture;
let args: string[];

function guest(vmid: number, name: string, tags: string): FixtureGuest {
  return {
    vmid,
    name,
    node: 'pve1',
    type: 'qemu',
    status: 'running',
    tags,
    vnc: () => {
      const [ours, theirs] = duplexPair();
      serveDemoRfb(theirs, { name, width: 64, height: 48 });
      return ours;
    },
  };
}

const guests = [guest(100, 'web-1', 'web'), guest(101, 'web-2', 'db')];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'vconsole-pve-follow-'));
  fixture = await startPveFixture({ dir, guests, tokens: { [TOKEN_ID]: TOKEN_SECRET } });
  const tokenFile = join(dir, 'token');
  await writeFile(tokenFile, `${TOKEN_ID}=${TOKEN_SECRET}\n`, { mode: 0o600 });
  args = ['--pve-url', fixture.url, '--pve-token-file', tokenFile, '--ca', fixture.caFile];
});
afterAll(async () => {
  await fixture?.close();
  await rm(dir, { recursive: true, force: true });
});
describe('open --pve-tag --follow', () => {
  it('opens a guest once it is tagged, marks one whose tag is taken away, and unmarks it when tagged again', async ({ vconsole }) => {
    const p = vconsole.start(['open', '--no-tui', '--viewer', 'none', '--pve-tag', 'web', '--follow', ...args], {
      VCONSOLE_FOLLOW_INTERVAL_MS: '150',
    });
    expect((await p.jsonLines(1)).map((l) => l.target)).toEqual(['pve:web-1']);
    guests[1].tags = 'db;web';
    await p.waitForStderr(/pve:web-2 now matches --pve-tag web: opening it/);
    expect((await p.jsonLines(2))[1]).toMatchObject({ target: 'pve:web-2', address: '127.0.0.1' });
    guests[0].tags = '';
    await p.waitForStderr(/pve:web-1 no longer matches --pve-tag web\n/);
    guests[0].tags = 'web';
    await p.waitForStderr(/pve:web-1 matches --pve-tag web again/);
  });
});
