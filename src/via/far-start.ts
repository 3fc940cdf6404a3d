// The near end of --via from ssh's start to the far agent's hello, phase by phase, each bounded
// and each with its own line when it runs out: ssh connecting and logging in (nothing on its
// stdout yet), what the bastion prints before the agent's preamble (a login's banner: a bounded
// amount of it, for a bounded time), and the agent's hello after the preamble.
import { PassThrough, type Readable } from 'node:stream';
import { VconsoleError } from '../errors.js';
import { clip, terminalSafe } from '../text/terminal-text.js';
import { AGENT_PREAMBLE, PREAMBLE_SEARCH_BYTES } from './protocol.js';

/** Where a start is: no byte yet, bytes but no preamble, the preamble but no hello. */
type StartPhase = 'login' | 'preamble' | 'hello';

interface StartWatch {
  /** The bastion as the user named it. */
  host: string;
  /** From ssh's start to its first byte on stdout. */
  loginMs: number;
  /** From that first byte to the agent's hello. */
  helloMs: number;
  /** ssh's last line on stderr so far (terminal-safe), for the message. */
  lastSaid(): string;
}

/** What a message quotes of the bastion's first line before the preamble. */
const QUOTED_CHARS = 60;
/** What is kept of the bytes before the preamble, for that quote. */
const HEAD_BYTES = 256;

/**
 * Watches ssh's stdout while the far vconsole starts: `input` gets what follows the preamble
 * (the via connection's frames), and `until()` rejects with the phase's own error as soon as a
 * phase runs out of time or the bastion prints too much without the preamble.
 */
export class FarStart {
  /** What follows the preamble: the via connection's input. */
  readonly input = new PassThrough();
  private phase: StartPhase = 'login';
  private timer: NodeJS.Timeout | undefined;
  private found = false;
  private skipped = 0;
  private head = Buffer.alloc(0);
  private tail = '';
  private error: VconsoleError | undefined;
  private readonly waiters: ((error: VconsoleError) => void)[] = [];

  constructor(
    stdout: Readable,
    private readonly watch: StartWatch,
  ) {
    this.arm(watch.loginMs);
    stdout.on('data', (chunk: Buffer) => this.onData(chunk));
    stdout.on('end', () => this.input.end());
  }

  /** The phase that ran out, as the line to print; undefined while none has. */
  get failure(): VconsoleError | undefined {
    return this.error;
  }

  /** `waiting` (the hello), unless a phase runs out first: then that phase's error. */
  until<T>(waiting: Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      if (this.error) return reject(this.error);
      this.waiters.push(reject);
      waiting.then(resolve, reject);
    });
  }

  /** The hello came, or the start is given up: no phase runs out any more. */
  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private arm(ms: number): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.fail(this.overdue(ms)), ms);
  }

  private onData(chunk: Buffer): void {
    if (this.error) return;
    if (this.found) {
      this.input.write(chunk);
      return;
    }
    if (this.phase === 'login') {
      this.phase = 'preamble';
      this.arm(this.watch.helloMs);
    }
    const text = this.tail + chunk.toString('latin1');
    const at = text.indexOf(AGENT_PREAMBLE);
    if (at >= 0) {
      this.found = true;
      this.phase = 'hello';
      this.input.write(Buffer.from(text.slice(at + AGENT_PREAMBLE.length), 'latin1'));
      return;
    }
    this.skipped += chunk.length;
    if (this.head.length < HEAD_BYTES) this.head = Buffer.concat([this.head, chunk]).subarray(0, HEAD_BYTES);
    if (this.skipped > PREAMBLE_SEARCH_BYTES) {
      const kib = Math.floor(this.skipped / 1024);
      this.fail(
        new VconsoleError(`${this.watch.host} printed ${kib} KiB${this.quoted()} and no vconsole agent started`, {
          hint: `check that ${this.watch.host}'s login prints nothing for commands, and that vconsole runs there (vconsole install --via ${this.watch.host})`,
        }),
      );
      return;
    }
    this.tail = text.slice(-(AGENT_PREAMBLE.length - 1));
  }

  /** The error of the phase that took longer than `ms`. */
  private overdue(ms: number): VconsoleError {
    const { host } = this.watch;
    const within = `within ${duration(ms)}`;
    if (this.phase === 'login') {
      const said = this.watch.lastSaid();
      return new VconsoleError(
        `ssh to ${host} gave nothing back ${within} (connecting, logging in, starting vconsole there)${said ? `: ${said}` : ''}`,
        {
          hint: `check that ssh ${host} works from this shell`,
        },
      );
    }
    if (this.phase === 'preamble')
      return new VconsoleError(`${host} printed ${this.skipped} bytes${this.quoted()} but no vconsole agent started ${within}`, {
        hint: `check that vconsole runs there (vconsole install --via ${host} puts it there)`,
      });
    return new VconsoleError(`the vconsole agent on ${host} did not say hello ${within}`, {
      hint: `vconsole install --via ${host} puts this version there`,
    });
  }

  /** ` ("its first line")`, of what the bastion printed before any preamble. */
  private quoted(): string {
    const line = this.head
      .toString('utf8')
      .split('\n')
      .map((l) => l.trim())
      .find(Boolean);
    return line ? ` ("${clip(terminalSafe(line), QUOTED_CHARS)}")` : '';
  }

  private fail(error: VconsoleError): void {
    if (this.error) return;
    this.stop();
    this.error = error;
    for (const reject of this.waiters.splice(0)) reject(error);
  }
}

/** 30000 -> `30s`, 250 -> `250ms`. */
export function duration(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000}s` : `${ms}ms`;
}
