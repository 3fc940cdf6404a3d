/**
 * What `vconsole run` says while it plays: on a terminal a live table, one row per console with
 * the step it is on; otherwise one line per step done (`vm-a step 2/5: type (12 chars) ok`).
 * Then a line for each console that did not finish, naming the step and why.
 */
import { terminalSafe } from '../text/terminal-text.js';
import type { ScriptOutcome, StepNews } from './run-script.js';
import type { Step } from './run-steps.js';

/** Exit code of a script Ctrl+C stopped, as a shell gives a command SIGINT ended. */
const INTERRUPTED_EXIT = 130;

export class StepReporter {
  private readonly rows: string[];
  private drawn = 0;
  private readonly live: boolean;

  constructor(
    private readonly names: readonly string[],
    private readonly out: NodeJS.WritableStream & { isTTY?: boolean },
  ) {
    this.live = out.isTTY === true;
    this.rows = names.map(() => 'waiting');
  }

  news(news: StepNews): void {
    const step = `step ${news.step}/${news.total}: ${news.what}`;
    const state = news.state === 'running' ? '…' : news.state;
    const line = `${step} ${state}${news.state === 'failed' && news.detail ? `: ${news.detail}` : ''}`;
    if (!this.live) {
      if (news.state !== 'running') this.out.write(`${terminalSafe(`${this.names[news.target]} ${line}`)}\n`);
      return;
    }
    this.rows[news.target] = line;
    this.draw();
  }

  /** The table drawn again over itself: each row cleared, the cursor left below it. */
  private draw(): void {
    const width = Math.max(...this.names.map((name) => name.length));
    const up = this.drawn > 0 ? `\x1b[${this.drawn}A` : '';
    const lines = this.names.map((name, i) => `\r\x1b[2K${terminalSafe(`${name.padEnd(width)}  ${this.rows[i]}`)}\n`);
    this.out.write(up + lines.join(''));
    this.drawn = this.names.length;
  }

  /** A line for each console that did not finish; the exit code. */
  finish(outcomes: readonly ScriptOutcome[], steps: readonly Step[]): number {
    let code = 0;
    outcomes.forEach((outcome, i) => {
      if (outcome.status === 'done') return;
      const where = `step ${outcome.step}/${steps.length} (${steps[outcome.step - 1].kind}, line ${steps[outcome.step - 1].line})`;
      const line =
        outcome.status === 'stopped'
          ? `${this.names[i]}: stopped at ${where}`
          : `vconsole: ${this.names[i]}: failed at ${where}: ${outcome.why}`;
      this.out.write(`${terminalSafe(line)}\n`);
      code = outcome.status === 'stopped' ? INTERRUPTED_EXIT : Math.max(code, 1);
    });
    if (outcomes.some((outcome) => outcome.status === 'stopped'))
      outcomes.forEach((outcome, i) => outcome.status === 'done' && this.out.write(`${terminalSafe(`${this.names[i]}: had finished`)}\n`));
    return code;
  }
}
