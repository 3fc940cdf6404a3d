// --vnc-password-file as the commands that dial a console once take it (screenshot, type, send):
// one declaration, where the serving commands' own (src/flags/command-flags.ts) also implies --share.
import { valueOption } from '../targets/index.js';

/** The password a tcp/unix VNC server asks for; `advanced` keeps it out of the short --help. */
export function upstreamPasswordOption(advanced: boolean) {
  return valueOption('vncPasswordFile', {
    flags: '--vnc-password-file <file>',
    advanced: advanced || undefined,
    help: 'tcp/unix VNC servers that ask for a password: its first line',
    section: 'own',
  });
}
