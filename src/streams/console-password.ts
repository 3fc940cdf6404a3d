// The password a console asks for in its own protocol, when the provider learns it per dial
// (Proxmox VE's one-time VNC ticket): it travels with the stream the provider dialled, so
// whoever speaks the protocol on it (the RFB hub, `screenshot`) answers with it, and no layer
// in between learns about providers or passwords.

/** Streams whose console wants a password of the dial's own; weak, so a stream gone takes its password with it. */
const passwords = new WeakMap<object, string>();

/** Marks `stream` as one whose console asks for `password` (never logged or printed). */
export function withConsolePassword<T extends object>(stream: T, password: string): T {
  passwords.set(stream, password);
  return stream;
}

/** The password the console on `stream` asks for, when its provider dialled it with one. */
export function consolePasswordOf(stream: object): string | undefined {
  return passwords.get(stream);
}
