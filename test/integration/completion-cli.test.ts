// Shell completion as a shell runs it: bash sources `vconsole completion bash`, fills
// COMP_WORDS as at a Tab and calls the completion function, which asks the built CLI. Commands,
// flags, VM names the providers list (the demo's) and the config file's aliases complete. Names
// that need listing come from the completion cache, which the first Tab has refreshed in the
// background for the next one (test/integration/completion-cache-cli.test.ts tests the cache).
import { execFile, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startKubevirtFixture, type KubevirtFixture } from '../fixtures/kubevirt-api.js';
import { VCONSOLE_BIN, runVconsole } from '../support/cli.js';
import { refreshesDone } from '../support/completion-cache.js';

const run = promisify(execFile);

/**
 * bash-completion when the package is installed, else stand-ins for the two helpers the script
 * uses: the words as typed (COMP_WORDS holds them unsplit here), and dropping from each offer
 * the part before the typed word's last colon, which bash keeps on the line.
 */
const BASH_COMPLETION = '/usr/share/bash-completion/bash_completion';
const HELPERS = fs.existsSync(BASH_COMPLETION)
  ? `source ${BASH_COMPLETION}`
  : [
      '_get_comp_words_by_ref() { cur=${COMP_WORDS[COMP_CWORD]}; prev=${COMP_WORDS[COMP_CWORD-1]}; words=("${COMP_WORDS[@]}"); cword=$COMP_CWORD; }',
      '__ltrim_colon_completions() { [[ $1 == *:* ]] || return 0; local kept=${1%:*}:; COMPREPLY=("${COMPREPLY[@]/#"$kept"/}"); }',
    ].join('\n');

let dir: string;
let fixture: KubevirtFixture;

beforeAll(async () => {
  fixture = await startKubevirtFixture({
    vmis: [
      { namespace: 'default', name: 'vm-a' },
      { namespace: 'prod', name: 'db-1' },
    ],
  });
  // `vconsole` on PATH, as the script calls it by name; a config file with an alias and a workspace.
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vconsole-completion-'));
  fs.mkdirSync(path.join(dir, 'bin'));
  fs.writeFileSync(path.join(dir, 'bin', 'vconsole'), `#!/bin/sh\nexec "${process.execPath}" "${VCONSOLE_BIN}" "$@"\n`, { mode: 0o755 });
  fs.mkdirSync(path.join(dir, '.config', 'vconsole'), { recursive: true });
  fs.writeFileSync(
    path.join(dir, '.config', 'vconsole', 'config.yaml'),
    'aliases:\n  web: demo:web-1\nworkspaces:\n  lab:\n    targets: [demo:vm-a]\n',
  );
});
afterAll(async () => {
  await fixture?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** What bash offers at a Tab after `words` (the last one being typed). */
async function complete(...words: string[]): Promise<string[]> {
  return completeWith({}, ...words);
}

/** What bash offers at a second Tab, once the refresh the first one started is done. */
async function completeRefreshed(env: NodeJS.ProcessEnv, ...words: string[]): Promise<string[]> {
  await completeWith(env, ...words);
  await refreshesDone(dir);
  return completeWith(env, ...words);
}

async function completeWith(env: NodeJS.ProcessEnv, ...words: string[]): Promise<string[]> {
  const script = [
    HELPERS,
    'source <(vconsole completion bash)',
    `COMP_WORDS=(vconsole ${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length}`,
    // What bash-completion's helpers read besides COMP_WORDS, when the package is there.
    `COMP_LINE='vconsole ${words.join(' ')}'; COMP_POINT=\${#COMP_LINE}`,
    // The function the script registers for vconsole.
    'registered=$(complete -p vconsole); registered=${registered#*-F }; ${registered%% *} 2>/dev/null',
    'printf "%s\\n" "${COMPREPLY[@]}"',
  ].join('\n');
  const { stdout } = await run('bash', ['-c', script], {
    env: {
      PATH: `${path.join(dir, 'bin')}${path.delimiter}${process.env.PATH ?? ''}`,
      HOME: dir,
      XDG_CONFIG_HOME: path.join(dir, '.config'),
      ...env,
    },
  });
  return stdout.split('\n').filter(Boolean);
}

describe('vconsole completion bash', () => {
  it('completes a command', async () => {
    expect(await complete('op')).toEqual(['open']);
    expect(await complete('comp')).toEqual(['completion']);
  });

  it("completes a command's flags and the values a flag takes", async () => {
    expect(await complete('open', '--sh')).toEqual(['--share']);
    expect(await complete('list', '-o', '')).toEqual(['json', 'yaml', 'wide', 'name']);
    expect(await complete('open', '--viewer', 'tige')).toEqual(['tigervnc']);
    expect(await complete('open', '--type', '')).toEqual(expect.arrayContaining(['vnc', 'serial']));
  });

  it('completes VM names from the listing providers, and the config file aliases and workspaces', async () => {
    const names = await completeRefreshed({}, 'open', '');
    expect(names).toEqual(expect.arrayContaining(['demo:vm-a', 'demo:vm-b', 'demo:vm-c', 'web', '@lab']));
    // bash keeps `demo:` on the line (a colon breaks words): what follows it is offered.
    expect(await complete('vnc', 'demo:vm-')).toEqual(['vm-a', 'vm-b', 'vm-c']);
  });

  it("completes KubeVirt VMs from where the line's -n and -A say, as kubectl completes with -n", async () => {
    const kube = { KUBECONFIG: fixture.kubeconfigPath() };
    const here = await completeRefreshed(kube, 'console', '');
    expect(here).toContain('default/vm-a');
    expect(here).not.toContain('prod/db-1');
    const prod = await completeRefreshed(kube, 'open', '-n', 'prod', '');
    expect(prod).toContain('prod/db-1');
    expect(prod).not.toContain('default/vm-a');
    expect(await completeRefreshed(kube, 'proxy', '-A', '')).toEqual(expect.arrayContaining(['default/vm-a', 'prod/db-1']));
  });

  it('answers when a cluster never does: its VMs are left out, the others offered', async () => {
    // A Kubernetes API that accepts connections and never says a word.
    const silent = net.createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as net.AddressInfo;
    const kubeconfig = path.join(dir, 'silent.kubeconfig');
    fs.writeFileSync(
      kubeconfig,
      `apiVersion: v1\nkind: Config\nclusters:\n- name: s\n  cluster:\n    server: https://127.0.0.1:${port}\n    insecure-skip-tls-verify: true\n` +
        'users:\n- name: u\n  user:\n    token: t\ncontexts:\n- name: c\n  context:\n    cluster: s\n    user: u\ncurrent-context: c\n',
    );
    try {
      // How soon is the listing deadline's business, tested on a fake clock (src/commands/completion-targets.test.ts):
      // a wall-clock bound here failed on a loaded machine.
      expect(await completeWith({ KUBECONFIG: kubeconfig }, 'open', 'demo:vm-')).toEqual(['vm-a', 'vm-b', 'vm-c']);
    } finally {
      silent.close();
    }
  });

  it('prints a script for zsh and fish too, and refuses another shell in one line', async () => {
    for (const shell of ['zsh', 'fish']) {
      const result = await runVconsole(['completion', shell]);
      expect(result.code).toBe(0);
      expect(result.stdout).toContain('vconsole complete --');
      // Where the shell is installed (scripts/e2e-deps.sh installs both), the script must parse.
      const installed = spawnSync('sh', ['-c', `command -v ${shell}`]).status === 0;
      if (installed) {
        const script = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'vconsole-completion-')), `vconsole.${shell}`);
        fs.writeFileSync(script, result.stdout);
        const parsed = spawnSync(shell, ['-n', script], { encoding: 'utf8' });
        fs.rmSync(path.dirname(script), { recursive: true, force: true });
        expect(parsed.status, `${shell} -n: ${parsed.stderr}`).toBe(0);
      }
    }
    const tcsh = await runVconsole(['completion', 'tcsh']);
    expect(tcsh.code).toBe(2);
    expect(tcsh.stderr).toMatch(
      /^vconsole: command-argument value 'tcsh' is invalid for argument 'shell'\. Allowed choices are bash, zsh, fish, powershell\.\n$/,
    );
  });
});
