// A flag appears only on commands where it acts: each command's --help offers exactly the
// provider options that do something there, and one that means nothing there is refused as an
// unknown option (exit 2) rather than accepted and ignored.
import { describe, expect, it } from 'vitest';
import { PROVIDER_OPTIONS } from '../../src/targets/option-groups.js';
import { runVconsole } from '../support/cli.js';

/** The long spelling of every provider option --help lists (the hidden aliases are not listed). */
const DECLARED = PROVIDER_OPTIONS.filter((option) => !option.hidden).map((option) => /--[a-z-]+/.exec(option.flags)![0]);

const TARGET = [
  '--kubeconfig',
  '--context',
  '--namespace',
  '--as',
  '--as-group',
  '--request-timeout',
  '--cloud',
  '--os-region',
  '--os-interface',
  '--pve-url',
  '--pve-token-file',
  '--pve-user',
  '--pve-password-file',
  '--connect',
  '--insecure',
  '--ca',
];
const SELECTORS = [
  '--selector',
  '--all-namespaces',
  '--os-filter',
  '--os-tag',
  '--pve-node',
  '--pve-pool',
  '--pve-tag',
  '--libvirt-filter',
  '--libvirt-all',
];

/** Per command, the provider options it offers; --preserve-session only where a KubeVirt VNC session is held. */
const OFFERED: Record<string, string[]> = {
  proxy: [...TARGET, '--preserve-session', ...SELECTORS],
  open: [...TARGET, '--preserve-session', ...SELECTORS],
  console: TARGET,
  screenshot: TARGET,
  list: [...TARGET, ...SELECTORS],
  viewers: [],
  replay: [],
};

/** The long flags a command's --help-all lists (its --help leaves the providers' to it). */
async function helpFlags(command: string): Promise<string[]> {
  const help = await runVconsole([command, '--help-all']);
  expect(help.code).toBe(0);
  return [...help.stdout.matchAll(/^ {2}(?:-[A-Za-z], )?(--[a-z-]+)/gm)].map((m) => m[1]);
}

describe('the flags each command offers', () => {
  it.each(Object.entries(OFFERED))('%s offers the provider options that act there, and no other', async (command, offered) => {
    const flags = await helpFlags(command);
    expect(flags.filter((flag) => DECLARED.includes(flag)).sort(), command).toEqual([...offered].sort());
  });

  it('refuses --preserve-session where it would mean nothing, as an unknown option', async () => {
    for (const args of [['list'], ['console', 'demo:vm-a#serial'], ['screenshot', 'demo:vm-a']]) {
      const result = await runVconsole([...args, '--preserve-session']);
      expect(result.code, args[0]).toBe(2);
      expect(result.stderr, args[0]).toMatch(/^vconsole: unknown option '--preserve-session'/);
    }
  });
});
