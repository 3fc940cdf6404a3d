import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { connect as netConnect, type Socket } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import WebSocket, { WebSocketServer } from 'ws';
import { VCONSOLE_BIN, startVconsole, type RunningVconsole } from '../support/cli.js';
import { waitFor } from '../support/wait.js';
import { skipWithoutPrograms } from '../support/programs.js';

// How a serial console's end reaches the user, for every way a websocket console proxy
// (websockify, nova-serialproxy) can end one: a close frame, a TCP close without one right
// after the upgrade (a refused token), a reset, silence (no pong). The proxy here is a node ws
// server that does each on cue; the real websockify in front of QEMU is in
// test/e2e/serial-console.e2e.test.ts.

type Ending = 'target-closed' | 'refused' | 'reset' | 'silent';

let proxy: WebSocketServer;
let port: number;
/** The console each connection got, by its token. */
const consoles = new Map<Ending, WebSocket>();
const running: RunningVconsole[] = [];

beforeAll(async () => {
  proxy = new WebSocketServer({ port: 0, host: '127.0.0.1', perMessageDeflate: false, handleProtocols: () => 'binary' });
  proxy.on('connection', (ws, req) => {
    const ending = new URL(req.url ?? '/', 'ws://x').searchParams.get('token') as Ending;
    ws.on('error', () => undefined);
    consoles.set(ending, ws);
    // nova-serialproxy answers 101, checks the token, then drops the connection without a frame.
    if (ending === 'refused') return ws.terminate();
    ws.send('login: ');
  });
  await once(proxy, 'listening');
  port = (proxy.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((done) => proxy.close(() => done())));
afterEach(() => {
  while (running.length) running.pop()!.kill();
  for (const ws of consoles.values()) ws.terminate();
  consoles.clear();
});

const url = (ending: Ending) => `ws://127.0.0.1:${port}/?token=${ending}`;

function start(args: string[], env: NodeJS.ProcessEnv = {}): RunningVconsole {
  const child = startVconsole(args, env);
  running.push(child);
  return child;
}

/** Ends the console the way `ending` names, once vconsole holds it. */
async function endConsole(ending: Ending): Promise<void> {
  await waitFor(() => consoles.get(ending)?.readyState === WebSocket.OPEN, `vconsole to open the ${ending} console`, 20_000);
  const ws = consoles.get(ending)!;
  const socket = (ws as unknown as { _socket: Socket })._socket;
  if (ending === 'target-closed') ws.close(1000, 'Target closed');
  else if (ending === 'reset') socket.resetAndDestroy();
  // Silent: the proxy stops reading, so vconsole's pings go unanswered.
  else if (ending === 'silent') socket.pause();
}

const said: Record<Exclude<Ending, 'refused'>, RegExp> = {
  'target-closed': /the console closed: Target closed \(the VM stopped\?\)/,
  reset: /the console's connection was reset/,
  silent: /the console stopped answering: no answer to 2 keep-alive pings/,
};

describe('console, piped, when the console ends', () => {
  it.each(['target-closed', 'reset', 'silent'] as const)(
    '%s: one line on stderr, exit 1, stdin left open and not awaited',
    async (ending) => {
      // A short keep-alive only where the silent console is the point: with it, the fake console
      // (in this busy test process) would have to answer every ping within ~600 ms, and a stall
      // would turn a close or a reset into "no answer to 2 keep-alive pings".
      const run = start(['console', url(ending)], ending === 'silent' ? { VCONSOLE_KEEPALIVE_MS: '300' } : {});
      await waitFor(() => run.stdout().includes('login: '), "the console's first words on stdout", 20_000);
      await endConsole(ending);
      // stdin stays open: vconsole must not wait for it once the console is gone.
      const { code } = await run.exit();
      expect(code).toBe(1);
      const lines = run.stderr().trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(said[ending]);
      expect(lines[0]).not.toMatch(/readyState|token=/);
    },
  );

  it('a console refused right after the upgrade (101, then a close without a frame) is a refusal, not a session', async () => {
    const run = start(['console', url('refused')]);
    const { code } = await run.exit();
    expect(code).toBe(1);
    expect(run.stderr().trim().split('\n')).toEqual([
      expect.stringMatching(/the console was refused right after the upgrade: the token is wrong or expired/),
    ]);
    expect(run.stderr()).not.toMatch(/connected|token=refused/);
  });
});

describe('proxy, when a serial console ends under a client', () => {
  it('the client is hung up on and the log says how the console ended', async () => {
    const run = start(['proxy', url('target-closed'), '--type', 'serial']);
    const [line] = await run.jsonLines(1);
    const client = netConnect(line.port as number, '127.0.0.1');
    client.on('error', () => undefined);
    client.resume();
    await endConsole('target-closed');
    await once(client, 'close');
    await run.waitForStderr(/client 1 disconnected: the console closed: Target closed \(the VM stopped\?\)/);
    expect(run.stderr()).not.toMatch(/the console closed the connection/);
  });
});

describe('open --no-tui, when a serial console ends', () => {
  it.each(['target-closed', 'reset'] as const)('%s: the line in its log says how, at once', async (ending) => {
    const run = start(['open', url(ending), '--type', 'serial', '--no-tui', '--viewer', 'none']);
    await run.jsonLines(1);
    await endConsole(ending);
    await run.waitForStderr(said[ending]);
    expect(run.stderr()).not.toMatch(/readyState|token=/);
  });

  it('refused right after the upgrade: the log says so', async () => {
    const run = start(['open', url('refused'), '--type', 'serial', '--no-tui', '--viewer', 'none']);
    await run.waitForStderr(/the console was refused right after the upgrade/);
    expect(run.stderr()).not.toMatch(/token=refused/);
  });
});

/** util-linux `script` gives vconsole a pseudo-terminal: stdin is a TTY, as on a desk. */
const withoutScript = skipWithoutPrograms(['script']);

interface Terminal {
  screen(): string;
  exit(): Promise<number | null>;
}
const terminals: ChildProcess[] = [];
afterEach(() => {
  while (terminals.length) terminals.pop()!.kill('SIGKILL');
});

/** `vconsole console URL` on a pseudo-terminal; `script -e` exits with vconsole's status. */
function attached(ending: Ending): Terminal {
  const command = [process.execPath, VCONSOLE_BIN, 'console', url(ending)].map((a) => `'${a}'`).join(' ');
  const child = spawn('script', ['-qefc', command, '/dev/null'], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, TERM: 'xterm' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  terminals.push(child);
  let screen = '';
  child.stdout.on('data', (d: Buffer) => (screen += d.toString()));
  const exited = once(child, 'close').then(([code]) => code as number | null);
  return { screen: () => screen, exit: () => exited };
}

describe.skipIf(withoutScript !== undefined)(
  `console on a terminal, when the console ends${withoutScript ? ` [skipped: ${withoutScript}]` : ''}`,
  () => {
    it('a close frame mid-session: the line at once, exit 1, no key press needed', async () => {
      const run = attached('target-closed');
      await waitFor(() => /connected to .*press \^\] to leave/.test(run.screen()), 'the connected banner', 20_000);
      await endConsole('target-closed');
      expect(await run.exit()).toBe(1);
      expect(run.screen()).toMatch(said['target-closed']);
      expect(run.screen()).not.toMatch(/readyState/);
    });

    it('refused right after the upgrade: never says connected', async () => {
      const run = attached('refused');
      expect(await run.exit()).toBe(1);
      expect(run.screen()).toMatch(/the console was refused right after the upgrade/);
      expect(run.screen()).not.toMatch(/connected to/);
    });
  },
);
