// The shape of an option declaration and of an option group: each provider declares its options
// once here (flag, env var, config key, workspace key, help, parser) and says which flags select
// VMs; the commands' own flags (src/flags/command-flags.ts) are declared the same way, with the
// commands that take them. The command line, the typed flags, config and workspace validation and
// the merge into TargetOptions are all derived from these declarations (as kubectl's ConfigFlags:
// one struct, AddFlags, ToRESTConfig). Pure data and small parsers: no commander, so providers
// stay free of the CLI.
import { UsageError } from '../errors.js';
import { echoInput } from '../text/terminal-text.js';
import type { ListScope, TargetOptions } from './types.js';

/** How an option takes values: none (a switch), one, a list, or one string that repeats into a list. */
type OptionArity = 'switch' | 'value' | 'list' | 'one-or-list';

/**
 * Where a command's --help lists an option: each command lays its flags out as a list of these
 * (src/commands/flags.ts, addFlags), adding the declarations of a section that act in it. `own`:
 * a command's own flags, declared beside it and given to it directly.
 */
export type OptionSection = 'target' | 'selector' | 'type' | 'viewer' | 'listen' | 'follow' | 'share' | 'record' | 'join' | 'via' | 'own';

/** A key the config file's `defaults` (or a workspace) may set: how it is checked and said. */
export interface FileKey<K extends string = string, V = unknown> {
  /** The key as the file spells it, e.g. `kubeconfig`, `osTags`. */
  readonly key: K;
  /** The value as stored, or undefined when it is bad. */
  read(value: unknown): V | undefined;
  /** What a good value is, for the hint: `a Kubernetes namespace name`. */
  readonly allowed: string;
}

/** A workspace key: like a config key, and maybe also spelled with one value (`namespace: x` for `namespaces`). */
interface WorkspaceKey<K extends string = string, V = unknown> extends FileKey<K, V> {
  /** The key spelling one value of a list key, e.g. `namespace` beside `namespaces`. */
  readonly single?: FileKey;
  /** The flag's value from what the workspace stores (default: as stored). */
  toFlag?(stored: unknown): unknown;
}

/** Where an environment variable sits between the flag and the config file. */
interface EnvSource {
  readonly name: string;
  /**
   * `value`: its value is the option's (OS_CLOUD). `provider`: when set, the provider reads it
   * itself (KUBECONFIG may list several files), so the config file's default does not apply.
   */
  readonly use: 'value' | 'provider';
}

/**
 * One option, declared once. `V` is the type of its value in the flags object; it exists only
 * for the types derived from the declaration (FlagsOf).
 */
export interface OptionDeclaration<K extends string = string, V = unknown> {
  /** Its key in the flags object: commander's name for the long flag (`--os-region` -> `osRegion`). */
  readonly key: K;
  /** The flag spelling, e.g. `-n, --namespace <ns>`. */
  readonly flags: string;
  readonly help: string;
  /** Its help in the commands where it says something else (`--share`'s "the default here" in open). */
  readonly helpIn?: Readonly<Record<string, string>>;
  /** Where --help lists it: with the target options, the selectors after them, or a command flags' section. */
  readonly section: OptionSection;
  readonly arity: OptionArity;
  /** For a value: what to give, said when it is empty (`a kubeconfig file`); empty text is refused. */
  readonly what?: string;
  /** Checks one value and returns it as used; throws a UsageError saying what is wrong. */
  parse?(text: string): unknown;
  /** kubectl's `-n=prod` form: a leading `=` is dropped (no value starts with one). */
  readonly kubectlShortForm?: boolean;
  /** The only values allowed (listed in --help). */
  readonly choices?: readonly string[];
  /** Kept out of --help and --help-all (another spelling of an option there). */
  readonly hidden?: boolean;
  /**
   * Listed with its help by --help-all only, not by the short --help (which names it in one
   * line): in every command that takes it (`true`) or in those named. A provider's options are
   * left to --help-all anyway (src/commands/help-all.ts).
   */
  readonly advanced?: true | readonly string[];
  /** The command refuses to run without it (`install --via`). */
  readonly mandatory?: boolean;
  /**
   * The commands where it acts (`open`, `proxy`, ...); absent: every command that takes the
   * provider options. A command where it would mean nothing neither offers nor accepts it.
   */
  readonly commands?: readonly string[];
  /** The TargetOptions field it fills; several flags may fill one (the first given wins). */
  readonly into?: keyof TargetOptions;
  /** The TargetOptions value from the flag's (default: the same). */
  toOption?(value: unknown): unknown;
  /** The environment variable below the flag. */
  readonly env?: EnvSource;
  /** `defaults.KEY` in the config file, below the flag and the environment. */
  readonly config?: FileKey;
  /** The key a workspace sets it with; the command line's flag wins over it. */
  readonly workspace?: WorkspaceKey;
  /** What it is without flag, env or config (a switch: false). */
  readonly fallback?: unknown;
  /** Value type carrier for FlagsOf; never set. */
  readonly valueType?: V;
}

/** The flags object the declarations give: each key optional, typed by its declaration. */
export type FlagsOf<D extends readonly OptionDeclaration[]> = {
  [O in D[number] as O['key']]?: O extends OptionDeclaration<string, infer V> ? V : never;
};

type Declared<K extends string> = Omit<OptionDeclaration<K>, 'key' | 'arity' | 'valueType'>;

/**
 * A declaration keeps its literal config and workspace keys and its commands, for the types
 * derived from them (ConfigKeysOf, WorkspaceKeysOf, FlagsIn).
 */
type Keeping<D> = Pick<D, Extract<keyof D, 'config' | 'workspace' | 'commands' | 'section'>>;

/** The declarations acting in command `C`: those naming it in `commands`, and those naming none. */
type ActingIn<O, C extends string> = O extends { readonly commands: readonly (infer N)[] } ? (C extends N ? O : never) : O;

/** The flags object of command `C` that the declarations give (FlagsOf of those acting in it). */
export type FlagsIn<D extends readonly OptionDeclaration[], C extends string> = FlagsOf<ActingIn<D[number], C>[]>;

/** The flags object one --help section of the declarations gives. */
export type FlagsOfSection<D extends readonly OptionDeclaration[], S extends OptionSection> = FlagsOf<Extract<D[number], { section: S }>[]>;

/** A flag without a value. */
export function switchOption<K extends string, const D extends Declared<K>>(
  key: K,
  declared: D,
): OptionDeclaration<K, boolean> & Keeping<D> {
  return { key, arity: 'switch', ...declared };
}

/** A flag with one value; `T` is what its parser returns. */
export function valueOption<K extends string, T = string, const D extends Declared<K> = Declared<K>>(
  key: K,
  declared: D & { parse?(text: string): T },
): OptionDeclaration<K, T> & Keeping<D> {
  return { key, arity: 'value', ...declared };
}

/** A repeatable flag: its values in order. */
export function listOption<K extends string, T = string, const D extends Declared<K> = Declared<K>>(
  key: K,
  declared: D & { parse?(text: string): T },
): OptionDeclaration<K, T[]> & Keeping<D> {
  return { key, arity: 'list', ...declared };
}

/** A repeatable flag whose one value stays a string (as before it repeated), more becoming a list. */
export function oneOrListOption<K extends string, const D extends Declared<K>>(
  key: K,
  declared: D,
): OptionDeclaration<K, string | string[]> & Keeping<D> {
  return { key, arity: 'one-or-list', ...declared };
}

/** The `defaults` keys the declarations give, typed as their values are read. */
export type ConfigKeysOf<D extends readonly OptionDeclaration[]> = {
  [O in D[number] as O extends { config: FileKey<infer C> } ? C : never]?: O extends { config: FileKey<string, infer V> } ? V : never;
};

/** The workspace keys the declarations give (a one-value spelling is read into its list key). */
export type WorkspaceKeysOf<D extends readonly OptionDeclaration[]> = {
  [O in D[number] as O extends { workspace: WorkspaceKey<infer W> } ? W : never]?: O extends { workspace: WorkspaceKey<string, infer V> }
    ? V
    : never;
};

/** What a provider's flags select: the scope its `list` is asked with, and how to say it again. */
export interface FlagSelection {
  readonly scope: ListScope;
  /** The flags as the user would write them again, for messages: `-l app=web -n prod`. */
  readonly shownAs: string;
  /**
   * `matching`: VMs by what they are (a label, a name pattern, a tag). `places`: only where
   * to look (several namespaces). `everywhere`: the provider's whole listing (-A alone).
   */
  readonly reach: 'matching' | 'places' | 'everywhere';
}

/** A provider's options and its answer to "do these flags select VMs?". */
export interface OptionGroup<D extends readonly OptionDeclaration[] = readonly OptionDeclaration[]> {
  /** The provider whose `list` the selection asks (its id). */
  readonly provider: string;
  readonly options: D;
  /** The flags (keys of `options`) that choose VMs, in the order hints name them. */
  readonly selectingFlags?: readonly string[];
  /** Flags that say one thing together (where to look): any given on the command line replaces all of a workspace's. */
  readonly replacedTogether?: readonly string[];
  /** What the flags select; undefined when they select nothing. Throws a UsageError on a contradiction. */
  selection?(flags: Readonly<Record<string, unknown>>): FlagSelection | undefined;
  /**
   * Where a named VM of this provider is looked for when the flags widen the search (-A,
   * several -n); undefined when the name says where it is (`NS/NAME`) or the flags do not widen.
   */
  nameScope?(flags: Readonly<Record<string, unknown>>, name: string): ListScope | undefined;
}

/** Every value given of a repeatable option, in order, once each (undefined: none). */
export function valuesOf(value: unknown): string[] {
  return [...new Set(value === undefined ? [] : [value].flat().map(String))];
}

/** A config or workspace key holding a non-empty string. */
export function textKey<K extends string>(key: K, allowed: string): FileKey<K, string> {
  return { key, read: (v) => (typeof v === 'string' && v.trim() ? v : undefined), allowed };
}

/** A config key holding any string but the empty one (as `defaults.*` always took). */
export function stringKey<K extends string>(key: K): FileKey<K, string> {
  return { key, read: (v) => (typeof v === 'string' && v.length > 0 ? v : undefined), allowed: 'a non-empty string' };
}

/** A config or workspace key holding true or false. */
export function switchKey<K extends string>(key: K): FileKey<K, boolean> {
  return { key, read: (v) => (typeof v === 'boolean' ? v : undefined), allowed: 'true or false' };
}

/** A workspace key holding a non-empty list, each item read by `each`. */
export function listKey<K extends string, T>(key: K, each: (v: unknown) => T | undefined, allowed: string): FileKey<K, T[]> {
  return {
    key,
    read: (v) => {
      if (!Array.isArray(v) || v.length === 0) return undefined;
      const items = v.map(each);
      return items.every((item) => item !== undefined) ? items : undefined;
    },
    allowed,
  };
}

/** A key read by a parser that throws on a bad value. */
export function parsedKey<K extends string, T>(key: K, parse: (text: string) => T, allowed: string): FileKey<K, T> {
  return {
    key,
    read: (v) => {
      if (typeof v !== 'string') return undefined;
      try {
        return parse(v);
      } catch {
        return undefined;
      }
    },
    allowed,
  };
}

/**
 * A flag taking a regular expression over names (`--os-filter`, `--libvirt-filter`) and its
 * workspace key: the flag's parser refuses what JavaScript cannot read, naming the flag; the key
 * holds a non-empty one. `names` says what it matches, e.g. `server names`.
 */
export function regexFilter<K extends string>(
  flag: string,
  key: K,
  names: string,
): { parse(text: string): string; workspace: FileKey<K, string> } {
  const parse = (text: string): string => {
    try {
      new RegExp(text);
    } catch (err) {
      throw new UsageError(
        `bad ${flag} "${echoInput(text)}": ${(err as Error).message.replace(/^Invalid regular expression: /, '')}`,
        `give a regular expression over ${names}, e.g. ^web-`,
      );
    }
    return text;
  };
  const stored = parsedKey(key, parse, `a regular expression over ${names}`);
  return { parse, workspace: { ...stored, read: (v) => (v === '' ? undefined : stored.read(v)) } };
}
