import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pollFor } from './poll.js';
import { awaitProcessesGone, descendantPids, processAlive, runProgram, type ProcessLab } from './processes.js';

export interface TmuxTerminal {
  /** The pid of the program under test (a child of the pane's shell). */
  pid: number;
  /** The visible rows of the pane, as a person sees them. */
  capture(): Promise<string>;
  /** The visible rows with their colours and attributes as SGR sequences (`capture-pane -e`). */
  captureColours(): Promise<string>;
  /** `tmux send-keys`: key names (`q`, `C-c`, `Enter`), or text typed as is with `literal`. */
  sendKeys(keys: readonly string[], literal?: boolean): Promise<void>;
  /**
   * Pastes `text` as a terminal pastes (`paste-buffer -p`): wrapped in bracketed paste's markers
   * when the program asked for them (DECSET 2004), as is otherwise.
   */
  paste(text: string): Promise<void>;
  /** Waits until the screen satisfies `test`; returns the screen. */
  awaitScreen(what: string, test: (screen: string) => boolean, timeoutMs?: number): Promise<string>;
  /** `exit N` once the program has ended (128+N: killed by signal N), undefined while it runs. */
  exitStatus(): Promise<string | undefined>;
  /** Waits for the program to end; its `exit N`. */
  awaitExit(timeoutMs?: number): Promise<string>;
  /** Resizes the window, as a user dragging the terminal's edge (the program gets SIGWINCH). */
  resize(columns: number, rows: number): Promise<void>;
  /** `tmux display -p FORMAT` for the pane: its modes, e.g. `#{alternate_on}`, `#{cursor_flag}`. */
  display(format: string): Promise<string>;
  /** Closes the terminal (kill-server): the program gets SIGHUP, as when a terminal window closes. */
  kill(): Promise<void>;
  /** Cleanup after a test, passed or not: closes the terminal, then SIGKILLs whatever the program left. */
  destroy(): Promise<void>;
}

/**
 * The pane runs `sh`, which runs the program and writes its exit status to a file. The shell
 * is there because tmux 3.3a was seen not to reap a pane process that exits while its own
 * child (a viewer) exits (a zombie, `pane_dead` without a status), so tmux cannot be asked.
 * The shell traps INT/HUP/TERM with a no-op (not an ignore, which children would inherit), so a
 * Ctrl+C to the foreground group still reaches the program and the shell lives to record it.
 */
export function paneScript(cwd: string, command: readonly string[], statusFile: string): string {
  const run = command.map(shellQuote).join(' ');
  return `trap : INT HUP TERM; cd ${shellQuote(cwd)} || exit 1; ${run}; echo "exit $?" > ${shellQuote(statusFile)}`;
}

/**
 * Runs `command` in a detached tmux session of `columns` x `rows` on a private tmux server
 * (its own socket in `dir`, no user config), so nothing touches a developer's tmux. The pane
 * stays after the program exits (remain-on-exit) so its last screen can be read.
 */
export async function startTmux(
  lab: ProcessLab,
  dir: string,
  command: readonly string[],
  options: { columns: number; rows: number; env: NodeJS.ProcessEnv; cwd: string },
): Promise<TmuxTerminal> {
  const socket = join(dir, 'tmux.sock');
  const statusFile = join(dir, 'exit-status');
  const tmux = async (args: readonly string[]) => {
    const result = await runProgram('tmux', ['-S', socket, '-f', '/dev/null', ...args], { env: options.env, timeoutMs: 15_000 });
    if (result.code !== 0) throw new Error(`tmux ${args.join(' ')} failed (${result.code}): ${result.stderr.trim()}`);
    return result.stdout;
  };
  const session = 'vconsole-e2e';
  const script = paneScript(options.cwd, command, statusFile);
  await tmux([
    'new-session',
    '-d',
    '-s',
    session,
    '-x',
    String(options.columns),
    '-y',
    String(options.rows),
    'sh',
    '-c',
    script,
    ';',
    'set-option',
    '-t',
    session,
    'remain-on-exit',
    'on',
  ]);
  // The tmux server daemonizes; it is stopped with kill-server, and through the lab as a backstop.
  const serverPid = Number((await tmux(['display-message', '-p', '-t', session, '#{pid}'])).trim());
  lab.adopt(serverPid, socket);
  const panePid = Number((await tmux(['display-message', '-p', '-t', session, '#{pane_pid}'])).trim());
  const pid = await pollFor(async () => (await descendantPids(panePid))[0], {
    what: 'the program to start in the tmux pane',
    timeoutMs: 15_000,
  });

  const terminal: TmuxTerminal = {
    pid,
    capture: () => tmux(['capture-pane', '-p', '-t', session]),
    captureColours: () => tmux(['capture-pane', '-e', '-p', '-t', session]),
    async sendKeys(keys, literal = false) {
      await tmux(['send-keys', '-t', session, ...(literal ? ['-l'] : []), ...keys]);
    },
    async paste(text) {
      await tmux(['set-buffer', '-b', 'e2e-paste', '--', text]);
      await tmux(['paste-buffer', '-p', '-d', '-b', 'e2e-paste', '-t', session]);
    },
    async awaitScreen(what, test, timeoutMs = 60_000) {
      let last = '';
      return pollFor(
        async () => {
          last = await terminal.capture();
          return test(last) ? last : undefined;
        },
        { what, timeoutMs, intervalMs: 200, detail: () => `screen now:\n${last}` },
      );
    },
    async exitStatus() {
      const text = await readFile(statusFile, 'utf8').catch(() => '');
      return text.trim() || undefined;
    },
    async resize(columns, rows) {
      await tmux(['resize-window', '-t', session, '-x', String(columns), '-y', String(rows)]);
    },
    async display(format) {
      return (await tmux(['display-message', '-p', '-t', session, format])).trim();
    },
    awaitExit(timeoutMs = 30_000) {
      return pollFor(() => terminal.exitStatus(), { what: 'the program in the terminal to exit', timeoutMs, intervalMs: 100 });
    },
    async kill() {
      await tmux(['kill-server']).catch(() => undefined);
    },
    async destroy() {
      const started = [panePid, ...(await descendantPids(panePid))];
      await terminal.kill();
      await awaitProcessesGone(started, 'the terminal program and its children to exit', 5_000).catch(() => {
        // pids seen a few seconds ago, still running: not yet reusable by anyone else
        for (const p of started) if (processAlive(p)) process.kill(p, 'SIGKILL');
      });
    },
  };
  return terminal;
}

/** Quotes one argument for sh. */
export function shellQuote(arg: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}

/** A screen with tmux's line wrapping undone, for text longer than a row. */
export function unwrapped(screen: string): string {
  return screen.replace(/\n/g, '');
}
