import { accessSync, constants, existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root (test/e2e/support -> ../../..). */
export const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
/** The launcher the tests drive, exactly as users run it; needs `npm run build`. */
export const VCONSOLE_BIN = join(REPO_ROOT, 'bin', 'vconsole.js');
const BUILT_CLI = join(REPO_ROOT, 'dist', 'src', 'cli.js');

/** The Debian package that brings each program the end-to-end tests run (see scripts/e2e-deps.sh). */
export const TOOL_PACKAGES: Readonly<Record<string, string>> = {
  'qemu-system-x86_64': 'qemu-system-x86',
  websockify: 'websockify',
  vncviewer: 'tigervnc-viewer',
  'remote-viewer': 'virt-viewer',
  gvncviewer: 'gvncviewer',
  Xvfb: 'xvfb',
  vncsnapshot: 'vncsnapshot',
  socat: 'socat',
  tmux: 'tmux',
  convert: 'imagemagick',
  import: 'imagemagick',
  xwininfo: 'x11-utils',
  xdotool: 'xdotool',
  tesseract: 'tesseract-ocr',
  ss: 'iproute2',
  pgrep: 'procps',
  setpriv: 'util-linux',
  asciinema: 'asciinema',
  script: 'bsdutils',
  chromium: 'chromium',
  'nova-novncproxy': 'nova-consoleproxy',
  'nova-serialproxy': 'nova-consoleproxy',
  'nova-spicehtml5proxy': 'nova-consoleproxy',
  'nova-manage': 'python3-nova',
  'rabbitmq-server': 'rabbitmq-server',
  epmd: 'rabbitmq-server',
  virsh: 'libvirt-clients',
  libvirtd: 'libvirt-daemon-system',
  virtlogd: 'libvirt-daemon-system',
  sshd: 'openssh-server',
  ssh: 'openssh-client',
  'ssh-keygen': 'openssh-client',
};

/** Per-test deadline, passed explicitly so it holds under `npm test`'s shorter default too. */
export const E2E_TEST_TIMEOUT_MS = 180_000;
/** Deadline of a suite's beforeAll that boots VMs and X. */
export const E2E_SETUP_TIMEOUT_MS = 240_000;

export interface E2eGate {
  /** Why the suite cannot run here, or undefined when everything it needs is present. */
  skip?: string;
}

/** True when `VCONSOLE_E2E=required`: a missing tool fails the run instead of skipping it. */
export function e2eRequired(): boolean {
  return process.env.VCONSOLE_E2E === 'required';
}

/** The absolute path of an executable on PATH, or undefined. */
export function findExecutable(name: string, path = process.env.PATH ?? ''): string | undefined {
  for (const dir of path.split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not in this directory
    }
  }
  return undefined;
}

/** What is missing for a suite that runs `tools`, as one line; undefined when nothing is. */
export function missingToolsReason(
  tools: readonly string[],
  found: (tool: string) => boolean,
  platform: string,
  built: boolean,
): string | undefined {
  if (platform !== 'linux') return `end-to-end tests need Linux (Xvfb, QEMU, Debian packages); this is ${platform}`;
  const missing = tools.filter((tool) => !found(tool));
  const problems: string[] = [];
  if (missing.length > 0) {
    const packages = [...new Set(missing.map((tool) => TOOL_PACKAGES[tool] ?? tool))];
    problems.push(`missing ${missing.join(', ')} (Debian: ${packages.join(' ')}; run scripts/e2e-deps.sh)`);
  }
  if (!built) problems.push('vconsole is not built (run npm run build)');
  return problems.length > 0 ? problems.join('; ') : undefined;
}

/**
 * Gates a suite on the programs it runs. Returns `{skip: reason}` when one is missing, for
 * `describe.skipIf(gate.skip)`, and prints the reason once so `npm test` says why. With
 * `VCONSOLE_E2E=required` a missing tool throws instead, which fails the test file.
 */
export function requireTools(tools: readonly string[]): E2eGate {
  const reason = missingToolsReason(tools, (tool) => findExecutable(tool) !== undefined, process.platform, existsSync(BUILT_CLI));
  if (!reason) return {};
  if (e2eRequired()) throw new Error(`VCONSOLE_E2E=required but ${reason}`);
  process.stderr.write(`end-to-end tests skipped: ${reason}\n`);
  return { skip: reason };
}

/** A suite title that carries the skip reason, so the reporter shows it next to the skipped suite. */
export function gatedTitle(title: string, gate: E2eGate): string {
  return gate.skip ? `${title} [skipped: ${gate.skip}]` : title;
}
