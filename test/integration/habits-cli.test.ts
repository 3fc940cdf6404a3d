// kubectl's and virtctl's habits through the built CLI: -v N, -o FORMAT, `vnc` (and its
// --proxy-only), `console --timeout`, viewer program names, and the one-line "did you mean"
// for their flags. Shell completion has its own file (completion-cli.test.ts).
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { startKubevirtFixture, type KubevirtFixture } from '../fixtures/kubevirt-api.js';
import { readGreeting, runVconsole } from '../support/cli.js';
import { test } from '../support/fixtures.js';
import { waitFor } from '../support/wait.js';
import { fakeViewerBinDir } from '../fixtures/fake-viewer-bin.js';

let fixture: KubevirtFixture;
let binDir: string;
beforeAll(async () => {
  fixture = await startKubevirtFixture({
    vmis: [
      { namespace: 'default', name: 'vm-a' },
      { namespace: 'default', name: 'booting', phase: 'Scheduling' },
    ],
  });
  // A PATH holding node and a TigerVNC stand-in named vncviewer, as TigerVNC installs it.
  binDir = fakeViewerBinDir('vconsole-habits-');
});
afterAll(async () => {
  await fixture?.close();
  fs.rmSync(binDir, { recursive: true, force: true });
});
const kube = () => ({ KUBECONFIG: fixture.kubeconfigPath() });

const it = test.extend('start', ({ vconsole }) => {
  return (args: string[], env: NodeJS.ProcessEnv = kube()) => vconsole.start(args, env);
});

/** The fake viewer's log lines: one per connection it made. */
function viewerConnections(log: string): { name: string; flavor: string; rfb?: string }[] {
  if (!fs.existsSync(log)) return [];
  return fs
    .readFileSync(log, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { name: string; flavor: string; event: string; rfb?: string })
    .filter((entry) => entry.event === 'connected');
}

let viewerLogs = 0;

function viewerEnvironment(): NodeJS.ProcessEnv & { FAKE_VIEWER_LOG: string } {
  return { PATH: binDir, HOME: binDir, DISPLAY: ':0', FAKE_VIEWER_LOG: path.join(binDir, `log-${++viewerLogs}-${Date.now()}.jsonl`) };
}

describe('--help', () => {
  it('lists every virtctl and kubectl spelling it takes, and the vnc and completion commands', async () => {
    const help = (await runVconsole(['--help'])).stdout;
    expect(help).toMatch(/\n {2}vnc \[options\] \[target\.\.\.\] +virtctl's vnc/);
    expect(help).toMatch(/\n {2}completion <shell> +Print a shell completion script/);
    for (const alias of ['vconsole vnc VM --proxy-only', '--timeout 5', '-v N, --v=N', 'list -o json|yaml|wide|name', '--viewer vncviewer'])
      expect(help).toContain(alias);
  });
});

describe("kubectl's -v N", () => {
  it('-v 4 is a log level (stack traces shown), not a target named 4; -v 2 shows the error line alone', async () => {
    const debug = await runVconsole(['proxy', '-v', '4', 'nosuch'], kube());
    expect(debug.code).toBe(1);
    expect(debug.stderr).toMatch(/^vconsole: default\/nosuch/);
    expect(debug.stderr).not.toContain('default/4');
    expect(debug.stderr).toMatch(/\n {4}at /);
    const quiet = await runVconsole(['proxy', 'nosuch', '--v=2'], kube());
    expect(quiet.stderr).toMatch(/^vconsole: default\/nosuch[^\n]*\n$/);
  });
});

describe("kubectl's -o on list", () => {
  it('-o name prints one target a line, -o yaml the --json document, -o wide more columns', async () => {
    const names = await runVconsole(['list', '--provider', 'demo', '-o', 'name']);
    expect(names).toMatchObject({ code: 0, stdout: 'demo:shell#serial\ndemo:vm-a\ndemo:vm-b\ndemo:vm-c\n' });
    const json = await runVconsole(['list', '--provider', 'demo', '--json']);
    const yaml = await runVconsole(['list', '--provider', 'demo', '-o', 'yaml']);
    expect(parseYaml(yaml.stdout)).toEqual(JSON.parse(json.stdout));
    const wide = await runVconsole(['list', '-o', 'wide'], kube());
    expect(wide.stdout).toMatch(/^TARGET +STATE +CONSOLE +PROVIDER +NAMESPACE +NAME\n/);
    expect(wide.stdout).toMatch(/\ndefault\/vm-a +Running +yes +kubevirt +default +vm-a\n/);
  });

  it('refuses a format it does not know in one line, exit 2', async () => {
    const result = await runVconsole(['list', '-o', 'xml']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /^vconsole: option '-o, --output <format>' argument 'xml' is invalid\. -o xml is not an output format; give one of json, yaml, wide, name, jsonpath=TEMPLATE, custom-columns=HEADER:PATH,\.\.\.\n$/,
    );
  });
});

describe("virtctl's vnc", () => {
  it('--proxy-only --port serves the VNC console and prints its port as JSON, as virtctl vnc --proxy-only does', async ({ start }) => {
    const proxy = start(['vnc', 'vm-a', '--proxy-only', '--address', '127.0.0.1']);
    const [line] = await proxy.jsonLines(1);
    expect(line).toMatchObject({ target: 'default/vm-a', address: '127.0.0.1', type: 'vnc', port: expect.any(Number) });
    const { text, socket } = await readGreeting(line.port as number);
    socket.destroy();
    expect(text).toMatch(/^RFB 003\.00\d\n$/);
  });

  it("opens the VM's VNC console in the viewer --vnc-type names", async ({ start }) => {
    const env = viewerEnvironment();
    start(['vnc', 'demo:vm-a', '--no-tui', '--vnc-type', 'tiger'], env);
    await waitFor(() => viewerConnections(env.FAKE_VIEWER_LOG).length === 1, 'the viewer to connect');
    expect(viewerConnections(env.FAKE_VIEWER_LOG)[0]).toMatchObject({ name: 'vncviewer', flavor: 'tigervnc', rfb: 'RFB 003.008\n' });
  });

  it('refuses a viewer flag beside --proxy-only, in one line', async () => {
    const result = await runVconsole(['vnc', 'demo:vm-a', '--proxy-only', '--vnc-type', 'tiger']);
    expect(result).toMatchObject({ code: 2, stdout: '' });
    expect(result.stderr).toBe('vconsole: --proxy-only launches no viewer: --vnc-type means nothing with it; leave one out\n');
  });
});

describe('viewer program names', () => {
  it('--viewer vncviewer launches the viewer that installed vncviewer here', async ({ start }) => {
    const env = viewerEnvironment();
    start(['open', 'demo:vm-a', '--no-tui', '--viewer', 'vncviewer'], env);
    await waitFor(() => viewerConnections(env.FAKE_VIEWER_LOG).length === 1, 'the viewer to connect');
    expect(viewerConnections(env.FAKE_VIEWER_LOG)[0]).toMatchObject({ name: 'vncviewer', flavor: 'tigervnc' });
    const viewers = await runVconsole(['viewers', '--viewer', 'vncviewer'], env);
    expect(viewers.stdout).toContain('open would use: TigerVNC (chosen with --viewer)');
  });
});

describe("virtctl's console --timeout", () => {
  it('waits that many minutes for the VM to run', async ({ start }) => {
    const child = start(['console', 'booting', '--timeout', '2']);
    await child.waitForStderr(/waiting up to 2m for booting's serial console[\s\S]*VMI is not running \(phase Scheduling\)/);
    fixture.setPhase('default', 'booting', 'Running');
    child.process.stdin.end('x\r');
    expect((await child.exit()).code).toBe(0);
    expect(child.stdout()).toContain('Welcome to booting');
  });
});

describe('virtctl and kubectl flags vconsole spells otherwise', () => {
  it.each([
    [['open', 'demo:vm-a', '--address', '0.0.0.0'], "vconsole: unknown option '--address' (Did you mean --listen?)\n"],
    // list has no --listen to point at; kubectl's --cluster is --context, whatever its letters are near.
    [['list', '--address', '0.0.0.0'], "vconsole: unknown option '--address'\n"],
    [['open', 'demo:vm-a', '--cluster', 'prod'], "vconsole: unknown option '--cluster' (Did you mean --context?)\n"],
    [['proxy', 'demo:vm-a', '-o', 'json'], "vconsole: unknown option '-o' (Did you mean -o on vconsole list and viewers?)\n"],
    [
      ['proxy', 'demo:vm-a', '--proxy-only'],
      "vconsole: unknown option '--proxy-only' (Did you mean vconsole vnc --proxy-only, or vconsole proxy?)\n",
    ],
    [
      ['vnc', 'demo:vm-a', '--proxy-onyl'],
      "vconsole: unknown option '--proxy-onyl' (Did you mean --proxy-only? here that is vconsole vnc --proxy-only, or vconsole proxy)\n",
    ],
  ])('%j gets one line saying what vconsole calls it, exit 2', async (args, line) => {
    const result = await runVconsole(args);
    expect(result).toMatchObject({ code: 2, stdout: '', stderr: line });
  });
});
