import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startKubevirtFixture, type KubevirtFixture } from '../fixtures/kubevirt-api.js';
import { VCONSOLE_BIN, runVconsole, type RunResult } from '../support/cli.js';
import { waitFor } from '../support/wait.js';

// `type`, `send` and `power` with --via act on the far side: the far agent resolves the VM and
// runs the action there (its `capability` request), with the far side's kubeconfig and state.
// The "ssh" is a stand-in that runs the far command here (as via-cli.test.ts's); the same
// through a real sshd: test/e2e/via-ssh.e2e.test.ts.

const FAKE_SSH = `#!/bin/sh
while [ $# -gt 1 ]; do shift; done
eval "exec $1"
`;

let dir: string;
let fixture: KubevirtFixture;
let serialServer: net.Server;
/** What reached the far VMI's serial console, as its QEMU socket got it. */
let serialBytes = '';

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'vconsole-acting-via-'));
  writeFileSync(path.join(dir, 'fake-ssh.sh'), FAKE_SSH, { mode: 0o755 });
  const serialSocketPath = path.join(dir, 'serial.sock');
  serialServer = net.createServer((socket) => {
    socket.on('error', () => undefined);
    socket.write('login: ');
    socket.on('data', (chunk: Buffer) => (serialBytes += chunk.toString('latin1')));
  });
  await new Promise<void>((resolve) => serialServer.listen(serialSocketPath, resolve));
  fixture = await startKubevirtFixture({ vmis: [{ namespace: 'default', name: 'far-serial', graphics: false, serialSocketPath }] });
});
afterAll(async () => {
  await fixture?.close();
  serialServer?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** `vconsole COMMAND --via bastion ARGS` (before any `--`): the far side has the fixture's kubeconfig and its own state directory. */
function viaRun([command, ...args]: string[]): Promise<RunResult> {
  return runVconsole([command, '--via', 'bastion', ...args], {
    HOME: path.join(dir, 'home'),
    KUBECONFIG: fixture.kubeconfigPath(),
    XDG_STATE_HOME: path.join(dir, 'state'),
    VCONSOLE_SSH_COMMAND: path.join(dir, 'fake-ssh.sh'),
    VCONSOLE_VIA_COMMAND: `${process.execPath} ${VCONSOLE_BIN}`,
  });
}

describe.skipIf(process.platform !== 'linux')('type, send and power over --via', () => {
  it('type and send reach the far VM serial console, byte for byte, one action line each', async () => {
    const typed = await viaRun(['type', 'far-serial#serial', '--', 'echo far']);
    expect(typed.code, typed.stderr).toBe(0);
    expect(typed.stderr).toMatch(/default\/far-serial#serial: typed 8 characters/);
    expect(typed.stderr).not.toContain('echo far');
    await waitFor(() => serialBytes.includes('echo far'), 'the typed line at the far serial console');
    const sent = await viaRun(['send', 'far-serial#serial', 'ctrl-c']);
    expect(sent.code, sent.stderr).toBe(0);
    await waitFor(() => serialBytes.endsWith('\x03'), 'ctrl-c at the far serial console');
  });

  it('power acts on the far demo VM: the state it leaves is the far side one', async () => {
    const stopped = await viaRun(['power', 'demo:vm-far', 'stop', '--yes']);
    expect(stopped.code, stopped.stderr).toBe(0);
    expect(stopped.stderr).toMatch(/demo:vm-far: power stop: stopped \(was running\)/);
    const state = JSON.parse(readFileSync(path.join(dir, 'state', 'vconsole', 'demo-power.json'), 'utf8')) as Record<string, string>;
    expect(state).toMatchObject({ 'vm-far': 'Stopped' });
  });

  it('a far console without the capability: one line from the far side, exit 2, nothing done', async () => {
    const result = await viaRun(['power', 'tcp://127.0.0.1:5999', 'stop', '--yes']);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      'vconsole: tcp://127.0.0.1:5999: vconsole cannot change the power of a tcp console; name a VM of a cloud or hypervisor\n',
    );
  });
});
