import { Duplex } from 'node:stream';
import type WebSocket from 'ws';
import { ConsoleEndedError, describeWebSocketEnding, type WebSocketEnding } from '../../errors.js';
import { scrubText } from '../../secrets.js';
import { REFUSED_AT_UPGRADE_MS } from './limits.js';
import { ServerFrameSplitter } from './websocket-frames.js';

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
 * - end: ending the writable side starts the close handshake (code 1000), whose answer ends
 *   the readable side; the far side closing (a close frame, a TCP close without one, a reset)
 *   ends the readable side after every message before it, then destroys the stream with a
 *   ConsoleEndedError saying how it ended, so whoever holds it learns at once (and no write
 *   waits for a key press to find the websocket closed);
 * - failure: a websocket error destroys the stream with it; destroying the stream
 *   terminates the websocket at once.
 * A text message is relayed as its bytes: a console has no use for the distinction.
 * Data frames are read by a ServerFrameSplitter in front of ws's receiver: their payloads are
 * pushed as slices of the socket's chunks, with no buffer gathered per message (a full GC per
 * ~64 MiB relayed, before: docs/PERF-DATAPATH.md); control frames stay ws's.
 */
export class WebSocketStream extends Duplex {
  private readonly ws: WebSocket;
  private readonly openedAt = Date.now();
  private receivedBytes = 0;
  /** Our side started the close (end or destroy): the close that follows is no news. */
  private closing = false;
  private socketErrorCode?: string;
  /** Data frames' payloads come straight from the socket's chunks, not through ws's messages. */
  readonly receivesPayloadDirectly: boolean;

  /**
   * `socket`: the connection under the websocket, watched for how it failed (a reset).
   * `secrets`: what the close frame's reason may quote and must not say (the URL's token).
   * `describeEnding`: the provider's words for how its console ends (default: a console proxy's).
   */
  constructor(
    ws: WebSocket,
    socket?: { once(event: 'error', listener: (err: Error & { code?: string }) => void): unknown },
    private readonly secrets: readonly string[] = [],
    private readonly describeEnding: (ending: WebSocketEnding) => ConsoleEndedError = describeWebSocketEnding,
  ) {
    super({ readableHighWaterMark: READ_BUFFER_BYTES, decodeStrings: true });
    this.ws = ws;
    socket?.once('error', (err) => {
      this.socketErrorCode = err.code;
    });
    ws.on('message', (data: Buffer) => this.received(data));
    this.receivesPayloadDirectly = splitReceivedFrames(ws, (data) => this.received(data));
    ws.once('close', (code: number, reason: Buffer) => this.closedByWebSocket(code, reason.toString('utf8')));
    ws.on('error', (err) => this.destroy(err));
  }

  private received(data: Buffer): void {
    this.receivedBytes += data.length;
    if (!this.push(data)) this.ws.pause();
  }

  private closedByWebSocket(code: number, reason: string): void {
    if (this.destroyed) return;
    this.push(null);
    if (this.closing) return;
    const ending = this.describeEnding({
      code,
      reason,
      // Told from the reason as the proxy said it, shown scrubbed: a proxy may quote the token it
      // refused ("Token '...' not found"), and a token may be a word of the reason too.
      shownReason: (said) => scrubText(said, this.secrets),
      socketErrorCode: this.socketErrorCode,
      soonAfterUpgrade: this.receivedBytes === 0 && Date.now() - this.openedAt < REFUSED_AT_UPGRADE_MS,
    });
    // What the console sent before it closed is read first; then the stream fails with how it ended.
    if (this.readableEnded) this.destroy(ending);
    else this.once('end', () => this.destroy(ending));
  }

  override _read(): void {
    if (this.ws.isPaused) this.ws.resume();
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    const { ws } = this;
    // ws's own error here reads "WebSocket is not open: readyState 3 (CLOSED)".
    if (ws.readyState !== ws.OPEN) return callback(new ConsoleEndedError('the console had already closed'));
    ws.send(chunk, BINARY, callback);
  }

  override _final(callback: (error?: Error | null) => void): void {
    const { ws } = this;
    this.closing = true;
    if (ws.readyState === ws.CLOSED) return callback();
    ws.once('close', () => callback());
    ws.close(1000);
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    const { ws } = this;
    this.closing = true;
    if (ws.readyState === ws.CLOSED) return callback(error);
    ws.once('close', () => callback(error));
    ws.terminate();
  }
}

/** What of ws's receiver (private to ws) the splitter relies on; checked before it is used. */
interface WsReceiver {
  write(chunk: Buffer): boolean;
  on(event: 'drain', listener: () => void): unknown;
  _state?: unknown;
  _bufferedBytes?: unknown;
  _fragmented?: unknown;
}

/**
 * Puts a ServerFrameSplitter in front of ws's receiver: the payload of data frames goes to
 * `payload` as slices of the socket's chunks, every other frame (close, ping, pong, anything
 * faulty) to ws's receiver as before. Only when ws's receiver is between frames with nothing
 * buffered (else its half-read frame would be cut) and looks as this was written against;
 * otherwise ws reads every frame as it always did. Returns whether the splitter is in place.
 */
function splitReceivedFrames(ws: WebSocket, payload: (data: Buffer) => void): boolean {
  const receiver = (ws as unknown as { _receiver?: WsReceiver })._receiver;
  if (!receiver || typeof receiver.write !== 'function') return false;
  if (receiver._state !== 0 || receiver._bufferedBytes !== 0 || receiver._fragmented !== 0) return false;
  const write = receiver.write.bind(receiver);
  // ws pauses the socket when write returns false and resumes it on the receiver's 'drain'.
  let receiverTakesMore = true;
  const splitter = new ServerFrameSplitter({
    payload,
    other: (bytes) => {
      receiverTakesMore = write(bytes);
    },
  });
  receiver.on('drain', () => {
    receiverTakesMore = true;
  });
  receiver.write = (chunk: Buffer) => {
    splitter.write(chunk);
    return receiverTakesMore;
  };
  return true;
}
