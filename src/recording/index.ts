/**
 * Recording as the commands see it: the text log of a serial console, what a recording is, and
 * telling a recording's kind from its head. The recorder and the replay server are loaded lazily
 * from their own modules (a lazy import() may name a deep module). src/commands import recording
 * statically only through here (docs/ARCHITECTURE.md, "Walls").
 */
export { capIdleTime, idleTimeLimitOf, isAsciicast, parseAsciicast } from './asciicast.js';
export { ConsoleLog } from './console-log.js';
export type { RecordingSource } from './recording-source.js';
export { isRfbRecording, parseRfbRecording } from './rfb-recording.js';
