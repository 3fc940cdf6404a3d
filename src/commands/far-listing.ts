// `list --via`: what the far vconsole printed, printed here as this vconsole prints its own
// listing. The far side (another version, or a bastion not to be trusted) may send anything: a
// document is parsed and written again, so it stays exact; text is shown line by line with its
// control characters visible, so nothing in it reaches the terminal as a command.
import { Writable } from 'node:stream';
import { VconsoleError } from '../errors.js';
import { terminalSafe } from '../text/terminal-text.js';
import { documentText, type OutputFormat } from './output-format.js';

/** Streams that keep what is written, for the far listing to be printed once it is all there. */
export function farListingStreams(): { stdout: Writable; stderr: Writable; text(): { stdout: string; stderr: string } } {
  const kept = { stdout: [] as string[], stderr: [] as string[] };
  const keeping = (into: string[]) =>
    new Writable({
      write(chunk: Buffer | string, _encoding, done) {
        into.push(chunk.toString());
        done();
      },
    });
  return {
    stdout: keeping(kept.stdout),
    stderr: keeping(kept.stderr),
    text: () => ({ stdout: kept.stdout.join(''), stderr: kept.stderr.join('') }),
  };
}

/** Each line of `text` with its control characters shown (tabs and the line ends kept). */
function safeLines(text: string): string {
  return text.split('\n').map(terminalSafe).join('\n');
}

/** The far side's listing in `format`, written to `io`. */
export async function printFarListing(
  far: { stdout: string; stderr: string },
  format: OutputFormat,
  io: { stdout: NodeJS.WritableStream; stderr: NodeJS.WritableStream },
): Promise<void> {
  io.stderr.write(safeLines(far.stderr));
  const template = typeof format === 'object' ? format : undefined;
  if (format !== 'json' && format !== 'yaml' && !template) return void io.stdout.write(safeLines(far.stdout));
  if (!far.stdout) return;
  let value: unknown;
  try {
    value = format === 'yaml' ? (await import('yaml')).parse(far.stdout) : JSON.parse(far.stdout);
  } catch {
    throw new VconsoleError(`the far vconsole's listing is not ${format === 'json' ? 'JSON' : 'YAML'}`, {
      hint: 'use the same vconsole version on both ends',
    });
  }
  if (template) return void io.stdout.write(template.list(Array.isArray(value) ? value : []));
  io.stdout.write(await documentText(value, format === 'yaml' ? 'yaml' : 'json'));
}
