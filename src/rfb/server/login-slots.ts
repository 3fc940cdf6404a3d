import { PRE_LOGIN_MAX, PRE_LOGIN_PER_ADDRESS } from '../../limits.js';

/**
 * How far a connection that has not logged in got: it said nothing yet, it spoke (the RFB
 * version, a TLS ClientHello), it was asked the password (a person may be typing it).
 */
type LoginProgress = 'silent' | 'spoke' | 'asked';
const RANK: Record<LoginProgress, number> = { silent: 0, spoke: 1, asked: 2 };

/** One connection's place among those not logged in yet. */
export interface LoginSlot {
  progressed(progress: LoginProgress): void;
  /** Logged in, or gone: the slot is free. */
  leave(): void;
}

interface Held {
  address: string;
  progress: LoginProgress;
  /** Closes the connection, which then leaves. */
  evict(): void;
}

export interface LoginSlotsOptions {
  perAddress?: number;
  max?: number;
}

/**
 * The connections of a command's listeners that have not logged in yet, bounded per source
 * address and in all (PRE_LOGIN_PER_ADDRESS, PRE_LOGIN_MAX). A new connection is always let in;
 * over a bound, an older one is closed instead: its own address's when that address holds its
 * share, else one of the address holding the most. Of those, the one that got least far goes,
 * the oldest first. Refusing the newcomer instead would let whoever holds the slots keep the
 * owner out; closing the least advanced of the greediest address lets a viewer that answers at
 * once through, from another address and from the flooder's own.
 */
export class LoginSlots {
  private readonly held = new Set<Held>();
  private readonly perAddress: number;
  private readonly max: number;

  constructor(options: LoginSlotsOptions = {}) {
    this.perAddress = options.perAddress ?? PRE_LOGIN_PER_ADDRESS;
    this.max = options.max ?? PRE_LOGIN_MAX;
  }

  /** Connections not logged in now. */
  get size(): number {
    return this.held.size;
  }

  /** A slot for a connection from `address`; `evict` closes it should a newer one need the room. */
  enter(address: string, evict: () => void): LoginSlot {
    this.makeRoom(address);
    const entry: Held = { address, progress: 'silent', evict };
    this.held.add(entry);
    return {
      progressed: (progress) => {
        if (RANK[progress] > RANK[entry.progress]) entry.progress = progress;
      },
      leave: () => {
        this.held.delete(entry);
      },
    };
  }

  /** Whether `address` holds its whole share now (its next connection closes one of its own). */
  full(address: string): boolean {
    return this.countOf(address) >= this.perAddress;
  }

  private makeRoom(address: string): void {
    while (this.countOf(address) >= this.perAddress) this.evictFrom(address);
    while (this.held.size >= this.max) this.evictFrom(this.greediest());
  }

  private countOf(address: string): number {
    let count = 0;
    for (const entry of this.held) if (entry.address === address) count += 1;
    return count;
  }

  /** The address holding the most slots (the earliest such, on a tie). */
  private greediest(): string {
    const counts = new Map<string, number>();
    for (const entry of this.held) counts.set(entry.address, (counts.get(entry.address) ?? 0) + 1);
    let best = '';
    let most = 0;
    for (const [address, count] of counts) {
      if (count > most) [best, most] = [address, count];
    }
    return best;
  }

  /** Closes the least advanced, then oldest, connection of `address`. */
  private evictFrom(address: string): void {
    let victim: Held | undefined;
    for (const entry of this.held) {
      if (entry.address !== address) continue;
      if (!victim || RANK[entry.progress] < RANK[victim.progress]) victim = entry;
    }
    if (!victim) return;
    this.held.delete(victim);
    victim.evict();
  }
}
