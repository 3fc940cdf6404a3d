// des.js ships no types; only the single-DES ECB use for VNC authentication is declared.
declare module 'des.js' {
  interface DesCipher {
    update(data: ArrayLike<number>): number[];
    final(): number[];
  }
  export const DES: {
    create(options: { type: 'encrypt' | 'decrypt'; key: ArrayLike<number>; padding?: boolean }): DesCipher;
  };
}
