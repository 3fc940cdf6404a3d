// `vconsole screenshot`'s own flags, declared as every flag is (src/targets/option-group.ts), and
// the flags object they and the shared ones give. Apart from screenshot-command.ts so that
// screenshot.ts reads the type without importing the command that loads it. --preserve-session
// is not offered: screenshot preserves a KubeVirt session unless --take-over.
import type { CommandFlagsIn } from '../flags/command-flags.js';
import { type FlagsOf, switchOption, valueOption } from '../targets/index.js';
import type { TargetFlags } from './flags.js';
import { upstreamPasswordOption } from './upstream-password-flag.js';

export const SCREENSHOT_FLAGS = [
  // A file (one target), a directory, or `-` for stdout (one target).
  valueOption('output', {
    flags: '-o, --output <path>',
    help: 'FILE (one target), DIR (NAME.png each; a trailing / or several targets mean a directory, created when absent), or - for stdout (default: NAME.png here)',
    section: 'own',
  }),
  upstreamPasswordOption(false),
  // KubeVirt: take the VM's VNC session even when another client holds it.
  switchOption('takeOver', {
    flags: '--take-over',
    help: "KubeVirt: take the VM's VNC session even when a viewer holds it (default: refuse, kicking nobody)",
    section: 'own',
  }),
] as const;

export type ScreenshotFlags = TargetFlags & CommandFlagsIn<'screenshot'> & FlagsOf<typeof SCREENSHOT_FLAGS>;
