/**
 * Keeps VNC authentication out of an RFB recording. The console's 16-byte challenge and the
 * client's 16-byte DES answer, side by side in a file, give the password to a dictionary in
 * milliseconds; so both are recorded as zero bytes (same lengths: the file still replays, since
 * a replay answers any challenge). One redaction per connection, fed both directions in the
 * order the tap sees them: the handshake is strictly turn by turn, so the client's version and
 * security choice are known before the challenge arrives, and the challenge before the answer.
 */

const AUTH_BYTES = 16;
const VERSION_BYTES = 12;
const SECURITY_VNC_AUTH = 2;
/** More handshake than this and there is no VNC authentication to find (a server's type list is at most 255). */
const HANDSHAKE_LIMIT_BYTES = 1024;

export class RfbAuthRedaction {
  private serverBytes: Buffer[] = [];
  private clientBytes: Buffer[] = [];
  private serverSeen = 0;
  private clientSeen = 0;
  /** Where the challenge (in the server's stream) and the answer (in the client's) start. */
  private ranges?: { challenge: number; response: number };
  /** Nothing (more) to redact: the chunks pass as they are. */
  private settled = false;

  /** `chunk` from the console as it may be recorded. */
  fromServer(chunk: Buffer): Buffer {
    const start = this.serverSeen;
    this.serverSeen += chunk.length;
    if (this.settled) return chunk;
    this.serverBytes.push(chunk);
    this.locate();
    return this.redact(chunk, start, this.ranges?.challenge);
  }

  /** `chunk` vconsole's client sent the console, as it may be recorded. */
  fromClient(chunk: Buffer): Buffer {
    const start = this.clientSeen;
    this.clientSeen += chunk.length;
    if (this.settled) return chunk;
    this.clientBytes.push(chunk);
    this.locate();
    return this.redact(chunk, start, this.ranges?.response);
  }

  private redact(chunk: Buffer, start: number, at: number | undefined): Buffer {
    const out = at === undefined ? chunk : blanked(chunk, start, at);
    if (this.ranges && this.serverSeen >= this.ranges.challenge + AUTH_BYTES && this.clientSeen >= this.ranges.response + AUTH_BYTES)
      this.settle();
    else if (this.serverSeen + this.clientSeen > HANDSHAKE_LIMIT_BYTES) this.settle();
    return out;
  }

  /** Finds the two ranges once the handshake so far says where they are (or that there are none). */
  private locate(): void {
    if (this.ranges || this.settled) return;
    const server = Buffer.concat(this.serverBytes);
    const client = Buffer.concat(this.clientBytes);
    this.serverBytes = [server];
    this.clientBytes = [client];
    if (client.length < VERSION_BYTES) return;
    const minor = Number(client.toString('latin1', 8, 11));
    if (minor < 7) {
      // RFB 3.3: the server names the one security type, a u32; the challenge follows it.
      if (server.length < VERSION_BYTES + 4) return;
      if (server.readUInt32BE(VERSION_BYTES) !== SECURITY_VNC_AUTH) return this.settle();
      this.ranges = { challenge: VERSION_BYTES + 4, response: VERSION_BYTES };
      return;
    }
    // RFB 3.7 and 3.8: the server lists types, the client picks one byte; then the challenge.
    if (server.length < VERSION_BYTES + 1) return;
    const count = server[VERSION_BYTES];
    if (count === 0) return this.settle();
    if (client.length < VERSION_BYTES + 1) return;
    if (client[VERSION_BYTES] !== SECURITY_VNC_AUTH) return this.settle();
    this.ranges = { challenge: VERSION_BYTES + 1 + count, response: VERSION_BYTES + 1 };
  }

  private settle(): void {
    this.settled = true;
    this.serverBytes = [];
    this.clientBytes = [];
  }
}

/** `chunk` (which starts at `start` of its stream) with the 16 bytes from `at` zeroed, copied if touched. */
function blanked(chunk: Buffer, start: number, at: number): Buffer {
  const from = Math.max(at, start) - start;
  const to = Math.min(at + AUTH_BYTES, start + chunk.length) - start;
  if (from >= to) return chunk;
  const copy = Buffer.from(chunk);
  copy.fill(0, from, to);
  return copy;
}
