// `vconsole run FILE TARGET...`: a step file played on each console in parallel, every step
// through the console's one session, by the machinery of type, send, wait, screenshot and power.
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { VconsoleConfig } from '../config/index.js';
import { UsageError, VconsoleError } from '../errors.js';
import { consoleFileStem } from '../files/console-file-name.js';
import { FileWriteError, describeFileError, ensureDirectory, fileErrorCause, writePrivateFile } from '../files/safe-file.js';
import { keysymStrokes } from '../keys/typing.js';
import type { SharedSerialSource } from '../serial/index.js';
import type { ConsoleTarget } from '../targets/index.js';
import { canAsk, askYesNo, type PromptTerminal } from '../terminal/yes-no.js';
import { echoInput } from '../text/terminal-text.js';
import { actOnOne, actingOn, kindOf } from './acting.js';
import type { CommandIo } from './command-io.js';
import { joiningFrom } from './joining.js';
import { POWER_TIMEOUT_MS, powerOf } from './power.js';
import { StepReporter } from './run-report.js';
import { HeldConsole } from './run-session.js';
import { DEFAULT_STEP_TIMEOUT_MS, playScript, type PerformStep } from './run-script.js';
import { MAX_STEP_FILE_BYTES, parseStepFile, type Step } from './run-steps.js';
import { capture } from './screenshot.js';
import { checkKeys, sendingAction } from './send.js';
import { shareSerial } from './sharing.js';
import { waitForText } from './text-watch.js';
import { typingAction } from './type.js';
import type { RunFlags } from './run-flags.js';
import type { NewlineName } from './type-flags.js';

/** The steps of FILE, read and checked whole before anything is dialled. */
export function readStepFile(file: string): Step[] {
  let source: string;
  try {
    if (statSync(file).size > MAX_STEP_FILE_BYTES)
      throw new UsageError(`${echoInput(file)} is over ${MAX_STEP_FILE_BYTES / 1024} KiB`, 'a step file is a short script');
    source = readFileSync(file, 'utf8');
  } catch (err) {
    if (err instanceof UsageError) throw err;
    throw new UsageError(`cannot read the step file: ${describeFileError(err)}`, 'give the path of a YAML step file');
  }
  return parseStepFile(file, source);
}

/** `{target}` in a screenshot step's name becomes the console's name; a name without it gets the name before it. */
export function screenshotPath(name: string, target: string): string {
  const stem = consoleFileStem(target);
  if (name.includes('{target}')) return name.replaceAll('{target}', stem);
  return path.join(path.dirname(name), `${stem}-${path.basename(name)}`);
}

/** What no console of the run can take, refused before anything is dialled. */
function checkSteps(steps: readonly Step[], targets: readonly ConsoleTarget[]): void {
  for (const target of targets) kindOf(target);
  const screens = targets.filter((target) => kindOf(target) === 'screen');
  for (const step of steps) {
    const where = `step ${steps.indexOf(step) + 1} (line ${step.line})`;
    try {
      if (step.kind === 'type' && screens.length > 0) keysymStrokes(step.text);
      if (step.kind === 'send') checkKeys(targets, step.keys);
      if (step.kind === 'power') targets.forEach(powerOf);
      const serial = targets.find((target) => kindOf(target) === 'serial');
      if (step.kind === 'screenshot' && serial)
        throw new UsageError(`${serial.name} is a serial line: no screen to picture`, 'run the screenshot steps on screens only');
    } catch (err) {
      if (err instanceof UsageError) throw new UsageError(`${where}: ${err.message}`, err.hint);
      throw err;
    }
  }
}

/** The power steps' pre-flight on every VM, then the one question naming them all (or --yes). */
async function confirmPower(
  steps: readonly Step[],
  targets: readonly ConsoleTarget[],
  yes: boolean,
  terminal: PromptTerminal,
): Promise<boolean> {
  const powers = steps.flatMap((step, i) => (step.kind === 'power' ? [{ action: step.action, at: i + 1 }] : []));
  if (powers.length === 0) return true;
  // The first power step is checked as `vconsole power` checks (the user may ask it, the VM can
  // take it now); later ones act on a state the script changes, and are checked when they come.
  const [first] = powers;
  await Promise.all(targets.map((target) => powerOf(target)(AbortSignal.timeout(POWER_TIMEOUT_MS), first.action, 'check')));
  if (yes) return true;
  const what = powers.map((p) => `${p.action} at step ${p.at}`).join(', ');
  const names = targets.map((t) => t.name).join(', ');
  if (!canAsk(terminal))
    throw new UsageError(
      `the script changes the power (${what}) of ${names}, and there is no terminal to ask on`,
      'add --yes to run it without asking',
    );
  return askYesNo(
    `The script will ${what} on ${targets.length === 1 ? 'VM' : `${targets.length} VMs`}: ${names}. Go ahead? [y/N] `,
    terminal,
  );
}

/** Does a step on a held console with the commands' own machinery. */
function performer(
  targets: readonly ConsoleTarget[],
  held: readonly HeldConsole[],
  flags: RunFlags,
  password: string | undefined,
): PerformStep {
  const newline = (flags.newline as NewlineName | undefined) ?? 'cr';
  return async (i, step, signal) => {
    const [target, session] = [targets[i], held[i]];
    switch (step.kind) {
      case 'type':
        return actOnOne(target, session, password, typingAction(step.text, flags.layout, newline), signal);
      case 'send':
        return actOnOne(target, session, password, sendingAction(step.keys), signal);
      case 'wait': {
        const match = await waitForText(target, step.pattern, step.timeoutMs ?? DEFAULT_STEP_TIMEOUT_MS.wait, signal, {
          source: session.forWaiting(),
          password,
        });
        session.waited();
        return `saw "${match.line}"`;
      }
      case 'sleep':
        await sleep(step.ms, undefined, { signal });
        return 'slept';
      case 'screenshot':
        return savePicture(await capture(target, session, password, signal), screenshotPath(step.file, target.name));
      case 'power':
        return powerOf(target)(signal, step.action, 'act');
    }
  };
}

async function savePicture(png: Buffer, file: string): Promise<string> {
  try {
    ensureDirectory(path.dirname(file));
    await writePrivateFile(file, png);
  } catch (err) {
    throw new VconsoleError(`cannot write ${echoInput(file)}: ${fileErrorCause(err instanceof FileWriteError ? err.cause : err)}`);
  }
  return `wrote ${file}`;
}

/** `vconsole run FILE TARGET...`: resolves with the exit code (0 every console finished, 1 any failed, 130 interrupted). */
export async function runRunCommand(
  file: string,
  inputs: string[],
  flags: RunFlags,
  config: VconsoleConfig,
  io: CommandIo,
  terminal: PromptTerminal,
): Promise<number> {
  const steps = readStepFile(file);
  const { password, say, via, resolving } = actingOn('run', inputs, flags, config, io);
  try {
    const targets = await resolving;
    checkSteps(steps, targets);
    if (!(await confirmPower(steps, targets, flags.yes === true, terminal))) {
      say('nothing done');
      return 1;
    }
    const joining = joiningFrom(flags, 'run', say, { acts: true });
    const held = targets.map((target) => {
      let line: SharedSerialSource | undefined;
      const top = joining.wrap(target, kindOf(target) === 'serial' ? (joined) => (line = shareSerial(joined)) : undefined);
      return new HeldConsole(top, line);
    });
    return await play(steps, targets, held, flags, password, io);
  } finally {
    via?.close();
  }
}

async function play(
  steps: readonly Step[],
  targets: readonly ConsoleTarget[],
  held: readonly HeldConsole[],
  flags: RunFlags,
  password: string | undefined,
  io: CommandIo,
): Promise<number> {
  const stop = new AbortController();
  const interrupt = () => stop.abort(new VconsoleError('interrupted'));
  process.once('SIGINT', interrupt);
  const reporter = new StepReporter(
    targets.map((t) => t.name),
    io.stderr,
  );
  try {
    const outcomes = await playScript(
      targets.length,
      steps,
      performer(targets, held, flags, password),
      (news) => reporter.news(news),
      stop.signal,
    );
    return reporter.finish(outcomes, steps);
  } finally {
    process.off('SIGINT', interrupt);
    await Promise.all(held.map((session) => session.letGo().catch(() => undefined)));
  }
}
