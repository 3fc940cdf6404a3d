/** What the help of proxy, open and list says about providers; all of it comes from the registry. */
export interface ProviderHelp {
  /** The `Targets:` block: every provider's syntax. */
  targets: string;
  /** What `list --provider` takes. */
  listProviders: string;
}

/** The commands whose help names providers; running them loads every provider anyway. */
const PROVIDER_COMMANDS = ['proxy', 'open', 'console', 'list', 'screenshot', 'vnc'];

/**
 * Loads the provider registry (src/targets/index.ts) only when the command line names a
 * command that needs it, so `vconsole --help`, `viewers` and `version` load no provider.
 */
export async function providerHelp(argv: string[]): Promise<ProviderHelp | undefined> {
  if (!argv.slice(2).some((arg) => PROVIDER_COMMANDS.includes(arg))) return undefined;
  const { listingProviderIds, oneOf, targetHelp } = await import('../targets/registry.js');
  return {
    targets: `\n${targetHelp()}`,
    listProviders: `${oneOf(listingProviderIds())} (default: the config default, else the one provider whose flags are given or that is configured here, KubeVirt among several)`,
  };
}
