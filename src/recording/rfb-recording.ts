/**
 * vconsole's RFB session recording (`.vncrec`), specified in docs/RECORDING.md: a text head
 * (magic line, then one JSON line) followed by records of
 *   kind (1 byte) | milliseconds since the start (u32 BE) | length (u32 BE) | payload
 * kinds: `S` bytes the console sent, `C` bytes vconsole's RFB client sent it (its handshake,
 * update requests and the viewers' keys, pointer and clipboard), `N` a new connection to the
 * console begins (after a drop), `E` that connection ended. A reader stops quietly at a torn
 * last record: what a crash leaves is still a recording. It trusts nothing else: the head must
 * be an object with a name, the connections and records it keeps are bounded, and times never
 * go back.
 */
import { REPLAY_MAX_CONNECTIONS, REPLAY_MAX_RECORDS } from '../limits.js';

export const RFB_RECORDING_MAGIC = 'VCONSOLE-RFB-RECORDING 1\n';
export const RFB_RECORDING_EXTENSION = '.vncrec';

type RfbRecordKind = 'S' | 'C' | 'N' | 'E';

interface RfbRecordingHead {
  /** The console's name as vconsole showed it. */
  name: string;
  /** When recording began, ISO 8601. */
  started: string;
  /** vconsole's version that wrote it. */
  writer?: string;
}

interface RfbRecord {
  kind: RfbRecordKind;
  /** Milliseconds since the recording began. */
  ms: number;
  data: Buffer;
}

const RECORD_HEAD_BYTES = 9;
const KINDS = new Set<string>(['S', 'C', 'N', 'E']);

export function encodeRfbRecordingHead(head: RfbRecordingHead): Buffer {
  return Buffer.from(`${RFB_RECORDING_MAGIC}${JSON.stringify(head)}\n`, 'utf8');
}

export function encodeRfbRecord(kind: RfbRecordKind, ms: number, data: Buffer = Buffer.alloc(0)): Buffer {
  const record = Buffer.allocUnsafe(RECORD_HEAD_BYTES + data.length);
  record.write(kind, 0, 'latin1');
  record.writeUInt32BE(Math.max(0, Math.min(0xffffffff, Math.round(ms))), 1);
  record.writeUInt32BE(data.length, 5);
  data.copy(record, RECORD_HEAD_BYTES);
  return record;
}

/** Whether `file` starts like an RFB recording. */
export function isRfbRecording(start: Buffer): boolean {
  return start.subarray(0, RFB_RECORDING_MAGIC.length).toString('latin1') === RFB_RECORDING_MAGIC;
}

export class RecordingFormatError extends Error {}

/** One connection to the console: the bytes it sent, with their times. */
export interface RfbConnection {
  records: RfbRecord[];
}

export interface ParsedRfbRecording {
  head: RfbRecordingHead;
  /** Every connection in order; the console's bytes of each, with the client's in between. */
  connections: RfbConnection[];
  /** Milliseconds from the start to the last record. */
  durationMs: number;
  /** True when the file ends inside a record (vconsole was killed while writing). */
  truncated: boolean;
}

/** Reads a whole recording; a torn last record is dropped and reported as `truncated`. */
export function parseRfbRecording(file: Buffer): ParsedRfbRecording {
  if (!isRfbRecording(file)) throw new RecordingFormatError('not a vconsole RFB recording (no magic line)');
  const headEnd = file.indexOf(0x0a, RFB_RECORDING_MAGIC.length);
  if (headEnd < 0) throw new RecordingFormatError('not a vconsole recording: it ends inside its head');
  const head = parseHead(file.toString('utf8', RFB_RECORDING_MAGIC.length, headEnd));
  const connections: RfbConnection[] = [];
  let current: RfbConnection | undefined;
  let offset = headEnd + 1;
  let durationMs = 0;
  let truncated = false;
  let recordCount = 0;
  while (offset < file.length) {
    if (file.length - offset < RECORD_HEAD_BYTES) {
      truncated = true;
      break;
    }
    const kind = String.fromCharCode(file[offset]);
    if (!KINDS.has(kind)) throw new RecordingFormatError(`unknown record kind 0x${file[offset].toString(16)} at byte ${offset}`);
    // A record stamped before the one ahead of it is taken to be as late as that one.
    const ms = Math.max(durationMs, file.readUInt32BE(offset + 1));
    const length = file.readUInt32BE(offset + 5);
    if (file.length - offset - RECORD_HEAD_BYTES < length) {
      truncated = true;
      break;
    }
    const data = file.subarray(offset + RECORD_HEAD_BYTES, offset + RECORD_HEAD_BYTES + length);
    offset += RECORD_HEAD_BYTES + length;
    durationMs = ms;
    if (kind === 'N' || !current) {
      // A connection that held nothing is not kept: the next one takes its place.
      const last = connections[connections.length - 1];
      if (last && last.records.length === 0) current = last;
      else {
        if (connections.length >= REPLAY_MAX_CONNECTIONS)
          throw new RecordingFormatError(`the recording holds more than ${REPLAY_MAX_CONNECTIONS} connections, more than replay reads`);
        current = { records: [] };
        connections.push(current);
      }
      if (kind === 'N') continue;
    }
    if (kind === 'E') {
      current = undefined;
      continue;
    }
    if (++recordCount > REPLAY_MAX_RECORDS)
      throw new RecordingFormatError(`the recording holds more than ${REPLAY_MAX_RECORDS} records, more than replay reads`);
    current.records.push({ kind: kind as RfbRecordKind, ms, data });
  }
  return { head, connections, durationMs, truncated };
}

/** The JSON head line: an object with at least the console's name. */
function parseHead(text: string): RfbRecordingHead {
  let head: unknown;
  try {
    head = JSON.parse(text);
  } catch {
    throw new RecordingFormatError('not a vconsole recording: its head is not JSON');
  }
  if (typeof head !== 'object' || head === null || Array.isArray(head))
    throw new RecordingFormatError('not a vconsole recording: its head is not a JSON object');
  const { name, started, writer } = head as Record<string, unknown>;
  if (typeof name !== 'string') throw new RecordingFormatError('not a vconsole recording: its head has no console name');
  return { name, started: typeof started === 'string' ? started : '', ...(typeof writer === 'string' ? { writer } : {}) };
}
