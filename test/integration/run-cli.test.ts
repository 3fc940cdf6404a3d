// `vconsole run` through the CLI against the demo consoles: a script that types into a serial
// line and waits for what the typed command printed, powers the demo VM; one that types on a
// screen, reads the result with OCR and takes a picture per console; the exit codes; a bad file
// or a refused power step exits 2 with nothing dialled; Ctrl+C says where each console was.
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { describe, expect } from 'vitest';
import { startDemoRfbServer } from '../../src/rfb/demo/server.js';
import { runVconsole } from '../support/cli.js';
import { test as it } from '../support/fixtures.js';

/** A name no other test's demo console has. */
const unique = (label: string) => `demo:${label}-${process.pid}`;

function script(dir: string, name: string, text: string): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, text);
  return file;
}

/** A TCP port that counts who connects to it: anything dialled shows. */
async function countingServer(cleanup: { add(fn: () => unknown): void }) {
  let connections = 0;
  const server = net.createServer((socket) => {
    connections++;
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanup.add(() => server.close());
  return { target: `tcp://127.0.0.1:${(server.address() as net.AddressInfo).port}`, connections: () => connections };
}

describe.skipIf(process.platform === 'win32')('vconsole run', () => {
  it('types into serial lines and waits for what the typed command printed, powers the VMs: one line per step, exit 0', async ({
    tmpDir,
  }) => {
    const env = { HOME: tmpDir, XDG_STATE_HOME: path.join(tmpDir, 'state') };
    const file = script(
      tmpDir,
      'login.yaml',
      [
        '- wait: "login:"',
        `- type: "echo ran-${process.pid}\\n"`,
        `- wait: "^ran-${process.pid}$"`,
        '  timeout: 30s',
        '- power: reset',
      ].join('\n'),
    );
    const [a, b] = [`${unique('run-a')}#serial`, `${unique('run-b')}#serial`];
    const run = await runVconsole(['run', file, a, b, '--yes'], env);
    expect(run.code, run.stderr).toBe(0);
    const lines = run.stderr.trim().split('\n').sort();
    expect(lines).toEqual(
      [a, b]
        .flatMap((t) => [
          `${t} step 1/4: wait /login:/ ok`,
          `${t} step 2/4: type (${`echo ran-${process.pid}`.length + 1} chars) ok`,
          `${t} step 3/4: wait /^ran-${process.pid}$/ ok`,
          `${t} step 4/4: power reset ok`,
        ])
        .sort(),
    );
  });

  it('a text an earlier wait already saw does not match again: the step times out, naming the console, step and why; exit 1', async ({
    tmpDir,
  }) => {
    const file = script(tmpDir, 'twice.yaml', '- wait: "login:"\n- wait: "login:"\n  timeout: 2s\n');
    const target = `${unique('twice')}#serial`;
    const run = await runVconsole(['run', file, target]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`${target} step 1/2: wait /login:/ ok\n`);
    expect(run.stderr).toContain(`vconsole: ${target}: failed at step 2/2 (wait, line 2): /login:/ did not appear within 2s\n`);
  });

  it('types on a screen, reads the result with OCR and saves one picture per console', async ({ tmpDir, cleanup }) => {
    const server = await startDemoRfbServer({ name: 'vm-r', host: '127.0.0.1', port: 0 });
    cleanup.add(() => server.close());
    const target = `tcp://127.0.0.1:${server.port}`;
    const file = script(tmpDir, 'screen.yaml', '- type: "q"\n- wait: "released"\n  timeout: 2m\n- screenshot: "shots/{target}.png"\n');
    const run = await runVconsole(['run', file, target], {}, 150_000, { cwd: tmpDir });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain(`${target} step 3/3: screenshot ok`);
    const png = fs.readFileSync(path.join(tmpDir, 'shots', 'tcp_127.0.0.1_' + server.port + '.png'));
    expect(png.subarray(1, 4).toString()).toBe('PNG');
  });

  it('a file that does not parse: one line with file:line:column, exit 2, nothing dialled', async ({ tmpDir, cleanup }) => {
    const port = await countingServer(cleanup);
    const file = script(tmpDir, 'bad.yaml', '- type: "root\\n"\n- sned: [esc]\n');
    const run = await runVconsole(['run', file, port.target]);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(
      `vconsole: ${file}:2:3: "sned" is no step; each step is one of type, send, wait, sleep, screenshot, power, with an optional timeout: beside it\n`,
    );
    expect(port.connections()).toBe(0);
  });

  it('power steps without a terminal and without --yes: one line naming the VMs and steps, exit 2, nothing done', async ({ tmpDir }) => {
    const env = { HOME: tmpDir, XDG_STATE_HOME: path.join(tmpDir, 'state') };
    const file = script(tmpDir, 'power.yaml', '- type: "x"\n- power: stop\n');
    const target = unique('run-p');
    const run = await runVconsole(['run', file, target], env);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(
      `vconsole: the script changes the power (stop at step 2) of ${target}, and there is no terminal to ask on; add --yes to run it without asking\n`,
    );
    expect(fs.existsSync(path.join(tmpDir, 'state', 'vconsole', 'demo-power.json'))).toBe(false);
  });

  it('Ctrl+C stops every console at once and says where each was', async ({ tmpDir, vconsole }) => {
    const file = script(tmpDir, 'long.yaml', '- wait: "login:"\n- sleep: 1h\n');
    const [a, b] = [`${unique('int-a')}#serial`, `${unique('int-b')}#serial`];
    const run = vconsole.start(['run', file, a, b]);
    // Both consoles are past their first step, on to the long sleep.
    await run.waitForStderr(/(step 1\/2: wait \/login:\/ ok[\s\S]*){2}/);
    run.process.kill('SIGINT');
    expect(await run.exit()).toMatchObject({ code: 130 });
    expect(run.stderr()).toContain(`${a}: stopped at step 2/2 (sleep, line 2)\n${b}: stopped at step 2/2 (sleep, line 2)\n`);
  });
});
