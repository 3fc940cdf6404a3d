import { EventEmitter } from 'node:events';

/** Just enough of a terminal's output for Ink: a size, and every write kept, in order. */
export class FakeTerminalOutput extends EventEmitter {
  readonly isTTY = true;
  writes: string[] = [];
  constructor(
    readonly columns = 100,
    readonly rows = 30,
  ) {
    super();
  }
  /** Everything written so far, as one text. */
  get written(): string {
    return this.writes.join('');
  }
  write = (chunk: string, ...rest: unknown[]): boolean => {
    this.writes.push(chunk);
    const callback = rest.find((arg) => typeof arg === 'function') as (() => void) | undefined;
    if (callback) setImmediate(callback);
    return true;
  };
}

/** Just enough of a terminal's input for Ink: raw mode, and keys typed as a person does. */
export class FakeTerminalInput extends EventEmitter {
  /** Like process.stdin: `true` on a terminal, absent (undefined) when piped. */
  readonly isTTY: true | undefined;
  constructor(terminal = true) {
    super();
    this.isTTY = terminal ? true : undefined;
  }
  private pending: string | null = null;
  type(data: string): void {
    this.pending = data;
    this.emit('readable');
  }
  read = (): string | null => {
    const data = this.pending;
    this.pending = null;
    return data;
  };
  rawMode = false;
  isRaw = false;
  setEncoding(): void {}
  setRawMode = (on: boolean): void => {
    this.rawMode = on;
    this.isRaw = on;
  };
  resume(): void {}
  pause(): void {}
  ref(): void {}
  unref(): void {}
}
