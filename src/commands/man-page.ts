// vconsole(1): the man page, written from the program `--help` prints (cli.ts's buildProgram), so
// it names every command and every flag --help and --help-all do, with the same help words.
// scripts/packaging/man-page.mjs writes it for the .deb; nothing here is hand-kept per command.
import type { Command, Option } from 'commander';

/** The environment variables the docs describe, each with what it changes. */
const ENVIRONMENT: readonly (readonly [string, string])[] = [
  ['KUBECONFIG', 'the kubeconfig files of the KubeVirt provider, as kubectl reads them'],
  ['VCONSOLE_BROWSER', 'the program the browser viewer opens its tabs with'],
  ['VCONSOLE_THUMBNAILS', 'how the terminal UI draws thumbnails (truecolor, 256, kitty, iterm2, sixel, none)'],
  ['VCONSOLE_SSH_COMMAND', 'the ssh command --via runs, as shell words'],
  ['VCONSOLE_VIA_COMMAND', 'the far vconsole --via starts, as shell words'],
  ['VCONSOLE_EXECUTABLES', 'where install --via finds the executables it copies'],
  ['XDG_RUNTIME_DIR', 'where the sockets of running vconsoles are kept (its vconsole directory)'],
  ['XDG_STATE_HOME', 'where the name of that directory and other state is kept (default ~/.local/state)'],
];

const EXIT_STATUS: readonly (readonly [string, string])[] = [
  ['0', 'success'],
  ['1', 'a runtime failure (a console, an API or a viewer failed)'],
  ['2', 'a usage error (an unknown flag, a bad target or value)'],
  ['130', 'interrupted (Ctrl-C)'],
];

/**
 * Text made safe for roff: backslashes, hyphens, a leading dot or apostrophe; a line may break
 * after a slash (long flag lists like -l/-A/--os-filter).
 */
export function roffText(text: string): string {
  const escaped = text.replace(/\\/g, '\\e').replace(/-/g, '\\-').replace(/\//g, '/\\:');
  return escaped
    .split('\n')
    .map((line) => (/^[.']/.test(line) ? `\\&${line}` : line))
    .join('\n');
}

function bold(text: string): string {
  return `\\fB${roffText(text)}\\fR`;
}

function optionEntry(option: Option): string[] {
  const choices = option.argChoices ? ` (${option.argChoices.join(', ')})` : '';
  const fallback =
    option.defaultValue !== undefined && typeof option.defaultValue !== 'boolean' ? ` (default: ${String(option.defaultValue)})` : '';
  return ['.TP', bold(option.flags), roffText(`${option.description}${choices}${fallback}`.trim() || ' ')];
}

function visibleCommands(program: Command): Command[] {
  return program
    .createHelp()
    .visibleCommands(program)
    .filter((command) => command.name() !== 'help');
}

/** Every flag a command declares that is not hidden: what its --help-all lists. */
function declaredOptions(command: Command): Option[] {
  return command.options.filter((option) => !option.hidden);
}

function usageOf(command: Command, parents: string): string {
  return `${parents} ${command.name()} ${command.usage()}`.trim();
}

function commandSection(command: Command, parents: string): string[] {
  const lines = ['.SS ' + roffText(`${parents.replace(/^vconsole ?/, '')} ${command.name()}`.trim()), bold(usageOf(command, parents))];
  if (command.aliases().length) lines.push('.br', roffText(`Also: ${command.aliases().join(', ')}`));
  lines.push('.PP', roffText(command.description() || ' '));
  const options = declaredOptions(command);
  if (options.length) lines.push('.PP', 'Options:', '.RS', ...options.flatMap(optionEntry), '.RE');
  for (const sub of visibleCommands(command)) lines.push(...commandSection(sub, `${parents} ${command.name()}`));
  return lines;
}

function definitionList(entries: readonly (readonly [string, string])[]): string[] {
  return entries.flatMap(([name, text]) => ['.TP', bold(name), roffText(text)]);
}

/** The whole man page of `program`, version `version`, dated `date` (YYYY-MM-DD). */
export function manPage(program: Command, version: string, date: string): string {
  const name = program.name();
  return [
    `.TH ${name.toUpperCase()} 1 "${date}" "${name} ${roffText(version)}" "User Commands"`,
    '.SH NAME',
    `${name} \\- ${roffText(program.description())}`,
    '.SH SYNOPSIS',
    `${bold(name)} [\\fIOPTIONS\\fR] \\fICOMMAND\\fR [\\fIARGS\\fR]`,
    '.br',
    `\\fBkubectl vconsole\\fR \\fICOMMAND\\fR [\\fIARGS\\fR]`,
    '.SH DESCRIPTION',
    roffText(program.description()),
    '.PP',
    roffText(`${name} COMMAND --help shows a command's common flags, --help-all every flag; this page lists every flag.`),
    '.SH OPTIONS',
    ...declaredOptions(program).flatMap(optionEntry),
    '.SH COMMANDS',
    ...visibleCommands(program).flatMap((command) => commandSection(command, name)),
    '.SH ENVIRONMENT',
    ...definitionList(ENVIRONMENT),
    '.SH FILES',
    ...definitionList([
      ['$XDG_RUNTIME_DIR/vconsole', 'the sockets of the running vconsoles (ps, joining)'],
      ['~/.local/state/vconsole/runtime-dir', 'names that directory when it is elsewhere'],
    ]),
    '.SH EXIT STATUS',
    ...definitionList(EXIT_STATUS),
    '.SH SEE ALSO',
    `${bold('kubectl')}(1), ${bold('virsh')}(1), ${bold('ssh')}(1), ${bold('vncviewer')}(1)`,
    '',
  ].join('\n');
}
