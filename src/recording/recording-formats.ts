// How each kind of recording is written, keyed by the console kind's `recording`: a new format
// is one entry here, and RecordingSource picks it from the kind once the console type is known.
import type { KindRecording } from '../console-kinds/index.js';
import { ASCIICAST_EXTENSION, AsciicastEventEncoder, encodeAsciicastHeader } from './asciicast.js';
import { RfbAuthRedaction } from './rfb-auth-redaction.js';
import { RFB_RECORDING_EXTENSION, encodeRfbRecord, encodeRfbRecordingHead } from './rfb-recording.js';
import type { StreamTap } from './tap.js';

/** What a recording's head says of the console. */
interface RecordedConsole {
  name: string;
  started: Date;
  /** The terminal size a text recording is played in (asciicast needs one). */
  terminal?: { width: number; height: number };
  /** vconsole's version. */
  writer?: string;
}

/** One connection's records: what to tap it with, and the closing record when it has one. */
interface RecordedConnection {
  tap: StreamTap;
  end?: () => void;
}

export interface RecordingFormat {
  readonly extension: string;
  /** The file's first bytes, written when it is made. */
  head(console: RecordedConsole): Buffer;
  /** Records one connection: `write` appends to the file, `ms` is the time since the recording began. */
  connection(write: (data: Buffer | undefined) => void, ms: () => number): RecordedConnection;
}

/** vconsole's RFB format: each connection framed by N and E records, VNC-auth bytes zeroed. */
const rfbFormat: RecordingFormat = {
  extension: RFB_RECORDING_EXTENSION,
  head: ({ name, started, writer }) => encodeRfbRecordingHead({ name, started: started.toISOString(), ...(writer ? { writer } : {}) }),
  connection(write, ms) {
    write(encodeRfbRecord('N', ms()));
    // The VNC-auth challenge and answer would give the password away: recorded as zeros.
    const redaction = new RfbAuthRedaction();
    return {
      tap: {
        received: (chunk) => write(encodeRfbRecord('S', ms(), redaction.fromServer(chunk))),
        sent: (chunk) => write(encodeRfbRecord('C', ms(), redaction.fromClient(chunk))),
      },
      end: () => write(encodeRfbRecord('E', ms())),
    };
  },
};

/** asciicast v2: the console's output as `o` events, what was typed as `i`. */
const asciicastFormat: RecordingFormat = {
  extension: ASCIICAST_EXTENSION,
  head: ({ name, started, terminal }) =>
    encodeAsciicastHeader({
      version: 2,
      width: terminal?.width ?? 80,
      height: terminal?.height ?? 24,
      timestamp: Math.floor(started.getTime() / 1000),
      title: name,
    }),
  connection(write, ms) {
    const output = new AsciicastEventEncoder('o');
    const input = new AsciicastEventEncoder('i');
    return {
      tap: {
        received: (chunk) => write(output.encode(ms() / 1000, chunk)),
        sent: (chunk) => write(input.encode(ms() / 1000, chunk)),
      },
    };
  },
};

/** The format of each kind of recording; a kind recorded as `none` has none. */
export const RECORDING_FORMATS: Readonly<Record<Exclude<KindRecording, 'none'>, RecordingFormat>> = {
  rfb: rfbFormat,
  asciicast: asciicastFormat,
};
