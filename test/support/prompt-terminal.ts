import { PassThrough } from 'node:stream';

/** A terminal that answers `answer` to the question a command asks on it, and what it was asked. */
export function answeringTerminal(answer: string) {
  const stdin = Object.assign(new PassThrough(), { isTTY: true });
  const stderr = Object.assign(new PassThrough(), { isTTY: true });
  let asked = '';
  stderr.on('data', (chunk: Buffer) => {
    asked += chunk.toString();
    setImmediate(() => stdin.end(`${answer}\n`));
  });
  return { terminal: { stdin, stderr }, asked: () => asked };
}

/** A command's streams, with what it wrote on stderr. */
export function capturedIo() {
  let text = '';
  const stderr = new PassThrough();
  stderr.on('data', (chunk: Buffer) => (text += chunk.toString()));
  return { io: { stdout: new PassThrough(), stderr, exit: () => undefined }, text: () => text };
}
