// `vconsole wait` through the CLI, against the demo consoles: a screen's text read with OCR (from
// the installed English model, with no network at all), a serial line's output and the scrollback
// a held line keeps, several consoles, --any, the timeout's line and exit 1, usage errors, and the
// one session: waiting beside an open viewer kicks nobody.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { startKubevirtFixture, type KubevirtFixture } from '../fixtures/kubevirt-api.js';
import { startDemoRfbServer } from '../../src/rfb/demo/server.js';
import { runVconsole, VCONSOLE_BIN } from '../support/cli.js';
import { test as it } from '../support/fixtures.js';
import { liveScreen } from '../support/live-screen.js';

/** A name no other test's demo console has: a held console is found by its name. */
const unique = (label: string) => `demo:${label}-${process.pid}`;

/** Whether this machine lets an unprivileged process have a network namespace of its own (no network in it). */
const canUnshare = spawnSync('unshare', ['-rn', 'true']).status === 0;

describe('vconsole wait', () => {
  it.skipIf(!canUnshare)(
    "reads a screen's text with OCR from the installed model, with no network, writing nothing where it runs",
    async ({ tmpDir }) => {
      // Loopback only: the demo console is served there, nothing leaves the machine.
      const wait = [process.execPath, VCONSOLE_BIN, 'wait', 'demo:vm-a', '--for', 'demo console', '--timeout', '2m'];
      const run = spawnSync('unshare', ['-rn', 'sh', '-c', 'ip link set lo up && exec "$@"', 'sh', ...wait], {
        cwd: tmpDir,
        env: { PATH: process.env.PATH, HOME: process.env.HOME, HTTPS_PROXY: 'http://127.0.0.1:9', HTTP_PROXY: 'http://127.0.0.1:9' },
        encoding: 'utf8',
      });
      expect(run.status, run.stderr).toBe(0);
      expect(run.stdout).toMatch(/^.*demo console\n$/);
      expect(run.stderr).toBe('');
      // tesseract.js caches a fetched model in the working directory unless told not to.
      expect(fs.readdirSync(tmpDir)).toEqual([]);
    },
  );

  it('waits through the session an open holds: the text typed later is read, the viewer kept, one console connection', async ({
    cleanup,
    vconsole,
  }) => {
    const server = await startDemoRfbServer({ name: 'vm-w', host: '127.0.0.1', port: 0 });
    cleanup.add(() => server.close());
    const target = `tcp://127.0.0.1:${server.port}`;
    const open = vconsole.start(['open', target, '--no-tui', '--viewer', 'none']);
    const [{ port }] = await open.jsonLines(1);
    const view = await liveScreen(net.connect({ host: '127.0.0.1', port: port as number }), { shared: false }, cleanup);
    const waiting = vconsole.start(['wait', target, '--for', 'released', '--timeout', '2m']);
    await open.waitForStderr(/another vconsole of yours joined/);
    // Only once the wait has the screen does the text appear: it must read the screen again.
    const typed = await runVconsole(['type', target, '--', 'q']);
    expect(typed.code, typed.stderr).toBe(0);
    expect(await waiting.exit()).toMatchObject({ code: 0 });
    expect(waiting.stdout()).toMatch(/^key: .*released\n$/);
    expect(view.closed()).toBe(false);
    expect(server.clients).toBe(1);
  });

  it('waits for a serial line: the matching line on stdout, exit 0', async () => {
    const run = await runVconsole(['wait', `${unique('serial')}#serial`, '--for', 'login:']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe(`serial-${process.pid} login: root (automatic login)\n`);
  });

  it('waits for every console, each line after its name; a timeout names those that did not show it, exit 1', async () => {
    const [a, b] = [`${unique('every-a')}#serial`, `${unique('every-b')}#serial`];
    const both = await runVconsole(['wait', a, b, '--for', 'Welcome']);
    expect(both.code, both.stderr).toBe(0);
    expect(both.stdout.split('\n').sort()).toEqual([
      '',
      `${a}: Welcome to every-a-${process.pid}, a vconsole demo VM. Type help.`,
      `${b}: Welcome to every-b-${process.pid}, a vconsole demo VM. Type help.`,
    ]);
    const one = await runVconsole(['wait', a, b, '--for', `every-a-${process.pid} login`, '--timeout', '2s']);
    expect(one.code).toBe(1);
    expect(one.stdout).toMatch(new RegExp(`^${a}: every-a-\\d+ login: root`));
    expect(one.stderr).toBe(`vconsole: /every-a-${process.pid} login/ did not appear within 2s on ${b}\n`);
    const any = await runVconsole(['wait', a, b, '--for', `every-a-${process.pid} login`, '--timeout', '1m', '--any']);
    expect(any.code, any.stderr).toBe(0);
    expect(any.stdout).toMatch(new RegExp(`^${a}: every-a-\\d+ login: root \\(automatic login\\)\\n$`));
    expect(any.stderr).toBe('');
  });

  it('refuses what it cannot wait for in one line, exit 2', async () => {
    const badRegex = await runVconsole(['wait', 'demo:vm-a', '--for', 'login: (']);
    expect(badRegex.code).toBe(2);
    expect(badRegex.stderr).toMatch(/^vconsole: --for login: \( is not a regular expression: [^\n]*Unterminated group[^\n]*\n$/);
    const noFor = await runVconsole(['wait', 'demo:vm-a']);
    expect(noFor.code).toBe(2);
    expect(noFor.stderr).toMatch(/^vconsole: required option '--for <regex>' not specified\n$/);
    const sinceScreen = await runVconsole(['wait', 'demo:vm-a', '--for', 'x', '--since', 'now']);
    expect(sinceScreen.code).toBe(2);
    expect(sinceScreen.stderr).toMatch(/^vconsole: --since is for serial lines, and demo:vm-a is a screen;/);
    const badTimeout = await runVconsole(['wait', 'demo:vm-a', '--for', 'x', '--timeout', 'soon']);
    expect(badTimeout.code).toBe(2);
    expect(badTimeout.stderr.split('\n')).toHaveLength(2);
  });
});

describe('vconsole wait on a KubeVirt serial console another vconsole holds', () => {
  let fixture: KubevirtFixture;
  beforeAll(async () => {
    fixture = await startKubevirtFixture({ vmis: [{ namespace: 'default', name: 'held', graphics: false }] });
  });
  afterAll(async () => {
    await fixture?.close();
  });
  const serialUpgrades = () => fixture.requests.filter((r) => r.upgrade && r.path.endsWith('/held/console')).length;

  it('matches the prompt the held line already printed, and with --since now only what comes after; the one session kept', async ({
    vconsole,
  }) => {
    const env = { KUBECONFIG: fixture.kubeconfigPath() };
    const holder = vconsole.start(['proxy', 'held#serial', '--share'], env);
    await holder.jsonLines(1);
    // The fixture greets with `login: `, no newline after it: a prompt.
    const scrollback = await runVconsole(['wait', 'held#serial', '--for', '^login: ?$', '--timeout', '1m'], env);
    expect(scrollback.code, scrollback.stderr).toBe(0);
    expect(scrollback.stdout).toBe('login:\n');
    const sinceNow = await runVconsole(['wait', 'held#serial', '--for', 'login:', '--since', 'now', '--timeout', '3s'], env);
    expect(sinceNow.code).toBe(1);
    expect(sinceNow.stderr).toBe('vconsole: /login:/ did not appear within 3s on default/held#serial\n');
    // What is printed after the wait began is seen (the console echoes what is typed into it).
    const later = vconsole.start(['wait', 'held#serial', '--for', 'echo later', '--since', 'now', '--timeout', '2m'], env);
    for (let tries = 0; later.process.exitCode === null && tries < 100; tries++) {
      const typed = await runVconsole(['type', 'held#serial', '--', 'echo later'], env);
      expect(typed.code, typed.stderr).toBe(0);
    }
    expect(await later.exit()).toMatchObject({ code: 0 });
    expect(later.stdout()).toMatch(/echo later/);
    expect(serialUpgrades()).toBe(1);
  });
});
