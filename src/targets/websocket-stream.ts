import { Duplex } from 'node:stream';
import type WebSocket from 'ws';

/**
 * How many bytes of messages wait in the readable buffer before the websocket's socket is
 * paused. Consoles send frames of up to 32 KiB (virt-handler's reads): two fit, so a reader
 * that keeps up never pauses the socket (each pause and resume is a pair of system calls).
 */
const READ_BUFFER_BYTES = 64 * 1024;
/** One options object for every send: a key press or a mouse move makes no garbage of its own. */
const BINARY = { binary: true } as const;

/**
 * An open `ws` WebSocket as a byte stream: the payload of every message, in order, on the
 * readable side; every write goes out as one binary message.
 *
 * Does what ws's own createWebSocketStream does, with what a console relay needs and no more:
 * - backpressure: when the reader falls behind, ws stops reading its socket (`ws.pause()`),
 *   so the upstream's TCP window closes and the console is held back;
 * - end: the websocket closing ends the readable side, after every message before it;
 *   ending the writable side starts the close handshake (code 1000);
 * - failure: a websocket error destroys the stream with it; destroying the stream
 *   terminates the websocket at once.
 * A text message is relayed as its bytes: a console has no use for the distinction.
 */
export class WebSocketStream extends Duplex {
  private readonly ws: WebSocket;

  constructor(ws: WebSocket) {
    super({ readableHighWaterMark: READ_BUFFER_BYTES, decodeStrings: true });
    this.ws = ws;
    ws.on('message', (data: Buffer) => {
      if (!this.push(data)) ws.pause();
    });
    ws.once('close', () => {
      if (!this.destroyed) this.push(null);
    });
    ws.on('error', (err) => this.destroy(err));
  }

  override _read(): void {
    if (this.ws.isPaused) this.ws.resume();
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    this.ws.send(chunk, BINARY, callback);
  }

  override _final(callback: (error?: Error | null) => void): void {
    const { ws } = this;
    if (ws.readyState === ws.CLOSED) return callback();
    ws.once('close', () => callback());
    ws.close(1000);
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    const { ws } = this;
    if (ws.readyState === ws.CLOSED) return callback(error);
    ws.once('close', () => callback(error));
    ws.terminate();
  }
}
