import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runVconsole } from '../support/cli.js';

// Issue 36 item 7: the pty path a domain's XML names went, unescaped, into socat's address on
// the host (`socat - OPEN:PATH`), where `,trunc` is an option: `FILE,trunc` truncated FILE. A
// fake virsh names such a path; a fake ssh runs the remote command here, with the real socat, as
// sshd would on the host.

let dir: string;
let victim: string;

const FAKE_SSH = `#!/bin/sh
# ssh [options] -- HOST [COMMAND]: the command after the host, run by this machine's shell.
while [ "$#" -gt 0 ] && [ "$1" != -- ]; do shift; done
shift 2
[ "$#" -gt 0 ] || exit 0
exec sh -c "$*"
`;

function fakeVirsh(ptyPath: string): string {
  const xml = `<domain type='qemu' id='7'><name>vm</name><devices><serial type='pty'><source path='${ptyPath}'/><target port='0'/></serial></devices></domain>`;
  return `#!/bin/sh
case "$*" in
  *dumpxml*) cat <<'XML'
${xml}
XML
  ;;
  *domstate*) echo running ;;
  *) echo "error: this fake virsh knows no $*" >&2; exit 1 ;;
esac
`;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'vconsole-pty-path-'));
  victim = join(dir, 'precious');
  await writeFile(join(dir, 'ssh'), FAKE_SSH);
  await chmod(join(dir, 'ssh'), 0o755);
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function consoleWithPty(ptyPath: string, target: string) {
  await writeFile(join(dir, 'virsh'), fakeVirsh(ptyPath));
  await chmod(join(dir, 'virsh'), 0o755);
  // Stdin stays open: unfixed, socat holds the file as the console until the 15 s kill.
  return runVconsole(
    ['console', target, '--no-join'],
    { PATH: `${dir}:${process.env.PATH}`, VCONSOLE_SSH_COMMAND: join(dir, 'ssh') },
    15_000,
  );
}

describe("a libvirt domain's pty path", () => {
  it.each(['libvirt+ssh://kvm1/vm#serial', 'libvirt:vm#serial'])(
    '%s: a path that is no /dev/pts/N is refused in one line, and no file is touched',
    async (target) => {
      await writeFile(victim, 'keep me\n');
      const run = await consoleWithPty(`${victim},trunc`, target);
      expect(await readFile(victim, 'utf8')).toBe('keep me\n');
      expect(run.code).toBe(1);
      const lines = run.stderr.trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain(`its pty path "${victim},trunc" is not a /dev/pts/N terminal`);
      expect(run.stderr).not.toMatch(/\n\s+at /);
    },
  );
});
