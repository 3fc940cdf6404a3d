// `vconsole type`'s own flags, declared as every flag is (src/targets/option-group.ts), and the
// flags object they and the shared ones give.
import type { CommandFlagsIn } from '../flags/command-flags.js';
import { LAYOUTS } from '../keys/layouts/index.js';
import { valueOption, type FlagsOf } from '../targets/index.js';
import type { TargetFlags } from './flags.js';
import { upstreamPasswordOption } from './upstream-password-flag.js';

/** How a newline goes down a serial line. */
export const NEWLINES = { cr: '\r', lf: '\n', crlf: '\r\n' } as const;
export type NewlineName = keyof typeof NEWLINES;

export const TYPE_FLAGS = [
  valueOption('file', {
    flags: '-f, --file <file>',
    help: 'type the contents of FILE (- for stdin) instead of the text after --',
    section: 'own',
    what: 'a file',
  }),
  valueOption('layout', {
    flags: '--layout <name>',
    help: `VNC: the guest's keyboard layout, for consoles that take scancodes (QEMU): ${LAYOUTS.map((l) => l.name).join(', ')} (default: us)`,
    section: 'own',
    choices: LAYOUTS.map((l) => l.name),
  }),
  valueOption('newline', {
    flags: '--newline <cr|lf|crlf>',
    help: 'serial: what a newline of the text sends (default: cr, the Enter key)',
    section: 'own',
    choices: Object.keys(NEWLINES),
  }),
  upstreamPasswordOption(true),
] as const;

export type TypeFlags = TargetFlags & CommandFlagsIn<'type'> & FlagsOf<typeof TYPE_FLAGS>;
