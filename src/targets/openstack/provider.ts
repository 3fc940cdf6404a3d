// The OpenStack provider: `openstack:NAME|ID` targets (server-console.ts) and the servers `list`
// finds, in the cloud the options pick (cloud-connection.ts).
import { UsageError, echoTarget } from '../../errors.js';
import { LIST_TIMEOUT_MS } from '../limits.js';
import type { ConsoleProvider, ConsoleTarget, TargetOptions } from '../types.js';
import { connectCloud, processConfigSources, processSessions } from './cloud-connection.js';
import type { ConfigSources } from './config.js';
import type { KeystoneSessions } from './keystone.js';
import type { ServerFilters, ServerSummary } from './nova.js';
import { consoleByStatus } from './server-status.js';
import { OPENSTACK_CONSOLE_TYPES, OpenStackTarget } from './server-console.js';

/**
 * `openstack:NAME|ID` (`os:` for short): a Nova server's console (noVNC, SPICE, serial), with credentials
 * from clouds.yaml / secure.yaml / OS_* as the openstack CLI reads them. `sources` and
 * `sessions` (the Keystone token cache) are injectable for tests.
 */
export function createOpenStackProvider(
  sources: () => ConfigSources = processConfigSources,
  sessions: KeystoneSessions = processSessions,
): ConsoleProvider {
  return {
    id: 'openstack',
    schemes: ['openstack', 'os'],
    syntax: [{ usage: 'openstack:NAME|ID, os:NAME|ID', console: 'OpenStack server (clouds.yaml / OS_* as the openstack CLI reads them)' }],
    // The dashboard's order for `auto`: VNC, then SPICE, then serial.
    consoleTypes: OPENSTACK_CONSOLE_TYPES,
    bareNames: true,
    async list(options, scope) {
      const servers = await listOpenstackServers(options, undefined, sources, sessions, { nameRegex: scope.nameRegex, tags: scope.tags });
      const named = new Map<string, number>();
      for (const s of servers) named.set(s.name, (named.get(s.name) ?? 0) + 1);
      // A name several servers share cannot be opened by name: those are listed by ID.
      const targetOf = (s: Required<ServerSummary>) => `openstack:${named.get(s.name) === 1 && s.name.trim() ? s.name : s.id}`;
      return servers.map((s) => ({
        provider: 'openstack',
        target: targetOf(s),
        name: s.name,
        state: s.status,
        // The pre-flight's rule: a PAUSED or RESCUE server has a console; a BUILD or ERROR one may not.
        console: consoleByStatus(s.status) === 'yes',
      }));
    },
    async configured(options) {
      const { hasCloudConfiguration } = await import('./config.js');
      return hasCloudConfiguration(sources(), options);
    },
    async describeSearch(options, scope) {
      const { cloud } = await connectCloud(sources(), options, sessions);
      const what = [
        scope.nameRegex !== undefined ? `names matching /${scope.nameRegex}/` : undefined,
        scope.tags?.length ? `tag${scope.tags.length > 1 ? 's' : ''} ${scope.tags.map((t) => `"${t}"`).join(', ')}` : undefined,
      ].filter(Boolean);
      return `servers with ${what.length ? what.join(' and ') : 'any name'} in cloud "${cloud.name}"${cloud.regionName ? ` (region ${cloud.regionName})` : ''}`;
    },
    async describePlace(options) {
      const { loadCloudConfig } = await import('./config.js');
      const cloud = loadCloudConfig(sources(), options);
      return [{ label: 'cloud', value: cloud.name }, ...(cloud.regionName ? [{ label: 'region', value: cloud.regionName }] : [])];
    },
    resolve(spec, options): ConsoleTarget {
      const server = spec.rest.trim();
      if (!server || /[\u0000-\u001f\u007f]/.test(server)) {
        throw new UsageError(
          `bad OpenStack target "${echoTarget(spec.raw)}"`,
          'name a server by name or ID, e.g. openstack:web-1 or os:UUID',
        );
      }
      const cloudLabel = options.cloud || sources().env.OS_CLOUD || undefined;
      return new OpenStackTarget(spec.raw, server, options, sources, sessions, cloudLabel);
    },
  };
}

export const openstackProvider = createOpenStackProvider();

/** The servers of the cloud the options pick (for `vconsole list`), with their Nova status. */
export async function listOpenstackServers(
  options: TargetOptions,
  signal: AbortSignal = AbortSignal.timeout(LIST_TIMEOUT_MS),
  sources: () => ConfigSources = processConfigSources,
  sessions: KeystoneSessions = processSessions,
  filters: ServerFilters = {},
): Promise<Required<ServerSummary>[]> {
  const { compute } = await connectCloud(sources(), options, sessions);
  return compute.listServers(signal, filters);
}
