import { Duplex } from 'node:stream';

/** How often the demo VM's kernel prints a line by itself: what piles up while nobody looks. */
const HEARTBEAT_MS = 5_000;

/**
 * The demo VM's serial line: a tiny shell with local echo, as a getty would give after login.
 * It greets once, then prints a kernel-style heartbeat line every few seconds (so a detached
 * console has something to catch up on) and answers `help`, `date`, `uptime`, `hostname`,
 * `echo TEXT`; anything else is "command not found". No socket: the stream is the line.
 */
export class DemoSerialLine extends Duplex {
  private line = '';
  private readonly bootedAt = Date.now();
  private readonly heartbeat: NodeJS.Timeout;
  private beats = 0;

  constructor(private readonly vmName: string) {
    super();
    this.push(`\r\n${vmName} login: root (automatic login)\r\nWelcome to ${vmName}, a vconsole demo VM. Type help.\r\n${this.prompt()}`);
    this.heartbeat = setInterval(() => {
      this.beats++;
      this.push(`\r\n[${this.uptimeSeconds().padStart(12)}] ${this.vmName}: heartbeat ${this.beats}\r\n${this.prompt()}${this.line}`);
    }, HEARTBEAT_MS);
    this.heartbeat.unref();
  }

  override _read(): void {
    // Output is pushed as input arrives and as the heartbeat ticks.
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    let echo = '';
    for (const byte of chunk) {
      if (byte === 0x0d || byte === 0x0a) {
        echo += `\r\n${this.run(this.line.trim())}${this.prompt()}`;
        this.line = '';
      } else if (byte === 0x7f || byte === 0x08) {
        if (this.line.length > 0) {
          this.line = this.line.slice(0, -1);
          echo += '\b \b';
        }
      } else if (byte === 0x03) {
        echo += `^C\r\n${this.prompt()}`;
        this.line = '';
      } else if (byte >= 0x20 && byte < 0x7f) {
        this.line += String.fromCharCode(byte);
        echo += String.fromCharCode(byte);
      }
    }
    if (echo) this.push(echo);
    callback();
  }

  override _final(callback: (error?: Error | null) => void): void {
    this.push(null);
    callback();
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    clearInterval(this.heartbeat);
    callback(error);
  }

  private prompt(): string {
    return `root@${this.vmName}:~# `;
  }

  private uptimeSeconds(): string {
    return ((Date.now() - this.bootedAt) / 1000).toFixed(3);
  }

  /** The output of one command line, ending in a newline when not empty. */
  private run(command: string): string {
    const [word, ...rest] = command.split(/\s+/);
    switch (word) {
      case '':
        return '';
      case 'help':
        return 'commands: help, date, uptime, hostname, echo TEXT\r\n';
      case 'date':
        return `${new Date().toUTCString()}\r\n`;
      case 'uptime':
        return `up ${this.uptimeSeconds()} s\r\n`;
      case 'hostname':
        return `${this.vmName}\r\n`;
      case 'echo':
        return `${rest.join(' ')}\r\n`;
      default:
        return `-sh: ${word}: command not found\r\n`;
    }
  }
}
