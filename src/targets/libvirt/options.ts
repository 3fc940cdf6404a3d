// libvirt's options, each declared once (flag, env var, config and workspace keys, help), and its
// selection: --libvirt-filter picks domains by name pattern, --libvirt-all takes every domain.
import {
  regexFilter,
  stringKey,
  switchKey,
  switchOption,
  textKey,
  valueOption,
  type FlagSelection,
  type OptionGroup,
} from '../option-group.js';

declare module '../types.js' {
  /** What libvirt reads of the options its flags fill. */
  interface TargetOptions {
    /** The connection URI of `libvirt:` targets and the listing (virsh's -c); default qemu:///system. */
    connect?: string;
  }
  /** How far libvirt's listing looks. */
  interface ListScope {
    /** Domains whose name matches this regular expression. */
    domainRegex?: string;
  }
}

const LIBVIRT_OPTIONS = [
  valueOption('connect', {
    flags: '--connect <uri>',
    help: 'libvirt: connection of libvirt: targets and of list, as virsh -c takes it (default: $LIBVIRT_DEFAULT_URI, else qemu:///system; qemu+ssh://[USER@]HOST/system runs virsh on HOST through ssh)',
    section: 'target',
    what: 'a libvirt connection URI',
    into: 'connect',
    env: { name: 'LIBVIRT_DEFAULT_URI', use: 'value' },
    config: stringKey('connect'),
    workspace: textKey('connect', 'a libvirt connection URI, e.g. qemu:///system'),
  }),
  valueOption('libvirtFilter', {
    flags: '--libvirt-filter <regex>',
    help: 'libvirt: the domains whose name matches this regular expression',
    section: 'selector',
    ...regexFilter('--libvirt-filter', 'libvirtFilter', 'domain names'),
  }),
  switchOption('libvirtAll', {
    flags: '--libvirt-all',
    help: 'libvirt: every domain of the connection',
    section: 'selector',
    workspace: switchKey('libvirtAll'),
  }),
] as const;

/** --libvirt-filter selects domains by name; --libvirt-all, all of them. */
function libvirtSelection(flags: Readonly<Record<string, unknown>>): FlagSelection | undefined {
  const filter = flags.libvirtFilter as string | undefined;
  if (filter !== undefined) return { scope: { domainRegex: filter }, shownAs: `--libvirt-filter ${filter}`, reach: 'matching' };
  if (flags.libvirtAll) return { scope: {}, shownAs: '--libvirt-all', reach: 'everywhere' };
  return undefined;
}

export const libvirtOptions: OptionGroup<typeof LIBVIRT_OPTIONS> = {
  provider: 'libvirt',
  options: LIBVIRT_OPTIONS,
  selectingFlags: ['libvirtFilter', 'libvirtAll'],
  selection: libvirtSelection,
};
