import type { EventEmitter } from 'node:events';
import { VconsoleError } from '../../errors.js';
import { FIRST_PICTURE_TURN_IDLE_MS, FIRST_PICTURES_AT_ONCE } from '../../limits.js';

/**
 * Turns for the shared consoles' first whole pictures: at most `atOnce` consoles of the process
 * are asked for theirs at a time, the others wait in the order they came. A 1080p first picture
 * is ~6 MB on the wire and a few copies of it while it is inflated and drawn; 200 consoles
 * started together would hold 200 such bursts at once (GiBs at the peak, and what malloc keeps
 * of them after), and on a busy machine every one of them drew so slowly that all missed their
 * FIRST_PICTURE_TIMEOUT_MS. In turns, each burst is over in a fraction of a second and the next
 * one reuses its memory. A console that has its turn and sends nothing for `idleMs` gives it
 * back (it goes on drawing without one), so a console that never draws holds the
 * others back for `idleMs`, not for its whole timeout; it still ends by its own timeout, which
 * counts from its turn.
 */
export class FirstPictureTurns {
  private active = 0;
  private readonly waiting: Array<() => void> = [];
  /** The most turns held at once so far (what tests count). */
  mostAtOnce = 0;

  constructor(
    readonly atOnce = FIRST_PICTURES_AT_ONCE,
    readonly idleMs = FIRST_PICTURE_TURN_IDLE_MS,
  ) {}

  /** Turns held now. */
  get held(): number {
    return this.active;
  }

  /** Consoles waiting for a turn now. */
  get queued(): number {
    return this.waiting.length;
  }

  /**
   * Resolves with the function that gives the turn back (once; calling it again does nothing)
   * when this console's turn comes; rejects if `signal` aborts first (its place is given up).
   * With `drawing` (the console's byte stream), the turn is also given back once no 'data'
   * came from it for `idleMs` while it was not paused.
   */
  take(signal: AbortSignal, drawing?: EventEmitter): Promise<() => void> {
    if (signal.aborted) return Promise.reject(new VconsoleError('cancelled'));
    if (this.active < this.atOnce) return Promise.resolve(this.grant(drawing));
    return new Promise((resolve, reject) => {
      const ready = () => {
        signal.removeEventListener('abort', abort);
        resolve(this.grant(drawing));
      };
      const abort = () => {
        const at = this.waiting.indexOf(ready);
        if (at >= 0) this.waiting.splice(at, 1);
        reject(new VconsoleError('cancelled'));
      };
      signal.addEventListener('abort', abort, { once: true });
      this.waiting.push(ready);
    });
  }

  private grant(drawing?: EventEmitter): () => void {
    this.active++;
    this.mostAtOnce = Math.max(this.mostAtOnce, this.active);
    let given = false;
    let idle: NodeJS.Timeout | undefined;
    const heard = () => idle?.refresh();
    const giveBack = () => {
      if (given) return;
      given = true;
      clearTimeout(idle);
      drawing?.off('data', heard);
      this.active--;
      this.waiting.shift()?.();
    };
    // Paused, the stream is vconsole's own: its parser holds bytes it has not drawn yet (a big
    // first picture on a busy machine), which is drawing, not silence.
    const idleOut = () => (isPaused(drawing) ? idle?.refresh() : giveBack());
    if (drawing) {
      idle = setTimeout(idleOut, this.idleMs);
      idle.unref();
      drawing.on('data', heard);
    }
    return giveBack;
  }
}

/** A readable stream that its reader paused (an emitter that is none is never paused). */
function isPaused(drawing: EventEmitter | undefined): boolean {
  const readable = drawing as { isPaused?: () => boolean } | undefined;
  return typeof readable?.isPaused === 'function' && readable.isPaused();
}

/** The process's turns, shared by every hub of a command. */
export const firstPictureTurns = new FirstPictureTurns();
