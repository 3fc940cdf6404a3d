// Shell completion never runs a VM's name (issue 36): whoever can name a VM the operator lists
// chooses the candidates, so real bash, zsh and fish complete names such as `$(touch${IFS}FILE)`
// literally, quoted for the line, and create no file; a name holding a newline is not offered.
// The names come from a fake OpenStack (any server name) and a fake `virsh` on PATH (libvirt),
// through the completion cache a first Tab fills.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { fixtureOpenrc, startOpenStackFixture, type OpenStackFixture } from '../fixtures/openstack-api.js';
import { VCONSOLE_BIN } from '../support/cli.js';
import { refreshesDone } from '../support/completion-cache.js';

const run = promisify(execFile);

/** Names that run a command wherever a shell expands or evaluates them, and two that merely need quoting. */
const HOSTILE = ['$(touch${IFS}FILE)', '`touch FILE2`', 'a;touch FILE3', "it's", 'with space'];
/** A name a line-reading shell would take for two candidates, the second of them a command. */
const NEWLINE = 'two\n$(touch${IFS}FILE4)';
const OFFERED = ['web-1', ...HOSTILE].map((name) => `openstack:${name}`);
/** Each name as bash's printf %q quotes it for the line, less the `openstack:` bash keeps there. */
const BASH_QUOTED = ['web-1', '\\$\\(touch\\$\\{IFS\\}FILE\\)', '\\`touch\\ FILE2\\`', 'a\\;touch\\ FILE3', "it\\'s", 'with\\ space'];

const BASH_COMPLETION = '/usr/share/bash-completion/bash_completion';
const installed = (program: string) => fs.existsSync(`/usr/bin/${program}`) || fs.existsSync(`/bin/${program}`);

let dir: string;
/** Where each shell runs: a file a name creates would appear here. */
let work: string;
let cloud: OpenStackFixture;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  cloud = await startOpenStackFixture({
    servers: ['web-1', ...HOSTILE, NEWLINE, 'tab\there'].map((name, i) => ({
      id: `c0ffee00-0000-4000-8000-00000000000${i}`,
      name,
      status: 'ACTIVE',
    })),
  });
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vconsole-completion-literal-'));
  work = path.join(dir, 'work');
  fs.mkdirSync(work);
  fs.mkdirSync(path.join(dir, 'bin'));
  fs.writeFileSync(path.join(dir, 'bin', 'vconsole'), `#!/bin/sh\nexec "${process.execPath}" "${VCONSOLE_BIN}" "$@"\n`, { mode: 0o755 });
  // virsh list --all as libvirt prints it, with a domain named to run a command.
  const rows = ['web1', '$(touch${IFS}FILE5)'].map((name) => ` -    ${name.padEnd(30)} shut off`).join('\n');
  fs.writeFileSync(
    path.join(dir, 'bin', 'virsh'),
    `#!/bin/sh\ncat <<'EOF'\n Id   Name                           State\n${'-'.repeat(48)}\n${rows}\nEOF\n`,
    {
      mode: 0o755,
    },
  );
  fs.mkdirSync(path.join(dir, '.config', 'vconsole'), { recursive: true });
  fs.writeFileSync(path.join(dir, '.config', 'vconsole', 'config.yaml'), 'aliases: {}\n');
  env = {
    PATH: `${path.join(dir, 'bin')}${path.delimiter}${process.env.PATH ?? ''}`,
    HOME: dir,
    XDG_CONFIG_HOME: path.join(dir, '.config'),
    LANG: 'C.UTF-8',
    ...fixtureOpenrc(cloud),
  };
  // Names come from the completion cache: a first Tab has them listed in the background.
  await run(path.join(dir, 'bin', 'vconsole'), ['complete', '--', 'open', ''], { env, cwd: work });
  await refreshesDone(dir);
});
afterAll(async () => {
  await cloud?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});
afterEach(() => {
  // No name ran: nothing was created where the shell ran (and the next test starts from nothing).
  const created = fs.readdirSync(work);
  for (const name of created) fs.rmSync(path.join(work, name), { recursive: true, force: true });
  expect(created).toEqual([]);
});

/** `text` as one bash word, single-quoted. */
const bashWord = (text: string) => `'${text.replaceAll("'", "'\\''")}'`;

/**
 * What bash offers at a Tab after `vconsole WORDS` (the last one being typed, as typed, quoting
 * included). COMP_WORDS is cut as bash cuts it, at `:` and `=` (COMP_WORDBREAKS).
 */
async function bashComplete(...words: string[]): Promise<string[]> {
  const line = ['vconsole', ...words].join(' ');
  const compWords = ['vconsole', ...words.flatMap((word) => word.split(/([:=]+)/).filter(Boolean))];
  const script = [
    `source ${BASH_COMPLETION}`,
    'source <(vconsole completion bash)',
    `COMP_WORDS=(${compWords.map(bashWord).join(' ')}); COMP_CWORD=${compWords.length - 1}`,
    `COMP_LINE=${bashWord(line)}; COMP_POINT=\${#COMP_LINE}`,
    'registered=$(complete -p vconsole); registered=${registered#*-F }; ${registered%% *}',
    'printf "%s\\n" "${COMPREPLY[@]}"',
  ].join('\n');
  const { stdout } = await run('bash', ['-c', script], { env, cwd: work });
  return stdout.split('\n').filter(Boolean);
}

describe.skipIf(!fs.existsSync(BASH_COMPLETION))('bash completes VM names literally', () => {
  it('offers every name quoted for the line and runs none; a name with a newline is not offered', async () => {
    expect((await bashComplete('open', 'openstack:')).sort()).toEqual([...BASH_QUOTED].sort());
    expect(await bashComplete('open', 'openstack:two')).toEqual([]);
    expect(await bashComplete('open', 'libvirt:')).toEqual(['\\$\\(touch\\$\\{IFS\\}FILE5\\)', 'web1']);
  });

  it('compares what is typed, quoting and all, with each name as plain text', async () => {
    expect(await bashComplete('open', 'openstack:it')).toEqual(["it\\'s"]);
    expect(await bashComplete('console', 'openstack:\\$')).toEqual([BASH_QUOTED[1]]);
    expect(await bashComplete('open', 'openstack:with\\ ')).toEqual(['with\\ space']);
  });

  it('puts each on the line as a word bash reads back as the name', async () => {
    const offered = await bashComplete('open', 'openstack:');
    // The line as it stands once the Tab has put a name after `openstack:`, read as bash reads a command.
    const script = offered.map((word) => `set -- vconsole open openstack:${word}; printf '%s\\n' "$3"`).join('\n');
    const { stdout } = await run('bash', ['-c', script], { env, cwd: work });
    expect(stdout.split('\n').filter(Boolean).sort()).toEqual([...OFFERED].sort());
  });

  it('still completes commands, flags and a flag=value', async () => {
    expect(await bashComplete('op')).toEqual(['open']);
    expect(await bashComplete('open', '--viewer=tige')).toEqual(['tigervnc']);
  });
});

/**
 * What zsh does at a Tab after each of `lines`, in one interactive `zsh -f` on a pseudo-terminal
 * (zpty) with compinit and the script: the candidates compadd took (unquoted), then the line
 * as the Tab left it.
 */
async function zshComplete(lines: string[]): Promise<{ offered: string[]; line: string }[]> {
  const log = path.join(dir, 'zsh.log');
  const scriptFile = path.join(dir, '_vconsole');
  fs.writeFileSync(scriptFile, (await run('vconsole', ['completion', 'zsh'], { env })).stdout);
  fs.rmSync(log, { force: true });
  const setup = [
    `PS1='> '; autoload -Uz compinit; compinit -u -D; source ${bashWord(scriptFile)}`,
    // Each candidate compadd is given, as the matching leaves them, logged before zsh takes them.
    `compadd() { local -a found; builtin compadd -O found "$@"; print -rl -- \${found/#/m } >> ${bashWord(log)}; builtin compadd "$@"; }`,
    `logline() { print -r -- "b $BUFFER" >> ${bashWord(log)}; BUFFER=''; zle -I; print DO""NE; }; zle -N logline; bindkey '^X' logline`,
  ];
  const driver = [
    'zmodload zsh/zpty',
    'zpty z zsh -f -i',
    ...setup.map((command) => `zpty -w z ${bashWord(command)}`),
    ...lines.flatMap((line) => [`zpty -w -n z ${bashWord(line)}$'\\t\\C-x'`, "zpty -r z out '*DONE*'"]),
    'zpty -d z',
  ].join('\n');
  await run('zsh', ['-f', '-c', driver], { env, cwd: work, timeout: 120_000 });
  const answers: { offered: string[]; line: string }[] = [];
  let offered: string[] = [];
  for (const entry of fs.readFileSync(log, 'utf8').split('\n').filter(Boolean)) {
    if (entry.startsWith('m ')) {
      offered.push(entry.slice(2));
    } else {
      answers.push({ offered, line: entry.slice(2) });
      offered = [];
    }
  }
  return answers;
}

describe.skipIf(!installed('zsh'))('zsh completes VM names literally', () => {
  it('offers every name as it is, inserts it quoted, keeps scheme:name whole and runs none', async () => {
    const [all, quote, dollar, libvirt] = await zshComplete([
      'vconsole open openstack:',
      'vconsole open openstack:it',
      'vconsole open openstack:\\$',
      'vconsole open libvirt:w',
    ]);
    expect([...all.offered].sort()).toEqual([...OFFERED].sort());
    expect(quote.line).toBe("vconsole open openstack:it\\'s ");
    expect(dollar.line).toBe('vconsole open openstack:\\$\\(touch\\$\\{IFS\\}FILE\\) ');
    expect(libvirt).toEqual({ offered: ['libvirt:web1'], line: 'vconsole open libvirt:web1 ' });
    // Four Tabs in one zsh, each asking the providers: more than one Tab's time.
  }, 90_000);
});

/** What fish offers at a Tab after `line` (complete -C), its completion file where fish looks for it. */
async function fishComplete(line: string): Promise<string[]> {
  const completions = path.join(dir, '.config', 'fish', 'completions');
  fs.mkdirSync(completions, { recursive: true });
  fs.writeFileSync(path.join(completions, 'vconsole.fish'), (await run('vconsole', ['completion', 'fish'], { env })).stdout);
  const { stdout } = await run('fish', ['-c', 'complete -C "$LINE"'], { env: { ...env, LINE: line }, cwd: work });
  return stdout.split('\n').filter(Boolean);
}

describe.skipIf(!installed('fish'))('fish completes VM names literally', () => {
  it('offers every name as it is and runs none; a name with a newline is not offered', async () => {
    expect((await fishComplete('vconsole open openstack:')).sort()).toEqual([...OFFERED].sort());
    expect(await fishComplete("vconsole open openstack:it\\'")).toEqual(["openstack:it's"]);
    expect(await fishComplete('vconsole open libvirt:')).toEqual(['libvirt:$(touch${IFS}FILE5)', 'libvirt:web1']);
  });
});
