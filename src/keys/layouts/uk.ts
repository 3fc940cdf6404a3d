import type { KeyboardLayout } from './layout.js';

export const UK: KeyboardLayout = {
  name: 'uk',
  description: 'British English (QWERTY, ISO)',
  rows: [
    { plain: '`1234567890-=', shift: '¬!"£$%^&*()_+', altgr: '¦   €        ' },
    { plain: 'qwertyuiop[]', shift: 'QWERTYUIOP{}' },
    { plain: "asdfghjkl;'#", shift: 'ASDFGHJKL:@~' },
    { plain: '\\zxcvbnm,./', shift: '|ZXCVBNM<>?' },
  ],
};
