import type { KeyboardLayout } from './layout.js';

export const DE: KeyboardLayout = {
  name: 'de',
  description: 'German (QWERTZ; ^ ´ ` are dead keys)',
  rows: [
    { plain: '^1234567890ß´', shift: '°!"§$%&/()=?`', altgr: '  ²³   {[]}\\ ' },
    { plain: 'qwertzuiopü+', shift: 'QWERTZUIOPÜ*', altgr: '@ €        ~' },
    { plain: 'asdfghjklöä#', shift: "ASDFGHJKLÖÄ'" },
    { plain: '<yxcvbnm,.-', shift: '>YXCVBNM;:_', altgr: '|      µ   ' },
  ],
  dead: '^´`',
};
