/** The keyboard layouts `--layout` names: a layout is one declaration in its own file and one line here. */
import { DE } from './de.js';
import { FR } from './fr.js';
import type { KeyboardLayout } from './layout.js';
import { UK } from './uk.js';
import { US } from './us.js';

export const LAYOUTS: readonly KeyboardLayout[] = [US, DE, FR, UK];

export const DEFAULT_LAYOUT = US;
