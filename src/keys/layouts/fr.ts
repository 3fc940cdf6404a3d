import type { KeyboardLayout } from './layout.js';

export const FR: KeyboardLayout = {
  name: 'fr',
  description: 'French (AZERTY; ^ ¨ are dead keys)',
  rows: [
    { plain: '²&é"\'(-è_çà)=', shift: ' 1234567890°+', altgr: '  ~#{[|`\\^@]}' },
    { plain: 'azertyuiop^$', shift: 'AZERTYUIOP¨£', altgr: '  €        ¤' },
    { plain: 'qsdfghjklmù*', shift: 'QSDFGHJKLM%µ' },
    { plain: '<wxcvbn,;:!', shift: '>WXCVBN?./§' },
  ],
  dead: '^¨',
};
