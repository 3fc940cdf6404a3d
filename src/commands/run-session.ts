/**
 * A script's hold on one console: the one session every step of `vconsole run` goes through
 * (joined when another vconsole of this user holds it, else dialled shared; a serial line held
 * open for the whole script so nothing it prints between steps is lost). The steps' own
 * machinery (type, send, wait, screenshot) dials and releases as for a command of its own: here
 * release waits for the script's end.
 */
import { Transform, type Duplex } from 'node:stream';
import type { DialContext, UpstreamSource } from '../proxy/index.js';
import type { SharedSerialSource } from '../serial/index.js';

export class HeldConsole implements UpstreamSource {
  /** How much of the held line's scrollback the script has already waited through. */
  private seen = 0;

  constructor(
    private readonly top: UpstreamSource,
    private readonly line?: SharedSerialSource,
  ) {}

  get name(): string {
    return this.top.name;
  }

  get provider(): string {
    return this.top.provider;
  }

  get facts(): UpstreamSource['facts'] {
    return this.top.facts;
  }

  async check(signal: AbortSignal, admit?: () => void): Promise<void> {
    await this.top.check?.(signal, admit);
  }

  /**
   * A step's own stream of the console. On the held serial line the line never ends a step's
   * stream (it stays open for the next): once the step has written all it had (type, send end
   * their side), its stream is over, so the step does not wait out the time a console is given
   * to close its side. What it wrote is on the line already.
   */
  async dial(context: DialContext): Promise<Duplex> {
    const stream = await this.top.dial(context);
    if (this.line) stream.once('finish', () => stream.destroy());
    return stream;
  }

  /** A step is done with the console: it stays held for the next (see letGo). */
  async release(): Promise<void> {}

  /** Lets go of the console once the script is over. */
  async letGo(): Promise<void> {
    await this.top.release?.();
  }

  /**
   * The console for a `wait` step: on a held serial line, what an earlier wait already waited
   * through is not replayed (a prompt seen before does not match again); the rest is.
   */
  forWaiting(): UpstreamSource {
    const skip = this.seen;
    return { ...this.sourceFields(), dial: async (context) => skipping(await this.dial(context), skip) };
  }

  /** A wait step found its text: what the line printed so far is behind the script. */
  waited(): void {
    this.seen = this.line?.printed.length ?? 0;
  }

  private sourceFields(): Omit<UpstreamSource, 'dial'> {
    return {
      name: this.name,
      provider: this.provider,
      facts: this.facts,
      check: (signal, admit) => this.check(signal, admit),
      release: () => this.release(),
    };
  }
}

/** `stream`'s output from its `skip`th byte on (its input untouched is not needed: waits only read). */
function skipping(stream: Duplex, skip: number): Duplex {
  if (skip === 0) return stream;
  let left = skip;
  const rest = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      const dropped = Math.min(left, chunk.length);
      left -= dropped;
      done(null, dropped === chunk.length ? undefined : chunk.subarray(dropped));
    },
  });
  stream.on('error', () => undefined);
  stream.pipe(rest);
  rest.on('close', () => stream.destroy());
  stream.on('close', () => rest.destroy());
  return rest;
}
