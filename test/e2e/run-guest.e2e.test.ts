import { readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GuestSerial, guestImages, startLinuxGuest, type LinuxGuest } from './support/linux-guest.js';
import { ProcessLab, runProgram } from './support/processes.js';
import { E2E_SETUP_TIMEOUT_MS, E2E_TEST_TIMEOUT_MS, VCONSOLE_BIN, gatedTitle, requireTools } from './support/tools.js';
import { vconsoleEnv } from './support/vconsole.js';

// `vconsole run FILE TARGET` end to end on a real Linux guest (scripts/guest/build.sh) under QEMU:
// a step file drives the shell on its VGA screen (waits read with OCR, a screenshot) and on its
// serial line (waits on the line's text). What the commands did is read back on the serial line.
//
// The screen's first wait is for the shell's lone prompt on the freshly booted screen, which the
// OCR once read as `questi _` (see src/ocr/grayscale.ts).
const gate = requireTools(['qemu-system-x86_64']);
const images = gate.skip ? undefined : await guestImages();
const missing = images && 'missing' in images ? images.missing : undefined;
if (missing && process.env.VCONSOLE_E2E === 'required') throw new Error(`VCONSOLE_E2E=required but ${missing}`);
const skip = gate.skip ?? missing;

function vconsole(...args: string[]) {
  return runProgram(process.execPath, [VCONSOLE_BIN, ...args], { env: vconsoleEnv(), timeoutMs: 170_000 });
}

/** The step lines `run` prints without a terminal, for one console. */
const stepLines = (target: string, steps: readonly string[]) =>
  steps.map((step, i) => `${target} step ${i + 1}/${steps.length}: ${step} ok\n`).join('');

describe.skipIf(skip)(gatedTitle('vconsole run: a step file on a real Linux guest', { skip }), () => {
  const lab = new ProcessLab();
  let guest: LinuxGuest;
  let dir: string;

  beforeAll(async () => {
    dir = await lab.tempDir('run-guest');
    if (!images || 'missing' in images) throw new Error('no guest');
    guest = await startLinuxGuest(lab, images, 'scripted', dir);
  }, E2E_SETUP_TIMEOUT_MS);
  afterAll(async () => {
    await lab.cleanup();
  }, 60_000);

  it(
    'on the VGA screen: waits for the shell, types a command, waits for its output, screenshots; the command ran',
    async () => {
      const vnc = `unix://${guest.vncPath}`;
      const serial = await GuestSerial.connect(guest.serialPath);
      try {
        const since = serial.mark();
        const file = join(dir, 'screen.yaml');
        const shots = join(dir, 'shots');
        await writeFile(
          file,
          [
            '- wait: "guest#"',
            '  timeout: 2m',
            '- type: "clear; echo ran $((6*7)) | tee /tmp/ran /dev/ttyS0\\n"',
            '- wait: "^ran 42"',
            '  timeout: 2m',
            `- screenshot: "${shots}/after.png"`,
            '',
          ].join('\n'),
        );
        const run = await vconsole('run', file, vnc);
        expect(run.code, run.stderr).toBe(0);
        expect(run.stderr).toBe(stepLines(vnc, ['wait /guest#/', 'type (51 chars)', 'wait /^ran 42/', 'screenshot']));
        // The typed command ran on the guest: its output on the serial line, its file there.
        await serial.waitFor(/^ran 42\r?$/m, "the command's output on the serial line", { timeoutMs: 60_000, since });
        const asked = serial.mark();
        serial.write('cat /tmp/ran\r');
        await serial.waitFor(/^ran 42\r?$/m, '/tmp/ran read back on the serial line', { timeoutMs: 60_000, since: asked });
        const [shot] = await readdir(shots);
        expect(shot).toMatch(/-after\.png$/);
        const png = PNG.sync.read(await readFile(join(shots, shot)));
        expect([png.width, png.height]).toEqual([720, 400]);
      } finally {
        await serial.close();
      }
    },
    E2E_TEST_TIMEOUT_MS,
  );

  it(
    'on the serial line: waits for the prompt, types a command, waits for what it printed; the file it made is there',
    async () => {
      const target = `unix://${guest.serialPath}#serial`;
      const file = join(dir, 'serial.yaml');
      await writeFile(
        file,
        [
          '- type: "\\n"',
          '- wait: "guest# ?$"',
          '  timeout: 2m',
          '- type: "echo line-$((6*7)) >/tmp/line; cat /tmp/line\\n"',
          '- wait: "^line-42$"',
          '  timeout: 2m',
          '',
        ].join('\n'),
      );
      const run = await vconsole('run', file, target);
      expect(run.code, run.stderr).toBe(0);
      expect(run.stderr).toBe(stepLines(target, ['type (1 chars)', 'wait /guest# ?$/', 'type (45 chars)', 'wait /^line-42$/']));
      // The file the script's command made, read back over the line once run let go of it.
      const serial = await GuestSerial.connect(guest.serialPath);
      try {
        const since = serial.mark();
        serial.write('cat /tmp/line\r');
        await serial.waitFor(/^line-42\r?$/m, '/tmp/line read back on the serial line', { timeoutMs: 60_000, since });
      } finally {
        await serial.close();
      }
    },
    E2E_TEST_TIMEOUT_MS,
  );
});
