import { afterEach, describe, expect, it, vi } from 'vitest';
import { picture, serveHandshake, startScriptedServer, update, type RfbPeer } from '../../../test/support/fake-rfb-server.js';
import type { ConsoleSession } from '../../proxy/index.js';
import { ConsoleInputs } from './console-input.js';

/** What a screen was sent: each KeyEvent as `down`/`up` and its keysym; the update requests are read past. */
async function keyEventsOf(peer: RfbPeer, count: number): Promise<string[]> {
  const keys: string[] = [];
  while (keys.length < count) {
    const [type] = await peer.read(1);
    if (type === 3) await peer.read(9);
    else if (type === 4) {
      const rest = await peer.read(7);
      keys.push(`${rest[0] ? 'down' : 'up'} ${rest.readUInt32BE(3).toString(16)}`);
    } else throw new Error(`unexpected client message ${type}`);
  }
  return keys;
}

describe("open's TUI typing into a screen", () => {
  const cleanup: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const step of cleanup.splice(0)) await step();
  });

  async function screen(count: number) {
    let seen: Promise<string[]> | undefined;
    const connections = vi.fn();
    const server = await startScriptedServer(async (peer) => {
      connections();
      await serveHandshake(peer, 4, 2);
      peer.write(update([{ rect: { x: 0, y: 0, w: 4, h: 2 }, encoding: 0, body: picture(4, 2, () => 0x336699) }]));
      seen = keyEventsOf(peer, count);
      await seen;
    });
    cleanup.push(() => server.close());
    const log = vi.fn();
    const session = {
      id: 7,
      name: 'vm-a',
      log,
      source: { name: 'vm-a', provider: 'tcp', facts: { consoleType: 'vnc' }, dial: () => Promise.resolve(server.dial()) },
    } as unknown as ConsoleSession;
    return { session, log, connections, keys: () => seen };
  }

  it('types pasted text as keys, its line end as Return, and logs its length, never the text', async () => {
    const { session, log, keys } = await screen(6);
    const inputs = new ConsoleInputs({ registry: { get: () => session }, viewOnly: false });
    cleanup.push(() => Promise.resolve(inputs.closeAll()));
    expect(await inputs.paste([7], 'a\n')).toBe('vm-a: typed 2 characters (keysyms)');
    expect(await inputs.sendKey([7], 'esc')).toBe('vm-a: sent esc (keysyms)');
    expect(await keys()).toEqual(['down 61', 'up 61', 'down ff0d', 'up ff0d', 'down ff1b', 'up ff1b']);
    const lines = log.mock.calls.map(([, line]) => String(line));
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ \S+ vm-a: typed 2 characters \(keysyms\)$/);
  });

  it('sends nothing from open --view-only', async () => {
    const { session, connections } = await screen(1);
    const inputs = new ConsoleInputs({ registry: { get: () => session }, viewOnly: true });
    await expect(inputs.paste([7], 'secret')).rejects.toThrow(/--view-only .*nothing was sent/);
    expect(connections).not.toHaveBeenCalled();
  });

  it('sends nothing into a console joined from a vconsole that holds it view-only, and says which', async () => {
    const { session, connections } = await screen(1);
    const joined = session.source;
    const top = {
      ...joined,
      inner: { ...joined, inputRefused: () => 'vconsole proxy (pid 41) holds the console view-only (--view-only)' },
    };
    const inputs = new ConsoleInputs({
      registry: { get: () => ({ ...session, source: top }) as unknown as ConsoleSession },
      viewOnly: false,
    });
    await expect(inputs.paste([7], 'secret')).rejects.toThrow(
      'vm-a: vconsole proxy (pid 41) holds the console view-only (--view-only): nothing was sent',
    );
    await expect(inputs.sendKey([7], 'ctrl-alt-delete')).rejects.toThrow(/view-only/);
    expect(connections).not.toHaveBeenCalled();
  });
});
