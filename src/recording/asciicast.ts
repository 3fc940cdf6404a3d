import { StringDecoder } from 'node:string_decoder';

/**
 * asciicast v2 (the format asciinema records and plays): a JSON header line, then one JSON
 * array per event, `[seconds, "o", text]` for output and `[seconds, "i", text]` for input.
 * Serial consoles are recorded in it, so `asciinema play` and `asciinema cat` read them.
 */
export const ASCIICAST_EXTENSION = '.cast';

interface AsciicastHeader {
  version: 2;
  width: number;
  height: number;
  /** Unix time in seconds of the start. */
  timestamp: number;
  title?: string;
  env?: Record<string, string>;
  /** The longest pause a player plays in full, in seconds (asciicast v2's idle_time_limit); absent: the player's choice. */
  idle_time_limit?: number;
}

type AsciicastEventKind = 'o' | 'i';

interface AsciicastEvent {
  seconds: number;
  kind: AsciicastEventKind;
  text: string;
}

export function encodeAsciicastHeader(header: AsciicastHeader): Buffer {
  return Buffer.from(`${JSON.stringify(header)}\n`, 'utf8');
}

/**
 * Turns the bytes of one direction into asciicast event lines. A UTF-8 character split
 * between two reads is kept back until it is whole, so no event holds half a character.
 */
export class AsciicastEventEncoder {
  private readonly decoder = new StringDecoder('utf8');
  constructor(private readonly kind: AsciicastEventKind) {}

  /** The event line for `chunk` at `seconds`, or undefined when it holds no whole character yet. */
  encode(seconds: number, chunk: Buffer): Buffer | undefined {
    const text = this.decoder.write(chunk);
    return text ? Buffer.from(`${JSON.stringify([Number(seconds.toFixed(6)), this.kind, text])}\n`, 'utf8') : undefined;
  }
}

export class AsciicastFormatError extends Error {}

/** Whether the start of a file looks like asciicast v2. */
export function isAsciicast(start: Buffer): boolean {
  const firstLine = start.toString('utf8', 0, Math.min(start.length, 4096)).split('\n')[0];
  try {
    const header = JSON.parse(firstLine) as Partial<AsciicastHeader> | null;
    return header?.version === 2;
  } catch {
    return false;
  }
}

/** Reads an asciicast v2 file; an unfinished last line (a crash while writing) is dropped. */
export function parseAsciicast(text: string): { header: AsciicastHeader; events: AsciicastEvent[]; truncated: boolean } {
  const lines = text.split('\n');
  let parsed: unknown;
  try {
    parsed = JSON.parse(lines[0]);
  } catch {
    throw new AsciicastFormatError('the first line is not an asciicast header');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new AsciicastFormatError('the first line is not an asciicast header (not a JSON object)');
  const header = parsed as AsciicastHeader;
  if (header.version !== 2) throw new AsciicastFormatError(`asciicast version ${String(header.version)} is not supported (only 2)`);
  const events: AsciicastEvent[] = [];
  let truncated = false;
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i];
    if (!line.trim()) continue;
    let event: unknown;
    try {
      event = JSON.parse(line);
    } catch {
      // Only the last line may be torn.
      if (i === lines.length - 1) {
        truncated = true;
        break;
      }
      throw new AsciicastFormatError(`line ${i + 1} is not an asciicast event`);
    }
    // A time that is not a finite count of seconds from the start would make the player wait forever.
    if (
      !Array.isArray(event) ||
      typeof event[0] !== 'number' ||
      !Number.isFinite(event[0]) ||
      event[0] < 0 ||
      typeof event[2] !== 'string'
    ) {
      throw new AsciicastFormatError(`line ${i + 1} is not an asciicast event`);
    }
    const kind: unknown = event[1];
    if (kind === 'o' || kind === 'i') events.push({ seconds: event[0], kind, text: event[2] });
  }
  return { header, events, truncated };
}

/** A replay's cap on pauses when neither --idle-time-limit nor the file's header names one. */
export const DEFAULT_IDLE_TIME_LIMIT_S = 2;

/** The cap a replay applies: --idle-time-limit, else the header's idle_time_limit (a number above 0), else the default. */
export function idleTimeLimitOf(header: AsciicastHeader, asked: number | undefined): number {
  if (asked !== undefined) return asked;
  const said: unknown = header.idle_time_limit;
  return typeof said === 'number' && Number.isFinite(said) && said > 0 ? said : DEFAULT_IDLE_TIME_LIMIT_S;
}

/**
 * The events with every pause (the start's lead-in included) longer than `limitSeconds`
 * shortened to it, as asciinema's player does with its idle time limit; shorter pauses and
 * the order are kept.
 */
export function capIdleTime<T extends { seconds: number }>(events: readonly T[], limitSeconds: number): T[] {
  let recorded = 0;
  let played = 0;
  return events.map((event) => {
    const pause = Math.max(0, event.seconds - recorded);
    recorded = Math.max(recorded, event.seconds);
    played += Math.min(pause, limitSeconds);
    return { ...event, seconds: played };
  });
}
