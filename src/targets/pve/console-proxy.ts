// What vncproxy and termproxy answer, checked before any of it is used: an answer of the wrong
// types (a cluster that is not one, or something in front of it) is one line naming the field,
// never its value (a one-time ticket, a VNC password), and no library's TypeError quoting it.
import { VconsoleError } from '../../errors.js';

/** termproxy's answer, and vncproxy's but its password: the port pveproxy bridges to, the ticket, the user. */
export interface ConsoleProxy {
  port: number;
  ticket: string;
  user: string;
}

/** vncproxy's answer (websocket=1): and (PVE 8.3+) the VNC password it gave QEMU. */
interface VncProxy extends ConsoleProxy {
  password?: string;
}

/** The answer of `call` (vncproxy, termproxy) as it may be used; a VconsoleError naming the first field that is not. */
export function checkedConsoleProxy(call: 'vncproxy' | 'termproxy', answer: unknown): VncProxy {
  const fields = (answer !== null && typeof answer === 'object' ? answer : {}) as Record<string, unknown>;
  const wrong = (field: string, expected: string) =>
    new VconsoleError(`Proxmox VE answered ${call} with ${field === 'answer' ? 'no object' : `a ${field} that is not ${expected}`}`, {
      hint: 'is --pve-url the Proxmox VE API itself (port 8006), with nothing rewriting its answers in between?',
    });
  if (answer === null || typeof answer !== 'object' || Array.isArray(answer)) throw wrong('answer', '');
  const port = typeof fields.port === 'string' && /^\d{1,5}$/.test(fields.port) ? Number(fields.port) : fields.port;
  if (typeof port !== 'number' || !Number.isInteger(port) || port < 1 || port > 65535) throw wrong('port', 'a port number');
  if (typeof fields.ticket !== 'string' || !fields.ticket) throw wrong('ticket', 'text');
  if (typeof fields.user !== 'string') throw wrong('user', 'text');
  if (fields.password !== undefined && typeof fields.password !== 'string') throw wrong('password', 'text');
  return { port, ticket: fields.ticket, user: fields.user, password: fields.password };
}
