// des.js ships no types; this is the part vconsole uses (VNC authentication).
declare module 'des.js' {
  interface DesCipher {
    update(data: number[] | Uint8Array): number[];
    final(): number[];
  }
  const des: {
    DES: { create(options: { type: 'encrypt' | 'decrypt'; key: number[] | Uint8Array; padding?: boolean }): DesCipher };
  };
  export default des;
}
