// Where the providers in use point (kube context and namespace, cloud and region), told to the
// TUI's header as k9s names its context: each provider is asked once, when its first target opens.
import { PROVIDERS, providerById } from '../../targets/index.js';
import type { ConsoleProvider, TargetOptions } from '../../targets/types.js';
import type { ProviderPlace } from '../../tui/state/console-store-types.js';

export class PlaceTeller {
  /** Each provider asked, in the order its first target came; undefined until (or unless) it answers. */
  private readonly places = new Map<string, ProviderPlace | undefined>();

  constructor(
    private readonly options: TargetOptions,
    private readonly show: (places: readonly ProviderPlace[]) => void,
    private readonly providers: readonly ConsoleProvider[] = PROVIDERS,
    /** --via HOST: the consoles are the bastion's, so the place is `via HOST` (this machine's kube context or cloud would mislead). */
    private readonly via?: string,
  ) {}

  /** Asks the providers of these targets not asked yet; tells every place known whenever one answers. */
  note(providerIds: Iterable<string>): void {
    if (this.via !== undefined) {
      if (this.places.size > 0) return;
      const place = { provider: 'via', facts: [{ label: '', value: this.via }] };
      this.places.set('via', place);
      return this.show([place]);
    }
    for (const id of providerIds) {
      const provider = providerById(id, this.providers);
      if (this.places.has(id) || !provider?.describePlace) continue;
      this.places.set(id, undefined);
      provider.describePlace(this.options).then(
        (facts) => {
          this.places.set(id, { provider: id, facts });
          this.show([...this.places.values()].filter((place) => place !== undefined));
        },
        // A configuration that cannot be read fails the rows, which say why: the header just has no place.
        () => undefined,
      );
    }
  }
}
