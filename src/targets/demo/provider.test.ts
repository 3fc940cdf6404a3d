import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { portIsClosed, readGreeting } from '../../../test/support/cli.js';
import { UsageError, describeError } from '../../errors.js';
import { SessionRegistry } from '../../proxy/session-registry.js';
import { demoProvider } from './provider.js';
import { resolveTarget, splitTarget } from '../index.js';
import type { ConsoleTarget } from '../types.js';

function demoError(raw: string): string {
  try {
    demoProvider.resolve(splitTarget(raw), {});
  } catch (err) {
    expect(err).toBeInstanceOf(UsageError);
    return describeError(err);
  }
  throw new Error(`${raw} was accepted`);
}

const RULE = 'use demo:NAME with 1 to 63 letters, digits, ".", "_" or "-", starting with a letter or digit';

describe('demo target names', () => {
  it('accepts 63 characters and names the target demo:NAME', () => {
    const name = `a${'b'.repeat(62)}`;
    expect(demoProvider.resolve(splitTarget(`demo:${name}`), {}).name).toBe(`demo:${name}`);
  });

  it('says a 10 KB name is too long, not that its characters are bad, and echoes only its start', () => {
    const text = demoError(`demo:${'a'.repeat(10_000)}`);
    expect(text).toContain('the name has 10000 characters, at most 63 are allowed');
    expect(text).toContain(RULE);
    expect(text.length).toBeLessThan(300);
  });

  it('names the character that is not allowed, shown safely', () => {
    expect(demoError('demo:vm\u001b[31mRED\u0007')).toBe(
      `bad demo target "demo:vm\\e[31mRED\\x07": character "\\e" is not allowed in the name; ${RULE}`,
    );
    expect(demoError('demo:vm a')).toContain('character " " is not allowed');
  });

  it('says what a name must start with', () => {
    expect(demoError('demo:-vm')).toContain('the name must start with a letter or digit, not "-"');
  });

  it('says an empty name is empty', () => {
    expect(demoError('demo:')).toContain('the name is empty');
  });
});

const resolve = (text: string): ConsoleTarget => demoProvider.resolve(splitTarget(text), {});

/** The port of the demo VM's in-process server, learnt from a dial of the target itself. */
async function demoServerPort(target: ConsoleTarget): Promise<number> {
  const socket = (await target.dial({ signal: new AbortController().signal, log: () => undefined })) as net.Socket;
  const port = socket.remotePort ?? 0;
  socket.destroy();
  return port;
}

const registries: SessionRegistry[] = [];
afterEach(async () => {
  await Promise.all(registries.splice(0).map((r) => r.closeAll()));
});

describe('demo provider', () => {
  it("stops the demo VM's server when its session is removed (x in the TUI)", async () => {
    const registry = new SessionRegistry();
    registries.push(registry);
    const target = resolve('demo:release-a');
    const session = registry.add(target);
    const { port } = await session.start({ host: '127.0.0.1', port: 0 });
    const viewer = await readGreeting(port);
    expect(viewer.text).toBe('RFB 003.008\n');
    viewer.socket.destroy();
    const serverPort = await demoServerPort(target);
    expect(await portIsClosed(serverPort)).toBe(false);
    await registry.remove(session.id);
    expect(await portIsClosed(serverPort)).toBe(true);
  });

  it("keeps a demo VM's server while another session of it is open, and starts a fresh one when needed again", async () => {
    const first = resolve('demo:release-b');
    const second = resolve('demo:release-b');
    const serverPort = await demoServerPort(first);
    expect(await demoServerPort(second)).toBe(serverPort);
    await first.release?.();
    expect(await portIsClosed(serverPort)).toBe(false);
    await second.release?.();
    expect(await portIsClosed(serverPort)).toBe(true);
    await expect(first.dial({ signal: new AbortController().signal, log: () => undefined })).rejects.toThrow('the demo console was closed');
    const third = resolve('demo:release-b');
    expect(await portIsClosed(await demoServerPort(third))).toBe(false);
    await third.release?.();
  });
});

describe('demo list', () => {
  it('offers a few demo VMs, each a target that resolves, for `list` and the picker with no cloud', async () => {
    const vms = await demoProvider.list!({}, {});
    expect(vms.map((vm) => vm.target)).toEqual(['demo:vm-a', 'demo:vm-b', 'demo:vm-c', 'demo:shell#serial']);
    for (const vm of vms) expect(vm).toMatchObject({ provider: 'demo', state: 'Running', console: true });
    expect(resolveTarget('demo:shell#serial', {}).facts.consoleType).toBe('serial');
    expect(resolveTarget(vms[0].target, {}).name).toBe('demo:vm-a');
  });
});
