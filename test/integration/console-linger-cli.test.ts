import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startVconsole, type RunningVconsole } from '../support/cli.js';

// Issue 36 item 8: `printf 'x1\r' | vconsole console ...` printed nothing when the VM answered
// later than half a second after stdin ended (over libvirt+ssh://, every time: the channel alone
// takes longer), and exited 0. Now, with stdin at EOF, the console stays until the VM has said
// something after the piped bytes and then been quiet for --linger (default 1s).

/** A serial console that answers each line after `delayMs` (a VM behind a slow channel), no echo. */
async function slowConsole(delayMs: number, answer: (line: string) => string[]) {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
    let text = '';
    socket.on('data', (chunk) => {
      text += chunk.toString('latin1');
      for (let at = text.indexOf('\r'); at !== -1; at = text.indexOf('\r')) {
        const line = text.slice(0, at);
        text = text.slice(at + 1);
        // Each part of the answer `delayMs` after the one before: a lower bound, load only stretches it.
        answer(line).forEach((part, index) => setTimeout(() => socket.write(part), delayMs * (index + 1)));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => {
    for (const socket of sockets) socket.destroy();
    server.close();
  });
  return `tcp://127.0.0.1:${(server.address() as net.AddressInfo).port}#serial`;
}

const cleanups: (() => void)[] = [];
const running: RunningVconsole[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((child) => child.stop()));
  for (const cleanup of cleanups.splice(0)) cleanup();
});

function pipedConsole(target: string, input: string, flags: string[] = []): RunningVconsole {
  const child = startVconsole(['console', target, '--no-join', ...flags]);
  running.push(child);
  child.process.stdin.end(input);
  return child;
}

describe('console with stdin piped', () => {
  it("prints the VM's answer that comes 1.5 s after stdin ended, every time (3 rounds), and exits 0", async () => {
    const target = await slowConsole(1_500, (line) => [`${line} answered\r\n`]);
    for (let round = 1; round <= 3; round++) {
      const child = pipedConsole(target, `x${round}\r`);
      expect(await child.exit()).toEqual({ code: 0, signal: null });
      expect(child.stdout()).toBe(`x${round} answered\r\n`);
    }
  });

  it('--linger DURATION keeps a slow second part of the answer; a bad duration is a usage error', async () => {
    const target = await slowConsole(1_500, (line) => [`${line}: first\r\n`, `${line}: second\r\n`]);
    const child = pipedConsole(target, 'ask\r', ['--linger', '4s']);
    expect(await child.exit()).toEqual({ code: 0, signal: null });
    expect(child.stdout()).toBe('ask: first\r\nask: second\r\n');

    const bad = pipedConsole(target, '', ['--linger', 'soon']);
    expect(await bad.exit()).toEqual({ code: 2, signal: null });
    expect(bad.stderr().trim().split('\n')).toHaveLength(1);
    expect(bad.stderr()).toMatch(/--linger.*invalid duration "soon"/);
  });
});
