// `vconsole send`: key chords by name into each console, held down together and let go.
import type { VconsoleConfig } from '../config/index.js';
import { UsageError } from '../errors.js';
import { chordStrokes, parseChord, type Chord } from '../keys/chords.js';
import { BREAK, serialBytes } from '../keys/serial-keys.js';
import { actOnConsoles, kindOf, writeAll, type ConsoleAction } from './acting.js';
import type { CommandIo } from './command-io.js';
import { sendStroke } from './key-pacing.js';
import type { SendFlags } from './send-flags.js';
import type { ConsoleTarget } from '../targets/index.js';

/** How long a chord is held unless --hold says. */
const DEFAULT_HOLD_MS = 100;

/** A key to send: a chord, or a serial line's BREAK. */
export type SentKey = { kind: 'chord'; chord: Chord } | { kind: 'break' };

/**
 * The targets and keys of `send TARGET... KEY...`: after `--` every word is a key; else the keys
 * are the trailing words that name keys (the first word is always a target). A last word that
 * names no key is an error naming it.
 */
export function splitTargetsAndKeys(operands: readonly string[], afterDashes: readonly string[]): { targets: string[]; keys: SentKey[] } {
  const parse = (word: string): SentKey => (word.toLowerCase() === BREAK ? { kind: 'break' } : { kind: 'chord', chord: parseChord(word) });
  if (afterDashes.length > 0) return { targets: operands.slice(0, operands.length - afterDashes.length), keys: afterDashes.map(parse) };
  let first = operands.length;
  while (first > 1 && isKey(operands[first - 1])) first--;
  if (first === operands.length) {
    if (operands.length < 2) throw new UsageError('name a target and the keys to send', 'e.g. vconsole send vm-a ctrl-alt-delete');
    parse(operands[operands.length - 1]);
  }
  return { targets: operands.slice(0, first), keys: operands.slice(first).map(parse) };
}

function isKey(word: string): boolean {
  if (word.toLowerCase() === BREAK) return true;
  try {
    parseChord(word);
    return true;
  } catch {
    return false;
  }
}

/**
 * What each provider's serial line is, for the one line that says it carries no BREAK. A BREAK
 * is a line condition, not a byte: QEMU passes one to the guest's UART only from a telnet or
 * host-tty chardev, or its mux's Ctrl-A b, and no transport vconsole speaks carries one.
 */
const SERIAL_TRANSPORTS: Readonly<Record<string, string>> = {
  kubevirt: "KubeVirt's serial stream is raw bytes over a websocket",
  openstack: "Nova's serial proxy is raw bytes over a websocket",
  pve: "Proxmox VE's termproxy carries bytes and window sizes",
  libvirt: "libvirt's pty or socket chardev carries bytes (QEMU takes a BREAK only from a telnet chardev)",
  tcp: 'a raw TCP console carries bytes',
  unix: 'a unix-socket console carries bytes',
  websocket: 'a websocket console carries bytes',
  demo: "the demo's serial line carries bytes",
};

/** The one line for `break` on a serial line whose transport has none: before anything is dialled. */
function noBreak(target: ConsoleTarget): UsageError {
  const why = SERIAL_TRANSPORTS[target.provider] ?? 'its transport carries bytes';
  return new UsageError(
    `${target.name}: no BREAK on this serial line: ${why}`,
    'send ctrl-c, or a magic SysRq with alt-sysrq-KEY on its screen',
  );
}

/** Waits `ms`, or less once `signal` aborts. */
function heldFor(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

/** `vconsole send TARGET... KEY...`: resolves with the exit code. */
export async function runSendCommand(
  inputs: string[],
  keys: SentKey[],
  flags: SendFlags,
  config: VconsoleConfig,
  io: CommandIo,
): Promise<number> {
  const action: ConsoleAction = {
    check: (targets) => checkKeys(targets, keys),
    ...sendingAction(keys, flags.hold ?? DEFAULT_HOLD_MS),
  };
  return actOnConsoles('send', inputs, flags, config, io, action);
}

/** Refuses, before anything is dialled, a key a console cannot take (a BREAK on a screen or a line without one, a chord a serial line has no byte for). */
export function checkKeys(targets: readonly ConsoleTarget[], keys: readonly SentKey[]): void {
  for (const target of targets) {
    if (kindOf(target) === 'serial') {
      keys.forEach((key) => key.kind === 'chord' && serialBytes(key.chord));
      if (keys.some((key) => key.kind === 'break')) throw noBreak(target);
    } else if (keys.some((key) => key.kind === 'break'))
      throw new UsageError(`${target.name}: break is for serial lines`, 'send it to #serial');
  }
}

/** Sending `keys` to one console: each chord held `holdMs` and let go on a screen, its bytes on a serial line. */
export function sendingAction(keys: readonly SentKey[], holdMs = DEFAULT_HOLD_MS): Omit<ConsoleAction, 'check'> {
  const names = keys.map((key) => (key.kind === 'break' ? BREAK : key.chord.text)).join(' ');
  return {
    // Stopped (`signal`), a chord held down is let go at once and no further chord is pressed.
    screen: (client) => async (signal) => {
      for (const key of keys) {
        if (key.kind !== 'chord') continue;
        signal.throwIfAborted();
        const { press, release } = chordStrokes(key.chord);
        press.forEach((stroke) => sendStroke(client, stroke));
        await heldFor(holdMs, signal);
        release.forEach((stroke) => sendStroke(client, stroke));
        await heldFor(holdMs, signal);
      }
      signal.throwIfAborted();
      return `sent ${names}${client.supportsQemuKeys ? '' : ' (keysyms)'}`;
    },
    serial: (line) => async (signal) => {
      for (const key of keys) {
        signal.throwIfAborted();
        if (key.kind === 'chord') await writeAll(line, serialBytes(key.chord));
      }
      return `sent ${names}`;
    },
  };
}
