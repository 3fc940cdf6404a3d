// The short --help and --help-all. A command's --help lists the flags a newcomer needs and only
// names the others, by provider or by what they are about; --help-all lists every flag with its
// help, and the details the command's definition keeps for it (showsAll). Which flags go where
// derives from their declarations: a provider's options (src/targets/*/options.ts) and those
// declaring `advanced` are left to --help-all; addFlags (flags.ts) asks leftToHelpAll of each.
import { Help, Option, type Command } from 'commander';
import type { OptionDeclaration, OptionSection } from '../targets/option-group.js';
import { PROVIDER_OPTIONS } from '../targets/option-groups.js';

/** The flag that prints a command's whole help. */
const HELP_ALL_FLAG = '--help-all';

/** The width the names of the left-out flags wrap at (the help's default width). */
const WIDTH = 80;

/** What the short --help names an advanced flag under, by its --help section. */
const SECTION_WORDS: Readonly<Record<OptionSection, string>> = {
  target: 'target',
  selector: 'selecting',
  type: 'console type',
  viewer: 'viewer',
  listen: 'listening',
  follow: 'following',
  share: 'sharing',
  record: 'recording',
  join: 'joining',
  via: 'jump host',
  own: 'own',
};
/** The word of a command's own flags, said as `open's own`. */
const OWN = SECTION_WORDS.own;
/** The words that name a subject, not a provider. */
const SUBJECTS: ReadonlySet<string> = new Set(Object.values(SECTION_WORDS));

/** Per command, the options its short --help leaves out, each with the word it is named under. */
const leftOut = new WeakMap<Command, Map<Option, string>>();
/** The commands printing their --help-all now. */
const showingAll = new WeakSet<Command>();

/**
 * Whether the short --help of `command` leaves the declared option to --help-all, and if so the
 * word it names it under: a provider option's provider (its help starts with it), else the
 * section of an option declared `advanced` there.
 */
export function leftToHelpAll(declaration: OptionDeclaration, command: string): string | undefined {
  if (PROVIDER_OPTIONS.includes(declaration)) return providerOf(declaration);
  const advanced = declaration.advanced;
  if (advanced === true || advanced?.includes(command)) return SECTION_WORDS[declaration.section];
  return undefined;
}

/** Whose a provider option is, as its help starts: `KubeVirt: ...`, `ws(s)/OpenStack/Proxmox VE: ...`. */
function providerOf(declaration: OptionDeclaration): string {
  const who = /^([^:]+): /.exec(declaration.help)?.[1];
  if (!who) throw new Error(`option ${declaration.flags}: a provider option's help starts with its provider, e.g. "KubeVirt: ..."`);
  return who;
}

/** Leaves `option` out of the short --help of `command`, naming it under `word`; the first gives the command --help-all. */
export function leaveToHelpAll(command: Command, option: Option, word: string): void {
  let options = leftOut.get(command);
  if (!options) {
    options = new Map();
    leftOut.set(command, options);
    addHelpAll(command, options);
  }
  options.set(option, word);
}

/** Whether `command` is printing its --help-all (its definition adds the details then). */
function showsAll(command: Command): boolean {
  return showingAll.has(command);
}

/** The short help's text, or the whole help's: for a command's addHelpText. */
export function shortOrAll(command: Command, short: string, all: string): () => string {
  return () => (showsAll(command) ? all : short);
}

/**
 * `--help-all` on each command with flags whose --help already lists them all: the same help, so
 * the flag works on every command with flags (kept out of that help, which needs no pointer to
 * it). Not on a command without flags (its name in the root --help would say `[options]`), nor
 * on the program: commander reads the program's flags after a command's name too.
 */
export function acceptHelpAllEverywhere(program: Command): void {
  for (const command of program.commands) {
    if (leftOut.has(command) || command.options.length === 0) continue;
    const helpAll = new Option(HELP_ALL_FLAG, 'display help with every flag').hideHelp();
    command.addOption(helpAll);
    command.on(`option:${helpAll.name()}`, () => printAll(command));
  }
}

function printAll(command: Command): void {
  showingAll.add(command);
  command.help();
}

/**
 * Leaves the options out while the short help prints only: commander's "did you mean" and the
 * shell completion (src/commands/completion.ts) ask the same visibleOptions for every flag.
 */
function addHelpAll(command: Command, options: ReadonlyMap<Option, string>): void {
  const helpAll = new Option(HELP_ALL_FLAG, 'display help with every flag and the details');
  let printingShort = false;
  command.on('beforeHelp', () => (printingShort = !showingAll.has(command)));
  command.on('afterHelp', () => (printingShort = false));
  command.configureHelp({
    visibleOptions: (cmd: Command) => {
      const shown = new Help().visibleOptions(cmd).filter((o) => o !== helpAll && !(printingShort && options.has(o)));
      return [...shown, helpAll];
    },
  });
  command.addOption(helpAll);
  command.on(`option:${helpAll.name()}`, () => printAll(command));
  command.addHelpText('afterAll', () => (showingAll.has(command) ? '' : leftOutLines(command, options)));
}

/**
 * What the flags the short help left out are for (each provider, then each subject), and the
 * line that points at --help-all: a few lines whatever the number of flags.
 */
function leftOutLines(command: Command, options: ReadonlyMap<Option, string>): string {
  const words = [...new Set(options.values())];
  const providers = [...new Set(words.filter((word) => !SUBJECTS.has(word)).flatMap((word) => word.split('/')))];
  const subjects = words.filter((word) => SUBJECTS.has(word)).map((word) => (word === OWN ? `${command.name()}'s own` : word));
  const kinds = [providers.join(', '), subjects.join(', ')].filter(Boolean).join('; ');
  return `\n${wrapped(`More flags: for ${kinds}.`).join('\n')}\nvconsole ${command.name()} ${HELP_ALL_FLAG} shows every flag and what it does.`;
}

/** Text as lines of at most WIDTH characters, broken between words. */
function wrapped(text: string): string[] {
  const lines = [''];
  for (const word of text.split(' ')) {
    const last = lines.length - 1;
    if (lines[last] && lines[last].length + 1 + word.length > WIDTH) lines.push(word);
    else lines[last] = lines[last] ? `${lines[last]} ${word}` : word;
  }
  return lines;
}
