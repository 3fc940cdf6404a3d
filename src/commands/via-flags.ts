// `--via` and its `--wait` are declared in src/flags/command-flags.ts; their flags here, with the
// --verbose that via.ts passes on to the far vconsole. Apart from via.ts so that naming them loads no ssh code.
import type { ViaFlags as DeclaredViaFlags } from '../flags/command-flags.js';

export type ViaFlags = DeclaredViaFlags & { verbose?: boolean };
