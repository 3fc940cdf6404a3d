import { afterAll, describe, expect, it } from 'vitest';
import { ProcessLab, runProgram } from './support/processes.js';
import { startSshd } from './support/sshd.js';
import { E2E_SETUP_TIMEOUT_MS, E2E_TEST_TIMEOUT_MS, gatedTitle, requireTools } from './support/tools.js';

const gate = requireTools(['sshd', 'ssh', 'ssh-keygen']);
const lab = new ProcessLab();
afterAll(() => lab.cleanup(), E2E_SETUP_TIMEOUT_MS);

describe.skipIf(gate.skip)(gatedTitle('the test sshd (test/e2e/support/sshd.ts)', gate), () => {
  it(
    'runs a command through a real OpenSSH session with only the key it was given, and refuses an unknown host key',
    async () => {
      const sshd = await startSshd(lab);
      const run = await runProgram('ssh', ['-F', sshd.configFile, sshd.hostAlias, 'echo', 'through-sshd']);
      expect(run.stdout.trim()).toBe('through-sshd');
      expect(await sshd.log()).toMatch(/Accepted publickey for/);
      // The client config pins the host key: a changed one is refused, so tests never trust a stranger.
      const stranger = await runProgram('ssh', ['-F', sshd.configFile, '-o', 'UserKnownHostsFile=/dev/null', sshd.hostAlias, 'true']);
      expect(stranger.code).not.toBe(0);
    },
    E2E_TEST_TIMEOUT_MS,
  );
});
