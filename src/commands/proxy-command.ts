// `vconsole proxy` as a command of the program: its argument, its flags (all shared: see
// src/flags/command-flags.ts and the provider options), its help and its action, which loads
// proxy.ts only when it runs.
import type { Command } from 'commander';
import type { CommandIo } from './command-io.js';
import { addFlags, type FlagLayout } from './flags.js';
import { withGlobalOptions } from './global-flags.js';
import { shortOrAll } from './help-all.js';
import type { ProxyFlags } from './proxy.js';

/** proxy's flags in --help order. */
const PROXY_LAYOUT: FlagLayout = ['follow', 'listen', 'type', 'target', 'selector', 'share', 'record', 'join', 'via'];

/** `vconsole proxy`, registered on the program; `targetHelp` is the providers' Targets block (empty when not loaded). */
export function addProxyCommand(program: Command, targetHelp: string, io: CommandIo): void {
  const defined = program
    .command('proxy')
    .description(
      'Serve each target on a local port for a viewer elsewhere: VNC for a VNC viewer, a serial line as raw TCP (nc, socat, telnet).',
    )
    .argument('[target...]', 'consoles to serve (see Targets), @WORKSPACE from the config file');
  addFlags(defined, PROXY_LAYOUT)
    .addHelpText(
      'after',
      shortOrAll(
        defined,
        `${targetHelp}

Prints one JSON line per console once all listen, e.g.
  {"target":"default/vm-a","address":"127.0.0.1","port":5901,"type":"vnc"}

Examples:
  vconsole proxy demo:vm-a
  vconsole proxy vm-a vm-b --port 5901
  vconsole proxy vm-a --share --port 5901     several viewers on one KubeVirt VNC session`,
        `${targetHelp}

Prints one JSON line per console once all listen (a console named twice is served once), e.g.
  {"target":"default/vm-a","address":"127.0.0.1","port":5901,"type":"vnc"}
Every client connection gets a fresh console session. Ctrl+C closes everything.
With --share, every viewer shares one console session instead: KubeVirt keeps one per VM, so
nobody is kicked. Viewers stay connected while the console drops and comes back.
A non-loopback --listen implies --share. Viewers speak TLS with the listener's certificate
(VNC: VeNCrypt X509Vnc; serial: a password line inside TLS). They give a password
(--password-file, else a generated one printed once). --no-share there is refused, and so are
SPICE consoles, which no password protects, unless --insecure-expose-unauthenticated (keep
them on loopback and use ssh -L).

Examples:
  vconsole proxy demo:vm-a
  vconsole proxy vm-a vm-b --port 5901
  vconsole proxy prod/db-1 --context prod --listen 0.0.0.0 --port 5901
  vconsole proxy os:web-01 --cloud mycloud
  vconsole proxy -l app=web -n prod -n staging       every VMI labelled app=web in both namespaces
  vconsole proxy vm-a --share --port 5901             several viewers on one KubeVirt VNC session
  vconsole proxy vm-a --share --listen 0.0.0.0 --password-file ~/.vconsole-pass
  vconsole proxy tcp://10.0.0.5:5900 --share --vnc-password-file ~/.vncpass`,
      ),
    )
    .action(async (targets: string[], flags: ProxyFlags, command: Command) => {
      const [{ runProxyCommand }, run] = await Promise.all([import('./proxy.js'), withGlobalOptions(flags, command)]);
      await runProxyCommand(targets, run.flags, run.config, io);
    });
}
