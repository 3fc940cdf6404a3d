import type net from 'node:net';

/**
 * The first line a joining vconsole sends the one that holds the console, before any of the
 * console's own bytes: what it wants of the stream. One JSON object and a newline; the holder
 * reads it before it serves the joiner (ConsoleHold), so the wish holds from the first byte.
 */
interface JoinHello {
  /** A held serial line replays what it holds (its scrollback) first; false: only what comes after. */
  replay: boolean;
}

/** A hello longer than this is no hello: the joiner is refused. */
const JOIN_HELLO_MAX_BYTES = 1024;

export function joinHelloLine(hello: JoinHello): string {
  return `${JSON.stringify({ replay: hello.replay })}\n`;
}

function parseJoinHello(line: Buffer): JoinHello {
  const value: unknown = JSON.parse(line.toString('utf8'));
  if (typeof value !== 'object' || value === null) throw new Error('its first line is not a JSON object');
  return { replay: (value as { replay?: unknown }).replay !== false };
}

/**
 * Reads a joiner's hello from `socket` (paused, as the holder's server accepts it); what follows
 * it stays unread for the relay. Rejects when the joiner leaves first or sends no hello.
 */
export function readJoinHello(socket: net.Socket): Promise<JoinHello> {
  return new Promise((resolve, reject) => {
    let got = Buffer.alloc(0);
    const finish = (outcome: () => void) => {
      socket.off('readable', onReadable);
      socket.off('close', onClose);
      outcome();
    };
    const onClose = () => finish(() => reject(new Error('it left before saying what it wants')));
    const onReadable = () => {
      for (let chunk = socket.read() as Buffer | null; chunk !== null; chunk = socket.read() as Buffer | null) {
        got = Buffer.concat([got, chunk]);
        const end = got.indexOf(0x0a);
        if (end >= 0) {
          const rest = got.subarray(end + 1);
          if (rest.length > 0) socket.unshift(rest);
          return finish(() => {
            try {
              resolve(parseJoinHello(got.subarray(0, end)));
            } catch (err) {
              reject(new Error(`its hello is not one: ${(err as Error).message}`));
            }
          });
        }
        if (got.length > JOIN_HELLO_MAX_BYTES)
          return finish(() => reject(new Error(`it sent over ${JOIN_HELLO_MAX_BYTES} bytes without a hello`)));
      }
    };
    socket.on('readable', onReadable);
    socket.once('close', onClose);
  });
}
