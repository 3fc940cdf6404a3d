/**
 * When vconsole's RFB client asks its console for the next FramebufferUpdate.
 *
 * An update that carries pixels (or no rectangle at all) answers the client's request, and the
 * next request goes out at once. An update of nothing but pseudo-encodings (a new screen size,
 * the echo of the size, LED state, the ack of QEMU's key events, a cursor) is a notice, and
 * consoles disagree on what it means:
 * - QEMU sends notices unasked and keeps the pending request for the pixels (ui/vnc.c). A second
 *   request sent while its encoding thread still holds the first one is worse than useless: if
 *   the guest changes video mode before the thread starts that job, QEMU never again sends that
 *   client an update (vnc_abort_display_jobs; docs/WIRE-FACTS.md). So a notice from QEMU is
 *   never answered: the pending request brings the new screen (QEMU marks it all changed).
 * - TigerVNC and libvncserver answer the request with the notice (VNCSConnectionST's
 *   writeNoDataUpdate clears it): a client that does not ask again gets nothing more.
 *
 * QEMU names itself in ServerInit ("QEMU" or "QEMU (name)"). Of another console the first notice
 * is held back: pixels that come without a new request show it keeps requests; NOTICE_HOLD_MS
 * without any update shows the notice was the answer, and the held request goes out.
 */
import { StateMachine, type Transitions } from '../../state-machine/state-machine.js';

/**
 * How long a request held back after a console's first notice waits for pixels: QEMU's come in
 * milliseconds; a console that answered with the notice gets its next request after this pause.
 */
export const NOTICE_HOLD_MS = 1_000;

type NoticeHabit =
  /** No notice seen yet from a console that did not name itself QEMU. */
  | { readonly kind: 'unknown' }
  /** A notice came; the request it may have answered waits for pixels or the pause's end. */
  | { readonly kind: 'holding'; readonly timer: NodeJS.Timeout; readonly incremental: boolean }
  /** Notices come unasked; the pending request stands. */
  | { readonly kind: 'notices-unasked' }
  /** A notice answers the request: the next one goes out at once. */
  | { readonly kind: 'notices-answer' };

const TRANSITIONS: Transitions<NoticeHabit> = {
  unknown: ['holding', 'notices-unasked'],
  holding: ['holding', 'notices-unasked', 'notices-answer'],
  'notices-unasked': [],
  'notices-answer': [],
};

/** True for the ServerInit name QEMU's VNC server gives: "QEMU", or "QEMU (name)" for a named guest. */
export function namedByQemu(name: string): boolean {
  return name === 'QEMU' || name.startsWith('QEMU (');
}

export class UpdateRequests {
  private readonly habit: StateMachine<NoticeHabit>;
  /** The request the parser's turn will send when it is over. */
  private due: { incremental: boolean } | undefined;
  private closed = false;

  /** `send` writes a FramebufferUpdateRequest for the whole screen. */
  constructor(
    serverName: string,
    private readonly send: (incremental: boolean) => void,
    private readonly holdMs = NOTICE_HOLD_MS,
  ) {
    this.habit = new StateMachine<NoticeHabit>('update requests', TRANSITIONS, {
      kind: namedByQemu(serverName) ? 'notices-unasked' : 'unknown',
    });
  }

  /** The first request, for the whole screen. */
  start(): void {
    this.ask(false);
  }

  /** An update that answered the request (pixels, or no rectangle) is drawn: the next is asked for. */
  answered(incremental: boolean): void {
    const held = this.habit.when('holding');
    if (held) {
      // Pixels with no request since the notice: it had not answered the request.
      clearTimeout(held.timer);
      this.habit.to({ kind: 'notices-unasked' });
    }
    this.ask(incremental);
  }

  /** An update of nothing but pseudo-encodings is handled. */
  notice(incremental: boolean): void {
    const habit = this.habit.current;
    switch (habit.kind) {
      case 'notices-unasked':
        return;
      case 'notices-answer':
        this.ask(incremental);
        return;
      case 'holding':
        if (habit.incremental && !incremental) this.habit.to({ ...habit, incremental });
        return;
      case 'unknown':
        this.habit.to({ kind: 'holding', incremental, timer: setTimeout(() => this.noAnswerCame(), this.holdMs) });
    }
  }

  /** The connection is over: nothing more is sent. */
  close(): void {
    this.closed = true;
    clearTimeout(this.habit.when('holding')?.timer);
    this.due = undefined;
  }

  /** The console sent nothing after its notice: the notice was its answer. */
  private noAnswerCame(): void {
    const held = this.habit.when('holding');
    if (!held) return;
    this.habit.to({ kind: 'notices-answer' });
    this.ask(held.incremental);
  }

  /**
   * Asks once the parser's turn is over, one request for however many updates it drew (a full one
   * if any of them wanted it): a console that floods unrequested updates costs one write a turn,
   * not one a message, and still has a request after its latest.
   */
  private ask(incremental: boolean): void {
    if (this.closed) return;
    if (this.due) {
      this.due.incremental &&= incremental;
      return;
    }
    this.due = { incremental };
    queueMicrotask(() => {
      const due = this.due;
      this.due = undefined;
      if (due && !this.closed) this.send(due.incremental);
    });
  }
}
