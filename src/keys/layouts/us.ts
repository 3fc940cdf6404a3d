import type { KeyboardLayout } from './layout.js';

export const US: KeyboardLayout = {
  name: 'us',
  description: 'US English (QWERTY)',
  rows: [
    { plain: '`1234567890-=', shift: '~!@#$%^&*()_+' },
    { plain: 'qwertyuiop[]', shift: 'QWERTYUIOP{}' },
    { plain: "asdfghjkl;'\\", shift: 'ASDFGHJKL:"|' },
    { plain: ' zxcvbnm,./', shift: ' ZXCVBNM<>?' },
  ],
};
