// Proxmox VE's options, each declared once (flag, config and workspace keys, help), and its
// selection: --pve-pool, --pve-node and --pve-tag pick guests of the cluster.
import { UsageError } from '../../errors.js';
import { echoInput } from '../../text/terminal-text.js';
import { listKey, listOption, stringKey, textKey, valueOption, valuesOf, type FlagSelection, type OptionGroup } from '../option-group.js';

declare module '../types.js' {
  /** What Proxmox VE reads of the options its flags fill. */
  interface TargetOptions {
    /** The cluster's API, e.g. `https://pve1.example:8006`. */
    pveUrl?: string;
    /** A 0600 file whose first line is `USER@REALM!TOKENID=SECRET`. */
    pveTokenFile?: string;
    /** `USER@REALM` logging in with --pve-password-file (a ticket from /access/ticket). */
    pveUser?: string;
    pvePasswordFile?: string;
    /** The node a guest's name is looked for on, when several guests share it. */
    pveNode?: string;
  }
  /** How far Proxmox VE's listing looks. */
  interface ListScope {
    /** Guests in this pool. */
    pvePool?: string;
    /** Guests on this node. */
    pveNode?: string;
    /** Guests carrying every one of these tags. */
    pveTags?: string[];
  }
}

/** `--pve-url`: an https URL of the API (the port, 8006, is Proxmox's default). */
export function parsePveUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `https://${text}`);
  } catch {
    throw new UsageError(`bad --pve-url "${echoInput(text)}"`, 'give the API address, e.g. https://pve1.example:8006');
  }
  if (url.protocol !== 'https:' || url.username || url.password || url.search) {
    throw new UsageError(
      `bad --pve-url "${echoInput(text)}": Proxmox VE's API is https, with no credentials or query in the URL`,
      'give e.g. https://pve1.example:8006 and the credentials with --pve-token-file or --pve-user/--pve-password-file',
    );
  }
  // Proxmox VE's API listens on 8006; a port written out (even https's own 443) is kept.
  const portGiven = /^(?:[a-z][a-z0-9+.-]*:\/\/)?(?:\[[^\]]*\]|[^/:?#]*):\d+/i.test(text);
  if (!portGiven) url.port = '8006';
  return url.origin;
}

/** Node names, pools and tags as Proxmox VE allows them (a tag: letters, digits and `-_+.`). */
const PVE_WORD = /^[A-Za-z0-9][A-Za-z0-9_.+-]{0,127}$/;

function wordParser(flag: string, what: string): (text: string) => string {
  return (text) => {
    if (!PVE_WORD.test(text))
      throw new UsageError(`bad ${flag} "${echoInput(text)}"`, `give ${what} (letters, digits, "-", "_", ".", "+")`);
    return text;
  };
}

const parseNodeName = wordParser('--pve-node', 'a node name');
const parsePoolName = wordParser('--pve-pool', 'a pool name');
/** Proxmox VE keeps tags in lower case. */
export const parseTag = (text: string): string => wordParser('--pve-tag', 'a tag')(text).toLowerCase();

const word = (v: unknown) => (typeof v === 'string' && PVE_WORD.test(v) ? v : undefined);

const PVE_OPTIONS = [
  valueOption('pveUrl', {
    flags: '--pve-url <url>',
    help: 'Proxmox VE: the API of the cluster, e.g. https://pve1:8006',
    section: 'target',
    what: 'an API URL',
    parse: parsePveUrl,
    into: 'pveUrl',
    config: stringKey('pveUrl'),
    workspace: textKey('pveUrl', 'a Proxmox VE API URL'),
  }),
  valueOption('pveTokenFile', {
    flags: '--pve-token-file <file>',
    help: 'Proxmox VE: a 0600 file holding an API token, USER@REALM!TOKENID=SECRET',
    section: 'target',
    what: 'a token file',
    into: 'pveTokenFile',
    config: stringKey('pveTokenFile'),
    workspace: textKey('pveTokenFile', 'a Proxmox VE API token file'),
  }),
  valueOption('pveUser', {
    flags: '--pve-user <user@realm>',
    help: 'Proxmox VE: log in as this user (with --pve-password-file) instead of a token',
    section: 'target',
    what: 'a user, e.g. root@pam',
    into: 'pveUser',
    config: stringKey('pveUser'),
    workspace: textKey('pveUser', 'a Proxmox VE user, e.g. root@pam'),
  }),
  valueOption('pvePasswordFile', {
    flags: '--pve-password-file <file>',
    help: "Proxmox VE: a 0600 file whose first line is --pve-user's password",
    section: 'target',
    what: 'a password file',
    into: 'pvePasswordFile',
    config: stringKey('pvePasswordFile'),
    workspace: textKey('pvePasswordFile', 'a Proxmox VE password file'),
  }),
  valueOption('pveNode', {
    flags: '--pve-node <node>',
    help: 'Proxmox VE: the guests on this node (and where a name several guests share is looked for)',
    section: 'selector',
    parse: parseNodeName,
    into: 'pveNode',
    workspace: { key: 'pveNode' as const, read: word, allowed: 'a Proxmox VE node name' },
  }),
  valueOption('pvePool', {
    flags: '--pve-pool <pool>',
    help: 'Proxmox VE: the guests in this pool',
    section: 'selector',
    parse: parsePoolName,
    workspace: { key: 'pvePool' as const, read: word, allowed: 'a Proxmox VE pool name' },
  }),
  listOption('pveTag', {
    flags: '--pve-tag <tag>',
    help: 'Proxmox VE: the guests with this tag (repeat: with all of them)',
    section: 'selector',
    parse: parseTag,
    workspace: listKey('pveTags', (v) => word(v)?.toLowerCase(), 'a list of Proxmox VE tags'),
  }),
] as const;

/** --pve-pool, --pve-node and --pve-tag select guests (the node alone only without names); nothing else selects. */
export function pveSelection(flags: Readonly<Record<string, unknown>>): FlagSelection | undefined {
  const pool = flags.pvePool as string | undefined;
  const node = flags.pveNode as string | undefined;
  const tags = valuesOf(flags.pveTag);
  if (pool === undefined && node === undefined && tags.length === 0) return undefined;
  const shown = [
    pool !== undefined ? `--pve-pool ${pool}` : undefined,
    node !== undefined ? `--pve-node ${node}` : undefined,
    ...tags.map((t) => `--pve-tag ${t}`),
  ];
  return {
    scope: { pvePool: pool, pveNode: node, pveTags: tags.length ? tags : undefined },
    shownAs: shown.filter(Boolean).join(' '),
    // --pve-node alone says where to look: beside a name it picks among guests of that name.
    reach: pool === undefined && tags.length === 0 ? 'places' : 'matching',
  };
}

export const pveOptions: OptionGroup<typeof PVE_OPTIONS> = {
  provider: 'pve',
  options: PVE_OPTIONS,
  selectingFlags: ['pvePool', 'pveNode', 'pveTag'],
  selection: pveSelection,
};
