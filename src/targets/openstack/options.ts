// OpenStack's options, each declared once (flag, env var, config and workspace keys, help), and
// its selection: --os-filter and --os-tag pick servers by name pattern and tags.
import { UsageError } from '../../errors.js';
import { echoInput } from '../../text/terminal-text.js';
import {
  listKey,
  stringKey,
  listOption,
  regexFilter,
  textKey,
  valueOption,
  valuesOf,
  type FlagSelection,
  type OptionGroup,
} from '../option-group.js';

declare module '../types.js' {
  /** What OpenStack reads of the options its flags fill. */
  interface TargetOptions {
    cloud?: string;
    /** OpenStack region (default: the cloud's, else $OS_REGION_NAME). */
    region?: string;
    /** OpenStack endpoint interface (default: public). */
    interface?: 'public' | 'internal' | 'admin';
  }
  /** How far OpenStack's listing looks. */
  interface ListScope {
    /** Servers whose name matches this regular expression (Nova's `name` filter). */
    nameRegex?: string;
    /** Servers carrying every one of these tags (Nova's `tags` filter). */
    tags?: string[];
  }
}

/** `--os-tag`: Nova tags hold no comma or slash. */
function parseServerTag(text: string): string {
  if (!text || /[,/]/.test(text) || text.length > 60) {
    throw new UsageError(
      `bad --os-tag "${echoInput(text)}"`,
      'a Nova tag is 1 to 60 characters without "," or "/"; repeat --os-tag for several',
    );
  }
  return text;
}

const CLOUD_ENV = { name: 'OS_CLOUD', use: 'value' } as const;

const OPENSTACK_OPTIONS = [
  valueOption('cloud', {
    flags: '--cloud <name>',
    help: 'OpenStack: cloud from clouds.yaml (default: $OS_CLOUD, else the OS_* variables)',
    section: 'target',
    what: 'a cloud name',
    into: 'cloud',
    env: CLOUD_ENV,
    config: stringKey('cloud'),
    workspace: textKey('cloud', 'a cloud name from clouds.yaml'),
  }),
  valueOption('osCloud', {
    flags: '--os-cloud <name>',
    help: 'the openstack CLI spelling of --cloud',
    section: 'target',
    what: 'a cloud name',
    hidden: true,
    into: 'cloud',
    env: CLOUD_ENV,
  }),
  valueOption('osRegion', {
    flags: '--os-region <name>',
    help: "OpenStack: region (default: the cloud's, else $OS_REGION_NAME)",
    section: 'target',
    what: 'a region name',
    into: 'region',
  }),
  valueOption<'osInterface', 'public' | 'internal' | 'admin'>('osInterface', {
    flags: '--os-interface <interface>',
    help: 'OpenStack: endpoint interface (default: public)',
    section: 'target',
    choices: ['public', 'internal', 'admin'],
    into: 'interface',
  }),
  valueOption('osFilter', {
    flags: '--os-filter <regex>',
    help: 'OpenStack: the servers whose name matches this regular expression',
    section: 'selector',
    // A regular expression both Nova and vconsole can read.
    ...regexFilter('--os-filter', 'osFilter', 'server names'),
  }),
  listOption('osTag', {
    flags: '--os-tag <tag>',
    help: 'OpenStack: the servers with this tag (repeat: with all of them)',
    section: 'selector',
    parse: parseServerTag,
    workspace: listKey(
      'osTags',
      (v) => (typeof v === 'string' && v && !/[,/]/.test(v) ? v : undefined),
      'a list of Nova tags (no "," or "/")',
    ),
  }),
] as const;

/** --os-filter and --os-tag select servers by name and tags; nothing else selects. */
function openstackSelection(flags: Readonly<Record<string, unknown>>): FlagSelection | undefined {
  const filter = flags.osFilter as string | undefined;
  const tags = valuesOf(flags.osTag);
  if (filter === undefined && tags.length === 0) return undefined;
  const shown = [filter !== undefined ? `--os-filter ${filter}` : undefined, ...tags.map((t) => `--os-tag ${t}`)];
  return {
    scope: { nameRegex: filter, tags: tags.length ? tags : undefined },
    shownAs: shown.filter(Boolean).join(' '),
    reach: 'matching',
  };
}

export const openstackOptions: OptionGroup<typeof OPENSTACK_OPTIONS> = {
  provider: 'openstack',
  options: OPENSTACK_OPTIONS,
  selectingFlags: ['osFilter', 'osTag'],
  selection: openstackSelection,
};
