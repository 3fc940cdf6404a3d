/**
 * `open` where no window can show (a jump host reached by ssh without X forwarding): no viewer
 * is started, every console is still served, and the user is told once why and, per console,
 * the exact `ssh -L` line to run on their own machine, so a viewer there reaches the port (or
 * the browser viewer's page, with its address). The verdict comes from src/viewers/display.ts.
 */
import { EventEmitter } from 'node:events';
import { consoleKind } from '../../console-kinds/index.js';
import { BROWSER_MANUAL_CODE_TTL_MS } from '../../limits.js';
import { bracketHost, localAddressOf } from '../../net/host-port.js';
import type { DisplayVerdict, SshLogin } from '../../viewers/display.js';
import type { ViewerTarget } from '../../viewers/types.js';
import type { ViewerLauncher } from '../../viewers/viewer-router.js';
import type { ViewerStatusEvent } from '../../viewers/viewer-supervisor.js';
import type { OpenView } from './views.js';

/** The one line that says no window can show here, and what open does instead. */
function noDisplayNotice(verdict: Extract<DisplayVerdict, { shows: false }>): string {
  return `no display here (${verdict.reason}): no viewer is started; the consoles are served, and each one a viewer would show gets the ssh -L line to run on your own machine`;
}

/**
 * `ssh -L 5901:127.0.0.1:5901 ada@jump-1`: the port of this machine at the same port of the
 * user's, through the ssh port the user came in on (`-p 2222` when it was not 22).
 */
export function sshForwardCommand(login: SshLogin, address: string | undefined, port: number): string {
  const at = login.user ? `${login.user}@${login.host}` : login.host;
  const sshPort = login.port === undefined ? '' : ` -p ${login.port}`;
  return `ssh -L ${port}:${bracketHost(localAddressOf(address))}:${port}${sshPort} ${at}`;
}

/** What a viewer on the user's machine is pointed at once the port is forwarded. */
function pointAt(consoleType: string | undefined, port: number): string {
  return `point a ${consoleKind(consoleType)?.label ?? 'VNC'} viewer at 127.0.0.1:${port}`;
}

/**
 * Stands in for an installed viewer where none can show: each launch is a `no-display` status
 * (the row says so; `r` has nothing to retry) and the forwarding line for its console.
 */
export class NoDisplayViewers extends EventEmitter<{ status: [ViewerStatusEvent] }> implements ViewerLauncher {
  constructor(
    private readonly viewerName: string,
    private readonly shown: (key: number, target: Omit<ViewerTarget, 'extraArgs'>) => void,
  ) {
    super();
  }

  launch(key: number, target: Omit<ViewerTarget, 'extraArgs'>): Promise<void> {
    this.emit('status', { key, state: 'no-display', viewerName: this.viewerName });
    this.shown(key, target);
    return Promise.resolve();
  }

  stop(): Promise<void> {
    return Promise.resolve();
  }

  stopAll(): Promise<void> {
    return Promise.resolve();
  }

  killAllNow(): void {}

  noteConsoleClient(): void {}
}

/** What the user is told where no window shows: the notice once, each console's line once (again as a notice on Enter). */
export class NoDisplayReport {
  private readonly told = new Set<number>();

  constructor(
    private readonly verdict: Extract<DisplayVerdict, { shows: false }>,
    private readonly out: {
      view(): OpenView | undefined;
      useTui: boolean;
      /** stdout, for the page addresses without the TUI (as the JSON of pages no browser opened). */
      stdout: NodeJS.WritableStream;
      nameOf(key: number): string;
    },
  ) {}

  /** Said once, before the first console opens. */
  notice(): string {
    return noDisplayNotice(this.verdict);
  }

  /**
   * A console a viewer here would have shown: the ssh -L line for its port, the command first
   * (an 80-column TUI cuts the end of a log line) and the rest a shell comment, so the whole
   * line can be pasted as it is.
   */
  console(key: number, target: Omit<ViewerTarget, 'extraArgs'>): void {
    const line = `${sshForwardCommand(this.verdict.login, target.host, target.port)}  # ${this.out.nameOf(key)}: run on your own machine, then ${pointAt(target.consoleType, target.port)}`;
    this.say(key, line);
  }

  /**
   * A console the browser viewer would have shown: the page server's port to forward and the
   * page's address (it holds the page's secret: for the user's eyes, stdout or the TUI's
   * notice, never a log).
   */
  page(key: number, url: string): void {
    const name = this.out.nameOf(key);
    const port = Number(new URL(url).port);
    const line = `${sshForwardCommand(this.verdict.login, '127.0.0.1', port)}  # ${name}: run on your own machine, then open the browser viewer's page there`;
    this.say(key, line);
    // The TUI: the ssh -L line in the log (as for any console), the address alone in the
    // notice, first, so an 80-column line still shows it whole.
    if (this.out.useTui)
      return void this.out.view()?.show({
        type: 'notice',
        text: `${url}  # ${name}'s page, once the ssh -L line in the log runs; works once, for ${BROWSER_MANUAL_CODE_TTL_MS / 60_000} minutes`,
      });
    this.out.stdout.write(`${JSON.stringify({ target: name, url })}\n`);
  }

  /** The line in the event log (stderr without the TUI) once per console; asked again (Enter), the TUI's notice. */
  private say(key: number, line: string): void {
    const view = this.out.view();
    if (!this.told.has(key)) {
      this.told.add(key);
      view?.show({ type: 'log', level: 'info', message: line });
    } else if (this.out.useTui) view?.show({ type: 'notice', text: line });
  }
}
