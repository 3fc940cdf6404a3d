import { heldConsoles, type HeldRecord, processPlace, runtimeDirPath } from '../holding/index.js';
import { terminalSafe } from '../text/terminal-text.js';
import { alignColumns } from './text-table.js';
import { documentText, outputFormat, type OutputFlags } from './output-format.js';

export type PsFlags = OutputFlags;

/** One held console as `ps -o json` prints it. */
type PsEntry = Pick<HeldRecord, 'pid' | 'command' | 'target' | 'provider' | 'kind' | 'since' | 'joiners'>;

/**
 * Prints what this user's vconsoles hold: a table (nothing held: one line on stderr, exit 0) or a
 * document. What a dead vconsole left is removed on the way, never listed.
 */
export async function runPsCommand(flags: PsFlags, io: { stdout: NodeJS.WritableStream; stderr: NodeJS.WritableStream }): Promise<number> {
  const format = outputFormat(flags);
  const dir = runtimeDirPath(processPlace());
  const held: PsEntry[] = heldConsoles(dir).map(({ pid, command, target, provider, kind, since, joiners }) => ({
    pid,
    command,
    target,
    provider,
    kind,
    since,
    joiners,
  }));
  if (format === 'json' || format === 'yaml') {
    io.stdout.write(await documentText(held, format));
    return 0;
  }
  if (typeof format === 'object') {
    io.stdout.write(format.list(held));
    return 0;
  }
  if (held.length === 0) {
    io.stderr.write(`no consoles held by your vconsoles on this machine (looked in ${dir})\n`);
    return 0;
  }
  if (format === 'name') {
    // A target's name came from an API: its control characters shown, as list -o name shows them.
    io.stdout.write(held.map((entry) => `${terminalSafe(`${entry.target}#${entry.kind}`)}\n`).join(''));
    return 0;
  }
  const wide = format === 'wide';
  const rows = [
    ['PID', 'COMMAND', 'TARGET', 'KIND', 'SINCE', 'JOINERS', ...(wide ? ['PROVIDER'] : [])],
    ...held.map((entry) => [
      String(entry.pid),
      `vconsole ${entry.command}`,
      entry.target,
      entry.kind,
      sinceText(entry.since),
      String(entry.joiners),
      ...(wide ? [entry.provider] : []),
    ]),
  ];
  io.stdout.write(alignColumns(rows).join('\n') + '\n');
  return 0;
}

/** `2026-12-01 17:40:12` in local time; what the record holds when it is no date. */
function sinceText(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  const two = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${two(date.getMonth() + 1)}-${two(date.getDate())} ${two(date.getHours())}:${two(date.getMinutes())}:${two(date.getSeconds())}`;
}
