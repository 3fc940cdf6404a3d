// The near end of --via: the user's own ssh running the far vconsole's agent, its hello and
// version checked, and, after a drop, a new one (with --wait) or the honest ending.
import { spawn, type ChildProcess } from 'node:child_process';
import { ConsoleRefusedError, VconsoleError } from '../errors.js';
import { endsWithVconsole } from '../net/child-processes.js';
import { sshCommandLine } from '../net/ssh-command.js';
import { terminalSafe } from '../text/terminal-text.js';
import { VERSION } from '../version.js';
import { sshArgs, type ViaAddress } from './address.js';
import { ViaConnection } from './connection.js';
import { FarError } from './wire-error.js';
import { VIA_PROTOCOL } from './protocol.js';
import { FarStart, duration } from './far-start.js';
import { ViaProtocolError } from './frames.js';
import { Backoff, pause } from '../retry/backoff.js';
import { VIA_HELLO_TIMEOUT_MS, VIA_LOGIN_AT_TERMINAL_TIMEOUT_MS, VIA_LOGIN_TIMEOUT_MS, VIA_REQUEST_TIMEOUT_MS } from '../limits.js';

interface ViaLinkSettings {
  address: ViaAddress;
  /** `ssh`, or $VCONSOLE_SSH_COMMAND. */
  sshCommand: string;
  /** The far vconsole, as the bastion's shell reads it. */
  farCommand: string;
  /** How long a dropped connection is tried again (0: not at all). */
  waitMs: number;
  /** Lines for the user: the connection lost, back, a version note. */
  say(line: string): void;
  verbose?: boolean;
}

/** The last this much of ssh's stderr is kept, for the line that says why it failed. */
const STDERR_KEPT_BYTES = 4096;
const RECONNECT_BACKOFF = { firstMs: 1000, maxMs: 15_000 };
/** An ssh whose output ended before the hello gets this long to exit and say why; then it is ended. */
const EXIT_WAIT_MS = 2000;
/** An ssh told to end (SIGTERM) is killed after this long. */
const KILL_GRACE_MS = 2000;

/** A version that cannot work with this one: trying again will not help. */
class ViaVersionError extends VconsoleError {}

/**
 * One bastion's link: a ViaConnection over one ssh process at a time. Consoles ask it for the
 * connection when they dial; after a drop that is a new ssh (within waitMs) or the error that
 * says the connection was lost.
 */
export class ViaLink {
  private current: Promise<ViaConnection> | undefined;
  private generationCount = 0;
  private lostAt: number | undefined;
  private closing = false;
  private readonly children = new Set<ChildProcess>();

  constructor(readonly settings: ViaLinkSettings) {}

  /** The bastion as the user named it. */
  get host(): string {
    return this.settings.address.text;
  }

  /** Counts connections made: a target's far handle is good for the generation that gave it. */
  get generation(): number {
    return this.generationCount;
  }

  /**
   * How every console ends when the connection goes. Without --wait it is final: a console that
   * would dial again (a serial line) gets the same answer, so it is a ConsoleRefusedError and the
   * line gives up at once instead of retrying.
   */
  lostError(): VconsoleError {
    const message = `connection to ${this.host} lost`;
    if (this.settings.waitMs > 0) return new VconsoleError(message);
    return new ConsoleRefusedError(message, { hint: 'with --wait vconsole connects again' });
  }

  /** The live connection: the current one, the first, or (after a drop, within waitMs) a new one. */
  async connection(): Promise<ViaConnection> {
    if (this.closing) throw this.lostError();
    if (this.current) {
      const connection = await this.current;
      if (!connection.closed) return connection;
    }
    if (this.lostAt !== undefined && this.settings.waitMs <= 0) throw this.lostError();
    this.current = this.lostAt === undefined ? this.connect() : this.reconnect();
    this.current.catch(() => (this.current = undefined));
    return this.current;
  }

  /**
   * Asks the far side for what a whole command needs (its consoles, a listing): what it refuses
   * is the command's error as it would be there, said to come from the bastion.
   */
  async request(op: string, body: Record<string, unknown>): Promise<unknown> {
    const connection = await this.connection();
    let timer: NodeJS.Timeout | undefined;
    const overdue = new Promise<never>((_, reject) => {
      const error = new VconsoleError(`the vconsole on ${this.host} gave no answer to "${op}" within ${duration(VIA_REQUEST_TIMEOUT_MS)}`, {
        hint: `run the same command on ${this.host} to see what it waits for`,
      });
      timer = setTimeout(() => reject(error), VIA_REQUEST_TIMEOUT_MS);
    });
    try {
      return await Promise.race([connection.request(op, body), overdue]);
    } catch (err) {
      throw err instanceof FarError ? err.from(this.host) : err;
    } finally {
      clearTimeout(timer);
    }
  }

  /** Ends the ssh process: the far agent sees its stdin end and closes every console there. */
  close(): void {
    this.closing = true;
    for (const child of this.children) endChild(child);
  }

  private async reconnect(): Promise<ViaConnection> {
    const deadline = (this.lostAt ?? Date.now()) + this.settings.waitMs;
    const retries = new Backoff(RECONNECT_BACKOFF);
    for (;;) {
      try {
        const connection = await this.connect();
        this.settings.say(`vconsole: connected to ${this.host} again`);
        return connection;
      } catch (err) {
        const delay = retries.next();
        if (err instanceof ViaVersionError || this.closing || Date.now() + delay > deadline) throw err;
        await pause(delay);
      }
    }
  }

  /** Starts ssh and the far agent, and waits for its hello (each phase bounded, far-start.ts). */
  private async connect(): Promise<ViaConnection> {
    const { sshCommand, farCommand, address } = this.settings;
    const remote = `${farCommand} agent --stdio`;
    // The address and the remote command are arguments after the user's ssh command, never parsed by a shell here.
    const ssh = sshCommandLine(sshCommand, [...sshArgs(address), remote]);
    // Ended with vconsole however it ends: the far agent then sees its stdin end and ends too.
    const child = endsWithVconsole(spawn(ssh.command, ssh.args, { stdio: ['pipe', 'pipe', 'pipe'] }));
    this.children.add(child);
    let stderrTail = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderrTail = (stderrTail + chunk.toString('utf8')).slice(-STDERR_KEPT_BYTES);
      if (this.settings.verbose)
        for (const line of chunk.toString('utf8').split('\n').filter(Boolean))
          this.settings.say(`vconsole: ${this.host}: ${terminalSafe(line)}`);
    });
    const lastSaid = () => terminalSafe(stderrTail.trim().split('\n').pop() ?? '').trim();
    const start = new FarStart(child.stdout, {
      host: this.host,
      loginMs: process.stdin.isTTY ? VIA_LOGIN_AT_TERMINAL_TIMEOUT_MS : VIA_LOGIN_TIMEOUT_MS,
      helloMs: VIA_HELLO_TIMEOUT_MS,
      lastSaid,
    });
    const connection = new ViaConnection(start.input, child.stdin, { lost: () => this.lostError() });
    const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
    child.once('error', () => connection.close());
    void exited.then(() => {
      this.children.delete(child);
      connection.close();
    });
    connection.once('closed', () => {
      child.stdin.end();
      if (this.generationCount > 0 && this.current !== undefined && !this.closing && this.lostAt === undefined) {
        this.lostAt = Date.now();
        this.settings.say(`vconsole: connection to ${this.host} lost`);
      }
    });
    connection.sayHello({ protocol: VIA_PROTOCOL, version: VERSION });
    let hello;
    try {
      hello = await start.until(connection.hello());
    } catch (err) {
      connection.close();
      throw await this.startFailed(child, exited, start, err, lastSaid);
    } finally {
      start.stop();
    }
    if (hello.protocol !== VIA_PROTOCOL) {
      connection.close();
      throw new ViaVersionError(
        `${this.host} runs vconsole ${terminalSafe(hello.version)} (via protocol ${hello.protocol}), this is vconsole ${VERSION} (via protocol ${VIA_PROTOCOL}): they cannot work together`,
        { hint: `put this version there with vconsole install --via ${this.host}` },
      );
    }
    if (hello.version !== VERSION)
      this.settings.say(
        `vconsole: note: ${this.host} runs vconsole ${terminalSafe(hello.version)}, this is ${VERSION} (the same via protocol ${VIA_PROTOCOL}); vconsole install --via ${this.host} makes them the same`,
      );
    this.generationCount++;
    this.lostAt = undefined;
    return connection;
  }

  /**
   * Why the far agent never said hello: a phase that ran out (far-start.ts) or a broken protocol,
   * with ssh ended; else ssh's exit (waited for a little) and the last line it wrote.
   */
  private async startFailed(child: ChildProcess, exited: Promise<number | null>, start: FarStart, err: unknown, lastSaid: () => string) {
    if (start.failure) {
      endChild(child);
      return start.failure;
    }
    const broken = err instanceof VconsoleError && err.cause instanceof ViaProtocolError ? err.cause : undefined;
    if (broken) {
      endChild(child);
      return new VconsoleError(`the vconsole on ${this.host} broke the via protocol before its hello: ${broken.message}`, {
        hint: `vconsole install --via ${this.host} puts this version there`,
      });
    }
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), EXIT_WAIT_MS)));
    const code = await Promise.race([exited, late]);
    clearTimeout(timer);
    if (code === 'late') endChild(child);
    return this.startFailure(code === 'late' ? null : code, lastSaid());
  }

  /** Why the far agent never said hello, from ssh's exit code and the last line it wrote. */
  private startFailure(code: number | null, last: string): VconsoleError {
    const said = last ? `: ${last}` : '';
    if (code === 127 || /command not found|not found|No such file/i.test(last))
      return new VconsoleError(`no vconsole on ${this.host}${said}`, { hint: `vconsole install --via ${this.host} puts one there` });
    if (code === 255) return new VconsoleError(`ssh to ${this.host} failed${said}`, { hint: 'check that ssh HOST works from this shell' });
    return new VconsoleError(`the vconsole on ${this.host} did not start its agent (exit ${code ?? 'by a signal'})${said}`, {
      hint: `vconsole install --via ${this.host} puts this version there`,
    });
  }
}

/** Ends an ssh process: its stdin first (the far agent ends with it), SIGTERM, SIGKILL if it lingers. */
function endChild(child: ChildProcess): void {
  child.stdin?.end();
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const kill = setTimeout(() => child.kill('SIGKILL'), KILL_GRACE_MS);
  child.once('exit', () => clearTimeout(kill));
  // Whatever else holds its output (a process it started) holds this process no longer.
  child.stdout?.destroy();
  child.stderr?.destroy();
}
