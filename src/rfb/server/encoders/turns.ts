import { ENCODE_PIXELS_PER_TURN } from '../../../limits.js';

/*
 * The encoding every RFB server connection of the process may do in one turn of the event loop. A
 * hostile console can declare 8192x8192 and redraw it whole: encoded in one go that is a
 * second of ZRLE per client with nothing else served meanwhile. Updates are encoded in bands
 * of rows, each band first taking its cost from this budget; past it the band waits for the
 * next turn, behind the clients that asked before it, so one client's huge screen takes its
 * share of turns and no more, and signals, keys and other consoles are served in between.
 */

interface Waiter {
  cost: number;
  resolve: () => void;
}

export class EncodeTurns {
  private spent = 0;
  private turnOpen = false;
  private readonly waiting: Waiter[] = [];

  constructor(readonly perTurn: number = ENCODE_PIXELS_PER_TURN) {}

  /**
   * Undefined when `cost` may be spent in this turn (it is counted); else a promise that
   * resolves in the later turn that has room for it, in the order of asking.
   */
  take(cost: number): Promise<void> | undefined {
    if (this.waiting.length === 0 && this.spent < this.perTurn) {
      this.spend(cost);
      return undefined;
    }
    this.openTurn();
    return new Promise((resolve) => this.waiting.push({ cost, resolve }));
  }

  private spend(cost: number): void {
    this.spent += cost;
    this.openTurn();
  }

  /** The turn ends at the next check phase: the budget is new there, first for those waiting. */
  private openTurn(): void {
    if (this.turnOpen) return;
    this.turnOpen = true;
    setImmediate(() => {
      this.turnOpen = false;
      this.spent = 0;
      while (this.waiting.length > 0 && this.spent < this.perTurn) {
        const next = this.waiting.shift() as Waiter;
        this.spend(next.cost);
        next.resolve();
      }
    });
  }
}

/** Shared by every client of every console of the process: the loop is one. */
export const encodeTurns = new EncodeTurns();
