// The TLS options of the providers that dial over HTTPS or wss (websocket, OpenStack): declared
// once here, as the provider option groups are.
import { switchOption, valueOption, type OptionGroup } from '../option-group.js';

const TLS_OPTIONS = [
  switchOption('insecure', {
    flags: '--insecure',
    help: 'ws(s)/OpenStack/Proxmox VE: do not verify TLS certificates',
    section: 'target',
    into: 'insecure',
    fallback: false,
  }),
  valueOption('ca', {
    flags: '--ca <file>',
    help: 'ws(s)/OpenStack/Proxmox VE: CA certificate file to verify TLS with',
    section: 'target',
    what: 'a CA file',
    into: 'ca',
  }),
] as const;

export const tlsOptions: OptionGroup<typeof TLS_OPTIONS> = { provider: 'websocket', options: TLS_OPTIONS };
