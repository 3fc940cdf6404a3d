import type { Duplex } from 'node:stream';
import { VconsoleError } from '../../errors.js';
import type { DialContext } from '../../proxy/types.js';
import { kindOf, consoleLabel } from '../../console-kinds/index.js';
import { fixedConsoleType } from '../console-type.js';
import type { ConsoleProvider, ConsoleTarget, ConsoleType, ListedVm, TargetFacts, TargetOptions, VmStateContext } from '../types.js';
import {
  DEFAULT_LIBVIRT_URI,
  checkDomainName,
  describeConnection,
  domainTarget,
  parseConnectUri,
  parseSshTarget,
  type LibvirtConnection,
} from './connection.js';
import type { ConsoleAddress, DomainConsoles } from './domain-xml.js';
import { MissingProgramError, VirshError, runVirsh } from './host-command.js';
import { isNoSuchDomain } from './state.js';
import { didYouMean } from '../../text/near-names.js';
import type { PowerAction, PowerStep, TargetCapabilities } from '../capabilities.js';

/** What a domain can offer: `auto` takes its first graphics (VNC or SPICE, in its definition's order), else its serial console. */
const LIBVIRT_CONSOLE_TYPES: readonly ConsoleType[] = ['vnc', 'spice', 'serial'];
/** The connections of one SPICE session (several at once) share one reading of the domain's XML. */
const DOMAIN_XML_SHARE_MS = 5_000;

/** The domain's XML, live: with `--security-info` where allowed (so a set password shows), else without. */
async function dumpDomainXml(connection: LibvirtConnection, domain: string, signal: AbortSignal): Promise<string> {
  try {
    return await runVirsh(connection, ['dumpxml', '--security-info', '--', domain], signal);
  } catch (err) {
    if (!(err instanceof VirshError) || isNoSuchDomain(err)) throw err;
    // A read-only connection may not see security info: the rest of the XML is enough.
    return runVirsh(connection, ['dumpxml', '--', domain], signal);
  }
}

/** One libvirt domain's console, read from its definition each time it is dialled (autoport moves with restarts). */
class LibvirtTarget implements ConsoleTarget {
  readonly provider = 'libvirt';
  readonly name: string;
  readonly facts: TargetFacts;
  readonly capabilities: TargetCapabilities = { power: (signal, action, step) => this.power(signal, action, step) };
  private recent?: { at: number; consoles: Promise<DomainConsoles> };
  private toldPassword = false;

  constructor(
    readonly input: string,
    private readonly connection: LibvirtConnection,
    private readonly domain: string,
    private readonly asked: ConsoleType | 'auto',
  ) {
    const uri = connection.kind === 'local' && connection.uri !== DEFAULT_LIBVIRT_URI ? ` (${connection.uri})` : '';
    this.name = `${domainTarget(connection, domain)}${uri}`;
    this.facts = { consoleType: fixedConsoleType({ consoleType: asked }, LIBVIRT_CONSOLE_TYPES), consoleTypeTentative: asked === 'auto' };
  }

  async check(signal: AbortSignal): Promise<void> {
    const consoles = await this.consoles(signal, true);
    this.facts.consoleType = this.chosenType(consoles);
    this.facts.consoleTypeTentative = false;
    this.addressOf(consoles);
  }

  async dial({ signal, log }: DialContext): Promise<Duplex> {
    const consoles = await this.consoles(signal, false);
    const address = this.addressOf(consoles);
    const graphics = consoles.graphics.find((g) => g.type === this.facts.consoleType);
    if (graphics?.passwordSet && !this.toldPassword) {
      this.toldPassword = true;
      log(
        'info',
        `its ${consoleLabel(this.facts.consoleType)} asks for a password (passwd= in its definition): give it with --vnc-password-file FILE`,
      );
    }
    log('debug', `dialling its ${consoleLabel(this.facts.consoleType)} at ${describeAddress(address)}${this.over()}`);
    const { openConsoleChannel } = await import('./channel.js');
    return openConsoleChannel(this.connection, address, signal, { waitForFirstByte: kindOf(this.facts.consoleType).serverSpeaksFirst });
  }

  async followState(context: VmStateContext): Promise<void> {
    const { followDomain } = await import('./state.js');
    await followDomain(this.connection, this.domain, context);
  }

  /** virsh's start, destroy, shutdown, reboot, reset, suspend or resume on the domain (src/targets/libvirt/power.ts). */
  private async power(signal: AbortSignal, action: PowerAction, step: PowerStep): Promise<string> {
    const { powerDomain } = await import('./power.js');
    try {
      return await powerDomain(this.connection, this.domain, action, step, signal);
    } catch (err) {
      if (isNoSuchDomain(err)) throw await this.noSuchDomain(signal);
      throw err;
    }
  }

  private over(): string {
    return this.connection.kind === 'ssh' ? ' through ssh' : '';
  }

  /** The domain's consoles, read anew unless a reading of the last few seconds is there (a SPICE burst). */
  private consoles(signal: AbortSignal, fresh: boolean): Promise<DomainConsoles> {
    const recent = this.recent;
    if (!fresh && recent && Date.now() - recent.at < DOMAIN_XML_SHARE_MS) return recent.consoles;
    const consoles = (async () => {
      let xml: string;
      try {
        xml = await dumpDomainXml(this.connection, this.domain, signal);
      } catch (err) {
        if (isNoSuchDomain(err)) throw await this.noSuchDomain(signal);
        throw err;
      }
      const { readDomainConsoles } = await import('./domain-xml.js');
      const read = await readDomainConsoles(xml);
      if (!read.running)
        throw new VconsoleError(`domain "${this.domain}" is not running`, {
          hint: `start it: virsh -c ${this.connection.uri} start ${this.domain}`,
        });
      return read;
    })();
    this.recent = { at: Date.now(), consoles };
    consoles.catch(() => {
      if (this.recent?.consoles === consoles) this.recent = undefined;
    });
    return consoles;
  }

  /** No such domain: said with the domains of a name near it (a typo), and how to list them all. */
  private async noSuchDomain(signal: AbortSignal): Promise<VconsoleError> {
    const listing = `virsh -c ${this.connection.uri} list --all shows the domains there`;
    // The names are a help, not the answer: a listing that fails leaves them out.
    const names = await runVirsh(this.connection, ['list', '--all', '--name'], signal).catch(() => '');
    const near = didYouMean(
      this.domain,
      names
        .split('\n')
        .map((line) => line.trim())
        .filter(Boolean),
    );
    return new VconsoleError(`no domain "${this.domain}" on ${describeConnection(this.connection)}`, {
      hint: near ? `${near} (${listing})` : listing,
    });
  }

  /** `auto`: the first graphics of the definition, else its serial console; a named type as asked. */
  private chosenType(consoles: DomainConsoles): ConsoleType {
    if (this.asked !== 'auto') return this.asked;
    const first = consoles.graphics[0];
    if (first) return first.type;
    if (consoles.serial) return 'serial';
    throw new VconsoleError('its definition has no graphics and no serial console', {
      hint: 'add <graphics type="vnc"/> or a <serial type="pty"/> to the domain (virsh edit)',
    });
  }

  private addressOf(consoles: DomainConsoles): ConsoleAddress {
    const label = consoleLabel(this.facts.consoleType);
    if (this.facts.consoleType === 'serial') {
      if (!consoles.serial)
        throw new VconsoleError('its definition has no serial console', { hint: 'add a <serial type="pty"/> (virsh edit)' });
      if (!consoles.serial.address) throw new VconsoleError(`its serial console cannot be reached: ${consoles.serial.why ?? 'no address'}`);
      return consoles.serial.address;
    }
    const graphics = consoles.graphics.find((g) => g.type === this.facts.consoleType);
    if (!graphics) {
      const has = consoles.graphics.map((g) => `#${g.type}`);
      throw new VconsoleError(`its definition has no ${label} graphics`, {
        hint: has.length || consoles.serial ? `it has ${[...new Set(has), ...(consoles.serial ? ['#serial'] : [])].join(', ')}` : undefined,
      });
    }
    if (!graphics.address) throw new VconsoleError(`its ${label} console cannot be reached: ${graphics.why ?? 'no address'}`);
    return graphics.address;
  }
}

function describeAddress(address: ConsoleAddress): string {
  return address.kind === 'tcp' ? `${address.host}:${address.port}` : address.path;
}

/** `virsh list --all` rows: id (or -), name, state words. */
export function parseDomainList(text: string): { name: string; state: string }[] {
  const rows: { name: string; state: string }[] = [];
  for (const line of text.split('\n').slice(2)) {
    const match = /^\s*(\d+|-)\s+(.+?)\s{2,}(\S.*?)\s*$/.exec(line);
    if (match) rows.push({ name: match[2], state: match[3] });
  }
  return rows;
}

function connectionOf(options: TargetOptions): LibvirtConnection {
  return parseConnectUri(options.connect);
}

/**
 * `libvirt:DOMAIN` (the connection --connect or LIBVIRT_DEFAULT_URI names, else qemu:///system)
 * and `libvirt+ssh://[USER@]HOST[:PORT]/DOMAIN` (virsh on HOST through the user's ssh): the
 * domain's VNC, SPICE or serial console as its definition says.
 */
export const libvirtProvider: ConsoleProvider = {
  id: 'libvirt',
  label: 'libvirt',
  schemes: ['libvirt', 'libvirt+ssh'],
  syntax: [
    {
      usage: 'libvirt:DOMAIN, libvirt+ssh://[USER@]HOST/DOMAIN',
      console: 'libvirt domain (--connect, $LIBVIRT_DEFAULT_URI, else qemu:///system; another host through your ssh)',
    },
  ],
  consoleTypes: LIBVIRT_CONSOLE_TYPES,
  bareNames: true,
  resolve(spec, options): ConsoleTarget {
    const asked = options.consoleType ?? 'auto';
    if (spec.scheme === 'libvirt+ssh') {
      const { ssh, domain } = parseSshTarget(spec.raw);
      return new LibvirtTarget(spec.raw, { kind: 'ssh', ssh, uri: DEFAULT_LIBVIRT_URI }, domain, asked);
    }
    const domain = checkDomainName(spec.rest.trim(), spec.raw);
    return new LibvirtTarget(spec.raw, connectionOf(options), domain, asked);
  },
  async list(options, scope): Promise<ListedVm[]> {
    const connection = connectionOf(options);
    let text: string;
    try {
      text = await runVirsh(connection, ['list', '--all']);
    } catch (err) {
      // No virsh here and no connection asked for: this machine has no libvirt to list.
      if (err instanceof MissingProgramError && connection.kind === 'local' && !options.connect) return [];
      throw err;
    }
    const pattern = scope.domainRegex === undefined ? undefined : new RegExp(scope.domainRegex);
    return parseDomainList(text)
      .filter((row) => !pattern || pattern.test(row.name))
      .filter((row) => scope.name === undefined || row.name === scope.name)
      .map((row) => ({
        provider: 'libvirt',
        target: domainTarget(connection, row.name),
        name: row.name,
        state: row.state,
        console: row.state === 'running' || row.state === 'paused' || row.state === 'idle',
      }));
  },
  // Named by --connect, $LIBVIRT_DEFAULT_URI or the config file; qemu:///system alone is no configuration.
  configured: async (options) => options.connect !== undefined,
  async describeSearch(options, scope) {
    const where = describeConnection(connectionOf(options));
    return `domains ${scope.domainRegex !== undefined ? `with names matching /${scope.domainRegex}/` : 'of any name'} on ${where}`;
  },
  async describePlace(options) {
    return [{ label: 'connection', value: describeConnection(connectionOf(options)) }];
  },
};
