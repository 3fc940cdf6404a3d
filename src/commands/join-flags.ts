// --no-join, apart from the joining itself (joining.ts): building the command line loads this alone.
import type { Command } from 'commander';

/** `--no-join` (commander sets `join: false`). */
export interface JoinFlags {
  join?: boolean;
}

/** What --no-join says in the --help of every command that joins. */
export const NO_JOIN_HELP =
  'dial the console itself even when another vconsole of yours holds it (see vconsole ps), and hold none for the others';

/** The commands that join a console another vconsole holds (and, sharing it, hold one): each takes --no-join. */
export const JOINING_COMMANDS: readonly string[] = ['open', 'proxy', 'console', 'screenshot'];

/** Adds --no-join to a command. */
export function addJoinOption(command: Command): Command {
  return command.option('--no-join', NO_JOIN_HELP);
}
