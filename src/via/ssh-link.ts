// The near end of --via: the user's own ssh running the far vconsole's agent, its hello and
// version checked, and, after a drop, a new one (with --wait) or the honest ending.
import { spawn, type ChildProcess } from 'node:child_process';
import { PassThrough } from 'node:stream';
import { ConsoleRefusedError, VconsoleError } from '../errors.js';
import { sshCommandLine } from '../net/ssh-command.js';
import { terminalSafe } from '../text/terminal-text.js';
import { VERSION } from '../version.js';
import { sshArgs, type ViaAddress } from './address.js';
import { ViaConnection } from './connection.js';
import { FarError } from './wire-error.js';
import { AGENT_PREAMBLE, PREAMBLE_SEARCH_BYTES, VIA_PROTOCOL } from './protocol.js';

export interface ViaLinkSettings {
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
const RETRY_FIRST_MS = 1000;
const RETRY_MAX_MS = 15_000;

/** A version that cannot work with this one: trying again will not help. */
export class ViaVersionError extends VconsoleError {}

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
    try {
      return await connection.request(op, body);
    } catch (err) {
      throw err instanceof FarError ? err.from(this.host) : err;
    }
  }

  /** Ends the ssh process: the far agent sees its stdin end and closes every console there. */
  close(): void {
    this.closing = true;
    for (const child of this.children) {
      child.stdin?.end();
      child.kill('SIGTERM');
    }
  }

  private async reconnect(): Promise<ViaConnection> {
    const deadline = (this.lostAt ?? Date.now()) + this.settings.waitMs;
    let delay = RETRY_FIRST_MS;
    for (;;) {
      try {
        const connection = await this.connect();
        this.settings.say(`vconsole: connected to ${this.host} again`);
        return connection;
      } catch (err) {
        if (err instanceof ViaVersionError || this.closing || Date.now() + delay > deadline) throw err;
        await new Promise((resolve) => setTimeout(resolve, delay));
        delay = Math.min(delay * 2, RETRY_MAX_MS);
      }
    }
  }

  /** Starts ssh and the far agent, and waits for its hello. */
  private async connect(): Promise<ViaConnection> {
    const { sshCommand, farCommand, address } = this.settings;
    const remote = `${farCommand} agent --stdio`;
    // The address and the remote command are arguments after the user's ssh command, never parsed by a shell here.
    const ssh = sshCommandLine(sshCommand, [...sshArgs(address), remote]);
    const child = spawn(ssh.command, ssh.args, {
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.children.add(child);
    let stderrTail = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderrTail = (stderrTail + chunk.toString('utf8')).slice(-STDERR_KEPT_BYTES);
      if (this.settings.verbose)
        for (const line of chunk.toString('utf8').split('\n').filter(Boolean))
          this.settings.say(`vconsole: ${this.host}: ${terminalSafe(line)}`);
    });
    const input = new PassThrough();
    const connection = new ViaConnection(input, child.stdin, { lost: () => this.lostError() });
    skipToPreamble(child.stdout, input);
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
      hello = await connection.hello();
    } catch {
      const code = await exited;
      throw this.startFailure(code, stderrTail);
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

  /** Why the far agent never said hello, from ssh's exit code and the last line it wrote. */
  private startFailure(code: number | null, stderr: string): VconsoleError {
    const last = terminalSafe(stderr.trim().split('\n').pop() ?? '').trim();
    const said = last ? `: ${last}` : '';
    if (code === 127 || /command not found|not found|No such file/i.test(last))
      return new VconsoleError(`no vconsole on ${this.host}${said}`, { hint: `vconsole install --via ${this.host} puts one there` });
    if (code === 255) return new VconsoleError(`ssh to ${this.host} failed${said}`, { hint: 'check that ssh HOST works from this shell' });
    return new VconsoleError(`the vconsole on ${this.host} did not start its agent (exit ${code ?? 'by a signal'})${said}`, {
      hint: `vconsole install --via ${this.host} puts this version there`,
    });
  }
}

/** Copies `from` to `to` from just after the agent's preamble on; what comes before it is skipped (bounded). */
function skipToPreamble(from: NodeJS.ReadableStream, to: PassThrough): void {
  let seen = '';
  let found = false;
  from.on('data', (chunk: Buffer) => {
    if (found) {
      to.write(chunk);
      return;
    }
    seen += chunk.toString('latin1');
    const at = seen.indexOf(AGENT_PREAMBLE);
    if (at >= 0) {
      found = true;
      to.write(Buffer.from(seen.slice(at + AGENT_PREAMBLE.length), 'latin1'));
    } else if (seen.length > PREAMBLE_SEARCH_BYTES) {
      to.end();
    } else seen = seen.slice(-(AGENT_PREAMBLE.length + PREAMBLE_SEARCH_BYTES));
  });
  from.on('end', () => to.end());
}
