// The flags several commands share, each declared once as the provider options are
// (src/targets/option-group.ts): its spelling, help, the commands that take it, its section in
// their --help, its parser, and its `defaults.` and workspace keys. commander's options
// (src/commands/flags.ts), the flags types below, the config file's defaults (src/config/config.ts)
// and workspace keys (src/config/workspaces.ts) derive from this list. A command's own flags are
// declared the same way beside it (src/commands/*-flags.ts, open/settings.ts) and laid out with
// these in its --help by its definition (src/commands/*-command.ts). Pure data: no commander, no
// command code.
import { selectorFlagNames } from '../targets/option-groups.js';
import {
  listOption,
  stringKey,
  switchKey,
  switchOption,
  textKey,
  valueOption,
  type FlagsIn,
  type FlagsOfSection,
} from '../targets/option-group.js';
import { parseViaAddress } from '../via/address.js';
import { VIEWER_ALIASES, VIEWER_CHOICES } from '../viewers/catalog.js';
import { parseListenAddress, parsePort, parseSize } from './values.js';

/** The flag that lets VNC viewers of an exposed listener authenticate without TLS. */
export const INSECURE_VNC_AUTH_FLAG = '--insecure-vnc-auth';
/** The flag that serves, beyond loopback, what no password protects. */
export const INSECURE_EXPOSE_FLAG = '--insecure-expose-unauthenticated';

const SHARED = 'VNC: one console session shared by every viewer (nobody is kicked; viewers stay through console drops)';
const SERVING = ['proxy', 'open'] as const;

/** In --help order within each section; the `defaults.` and workspace keys follow this order too. */
export const COMMAND_FLAGS = [
  valueOption('viewer', {
    flags: '--viewer <name|path>',
    help:
      `viewer to use: ${VIEWER_CHOICES.join(', ')} (also as ${[...VIEWER_ALIASES.keys()].join(', ')}), or the path of an executable (given HOST::PORT); ` +
      'default: $VCONSOLE_VIEWER, else the first found (vconsole viewers)',
    section: 'viewer',
    commands: ['open', 'viewers'],
    config: stringKey('viewer'),
    workspace: textKey('viewer', 'a viewer name or path'),
  }),
  listOption('viewerArg', {
    flags: '--viewer-arg <arg>',
    advanced: true,
    help: 'extra argument for the viewer, before the address (repeatable)',
    section: 'viewer',
    commands: ['open', 'viewers'],
  }),
  valueOption('port', {
    flags: '-p, --port <port>',
    advanced: ['open'],
    help: 'first local port; targets get PORT, PORT+1, ... (default: free ports)',
    section: 'listen',
    commands: [...SERVING, 'replay'],
    parse: parsePort,
  }),
  valueOption('listen', {
    flags: '--listen <address>',
    advanced: ['open'],
    help: "address to listen on (default: the config file's listen, else 127.0.0.1); anything but loopback exposes the consoles to the network",
    section: 'listen',
    commands: [...SERVING, 'replay'],
    parse: parseListenAddress,
    config: stringKey('listen'),
  }),
  switchOption('follow', {
    flags: '--follow',
    advanced: true,
    help: `with ${selectorFlagNames().join('/')}: keep asking, open VMs that start matching, mark those that stop`,
    helpIn: { proxy: `with ${selectorFlagNames().join('/')}: keep asking, serve VMs that start matching or running (a JSON line each)` },
    section: 'follow',
    commands: SERVING,
    workspace: switchKey('follow'),
  }),
  // VNC consoles shared as with --share: `open` shares unless defaults.share is false, `proxy` only when true; the flags win.
  switchOption('share', {
    flags: '--share',
    advanced: ['open'],
    // open holds every serial line anyway; proxy does with --share.
    help: `${SHARED}; serial: one line held from the start, shared by every client and your vconsole console`,
    helpIn: { open: `${SHARED}; the default here` },
    section: 'share',
    commands: SERVING,
    config: switchKey('share'),
  }),
  switchOption('share', {
    flags: '--no-share',
    advanced: true,
    help: 'do not share, whatever defaults.share in the config file says',
    helpIn: {
      open: 'each viewer dials the console itself (no grid pictures; s only on consoles nobody watches); also defaults.share: false',
    },
    section: 'share',
    commands: SERVING,
  }),
  switchOption('viewOnly', {
    flags: '--view-only',
    advanced: true,
    help: 'viewers only watch: their keys and pointer are dropped (implies --share)',
    section: 'share',
    commands: SERVING,
  }),
  valueOption('vncPasswordFile', {
    flags: '--vnc-password-file <file>',
    advanced: true,
    help: 'tcp/unix VNC servers that ask for a password: its first line (implies --share)',
    section: 'share',
    commands: SERVING,
    what: 'a password file',
  }),
  // The password viewers must give (on a listener beyond loopback, else one is generated).
  valueOption('passwordFile', {
    flags: '--password-file <file>',
    advanced: SERVING,
    help: 'the password viewers must give, first line, 6 to 8 characters (implies --share; default on a non-loopback --listen: a generated one, printed once)',
    helpIn: {
      replay:
        'the password viewers must give, first line, 6 to 8 characters (default on a non-loopback --listen: a generated one, printed once)',
    },
    section: 'share',
    commands: [...SERVING, 'replay'],
    what: 'a password file',
  }),
  // The certificate and key an exposed listener speaks TLS with (else one made on first use).
  valueOption('tlsCert', {
    flags: '--tls-cert <file>',
    advanced: SERVING,
    help: 'on a non-loopback --listen: the PEM certificate viewers check (default: one made on first use, kept in the config directory)',
    section: 'share',
    commands: [...SERVING, 'replay'],
    what: 'a certificate file',
  }),
  valueOption('tlsKey', {
    flags: '--tls-key <file>',
    advanced: SERVING,
    help: "the PEM private key of --tls-cert's certificate",
    section: 'share',
    commands: [...SERVING, 'replay'],
    what: 'a key file',
  }),
  // Offer plain VNC authentication (no TLS) beside VeNCrypt on an exposed listener.
  switchOption('insecureVncAuth', {
    flags: INSECURE_VNC_AUTH_FLAG,
    advanced: true,
    help: 'on a non-loopback --listen, also offer plain VNC authentication without TLS (for viewers without VeNCrypt; password and screen then cross the network in clear)',
    section: 'share',
    commands: [...SERVING, 'replay'],
  }),
  // Serve serial and SPICE consoles on a non-loopback --listen without authentication.
  switchOption('insecureExposeUnauthenticated', {
    flags: INSECURE_EXPOSE_FLAG,
    advanced: true,
    help: 'on a non-loopback --listen, serve what no password protects (serial, SPICE; VNC relayed unencrypted with --no-share) instead of refusing it',
    section: 'share',
    commands: SERVING,
  }),
  valueOption('record', {
    flags: '--record <dir>',
    advanced: true,
    help: 'record every console into DIR, one file per session (VNC: .vncrec, serial: asciicast .cast; created 0600)',
    section: 'record',
    commands: [...SERVING, 'console'],
    what: 'a directory',
  }),
  valueOption('recordMaxSize', {
    flags: '--record-max-size <size>',
    advanced: true,
    help: 'disk all recordings of this run may use, e.g. 500M or 2G (default: 1G); recording stops there',
    section: 'record',
    commands: [...SERVING, 'console'],
    parse: parseSize,
  }),
  // The commands that join a console another vconsole holds (and, sharing it, hold one).
  switchOption('join', {
    flags: '--no-join',
    advanced: true,
    help: 'dial the console itself even when another vconsole of yours holds it (see vconsole ps), and hold none for the others',
    section: 'join',
    commands: [...SERVING, 'console', 'screenshot', 'type', 'send', 'wait', 'run'],
  }),
  // `--via`'s bastion, `[user@]host[:port]`: every command resolves and dials there unless --via says otherwise.
  valueOption('via', {
    flags: '--via <[user@]host[:port]>',
    help: "resolve and dial the consoles on that host through your own ssh (vconsole install --via HOST puts vconsole there); default: the config file's via",
    section: 'via',
    commands: [...SERVING, 'console', 'screenshot', 'type', 'send', 'wait', 'run', 'power', 'list'],
    parse: (text) => parseViaAddress(text).text,
    config: stringKey('via'),
  }),
  valueOption('wait', {
    flags: '--wait <duration>',
    advanced: true,
    help: 'with --via: connect again this long (e.g. 5m) when the ssh connection drops (default: 0, end the consoles)',
    section: 'via',
    commands: SERVING,
  }),
] as const;

type CommandFlags = typeof COMMAND_FLAGS;

/** The shared flags command `C` takes, typed by their declarations. */
export type CommandFlagsIn<C extends string> = FlagsIn<CommandFlags, C>;

/** `--share` and what comes with it: the viewer password, TLS, exposure (proxy, open; replay the password and TLS). */
export type ShareFlags = FlagsOfSection<CommandFlags, 'share'>;
/** `--record DIR` and `--record-max-size SIZE` (open, proxy, console). */
export type RecordFlags = FlagsOfSection<CommandFlags, 'record'>;
/** `--no-join` (commander sets `join: false`). */
export type JoinFlags = FlagsOfSection<CommandFlags, 'join'>;
/** `--via` and, on the serving commands, its `--wait`. */
export type ViaFlags = FlagsOfSection<CommandFlags, 'via'>;
