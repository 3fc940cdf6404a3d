// The demo VMs' power: a state per name kept in a file of the user's (so `vconsole list` in
// another process sees what `vconsole power` did), changed as a hypervisor would change it.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { VconsoleError } from '../../errors.js';
import type { PowerAction, PowerStep } from '../capabilities.js';

type DemoPhase = 'Running' | 'Stopped' | 'Paused';

/** The file: `$XDG_STATE_HOME/vconsole/demo-power.json` (`~/.local/state/...`), name to phase. */
export function demoPowerFile(env: NodeJS.ProcessEnv = process.env): string {
  const state = env.XDG_STATE_HOME && path.isAbsolute(env.XDG_STATE_HOME) ? env.XDG_STATE_HOME : path.join(os.homedir(), '.local', 'state');
  return path.join(state, 'vconsole', 'demo-power.json');
}

function readPhases(file: string): Record<string, DemoPhase> {
  try {
    const parsed: unknown = JSON.parse(fs.readFileSync(file, 'utf8'));
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return {};
    const phases: Record<string, DemoPhase> = {};
    for (const [name, phase] of Object.entries(parsed as Record<string, unknown>))
      if (phase === 'Stopped' || phase === 'Paused') phases[name] = phase;
    return phases;
  } catch {
    // No file (nothing powered yet) or a damaged one: every demo VM runs.
    return {};
  }
}

/** A demo VM's phase: Running unless `vconsole power` changed it. */
export function demoPhase(name: string, file = demoPowerFile()): DemoPhase {
  return readPhases(file)[name] ?? 'Running';
}

/** What each action needs and leaves: the phases it acts from, the phase after, and the words for the log line. */
const TRANSITIONS: Readonly<Record<PowerAction, { from: readonly DemoPhase[]; to: DemoPhase; done: string }>> = {
  start: { from: ['Stopped'], to: 'Running', done: 'started' },
  stop: { from: ['Running', 'Paused'], to: 'Stopped', done: 'stopped' },
  shutdown: { from: ['Running'], to: 'Stopped', done: 'shut down' },
  restart: { from: ['Running'], to: 'Running', done: 'restarted' },
  reset: { from: ['Running', 'Paused'], to: 'Running', done: 'reset' },
  pause: { from: ['Running'], to: 'Paused', done: 'paused' },
  resume: { from: ['Paused'], to: 'Running', done: 'resumed' },
};

/**
 * Does `action` to demo VM `name` and answers the log line's words; with `check` only makes sure
 * it could. A VconsoleError when its phase does not allow it (as virsh refuses to start a running domain).
 */
export function demoPower(name: string, action: PowerAction, step: PowerStep, file = demoPowerFile()): string {
  const phases = readPhases(file);
  const phase = phases[name] ?? 'Running';
  const transition = TRANSITIONS[action];
  if (!transition.from.includes(phase)) throw new VconsoleError(`cannot ${action}: the VM is ${phase.toLowerCase()}`);
  if (step === 'check') return 'can';
  if (transition.to === 'Running') delete phases[name];
  else phases[name] = transition.to;
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const temporary = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temporary, `${JSON.stringify(phases)}\n`, { mode: 0o600 });
  fs.renameSync(temporary, file);
  return `${transition.done} (was ${phase.toLowerCase()})`;
}
