import { AUTH_BACKOFF_FIRST_MS, AUTH_BACKOFF_FORGET_MS, AUTH_BACKOFF_MAX_ADDRESSES, AUTH_BACKOFF_MAX_MS } from '../../limits.js';
import { backoffDelay, backoffPolicy, type BackoffPolicy } from '../../retry/backoff.js';
import { GuessBudget, type GuessBudgetOptions } from './guess-budget.js';
import { LoginSlots, type LoginSlot, type LoginSlotsOptions } from './login-slots.js';

/**
 * Online guessing of a client password, slowed per source address: VNC authentication gives
 * an answer per 16-byte guess, so without this a listener answers hundreds of guesses a second.
 * After a wrong password the address is held back (1 s, doubling to 30 s): the wrong answer
 * itself waits that long, and whatever that address tries meanwhile, on any connection to any
 * console of the process, is refused at once without being checked (so parallel connections
 * gain nothing, and a right guess among them is not told apart). The first failure of a burst
 * is logged, the rest are not; an address is forgotten 10 minutes after its last failure, and
 * at most AUTH_BACKOFF_MAX_ADDRESSES are remembered (the oldest goes first). IPv6 sources count
 * per /64. The holds are the one back-off's (src/retry/backoff.ts), of each address's failure count.
 * On top of it, the same object holds what bounds guessing from many addresses: the command's
 * guess budget (guess-budget.ts) and its connections not logged in yet (login-slots.ts).
 */
interface AuthBackoffOptions {
  firstMs?: number;
  maxMs?: number;
  forgetMs?: number;
  maxAddresses?: number;
  now?: () => number;
  guesses?: GuessBudgetOptions;
  slots?: LoginSlotsOptions;
}

interface AddressRecord {
  failures: number;
  /** Until then the address is refused without a check. */
  heldUntil: number;
  lastFailure: number;
}

/** What one client connection asks of the back-off, for the address it comes from. */
export interface AuthGate {
  /** Milliseconds this address must still wait before an answer of its is checked; 0: now. */
  wait(): number;
  /**
   * Why an answer from this address would not be checked now (held back after wrong passwords,
   * or the command's guesses used up), the wait in it; undefined when it would be.
   */
  refusal(): string | undefined;
  /** An answer is about to be checked: false when it must be refused unchecked after all (see refusal). */
  spend(): boolean;
  /** A wrong password: how long to hold the failure answer (the address is held as long). */
  failed(): number;
  /** The right password: the address's failures are forgotten, and its answers spend no guesses. */
  succeeded(): void;
  /** This connection's place among those not logged in (`evict` closes it to make room for a newer one). */
  enter(evict: () => void): LoginSlot;
}

export class AuthBackoff {
  private readonly addresses = new Map<string, AddressRecord>();
  /** Guesses checked across addresses (a rotating guesser), and the connections not logged in yet. */
  private readonly budget: GuessBudget;
  private readonly slots: LoginSlots;
  private readonly holds: BackoffPolicy;
  private readonly forgetMs: number;
  private readonly maxAddresses: number;
  private readonly now: () => number;

  constructor(options: AuthBackoffOptions = {}) {
    this.holds = backoffPolicy({ firstMs: options.firstMs ?? AUTH_BACKOFF_FIRST_MS, maxMs: options.maxMs ?? AUTH_BACKOFF_MAX_MS });
    this.forgetMs = options.forgetMs ?? AUTH_BACKOFF_FORGET_MS;
    this.maxAddresses = options.maxAddresses ?? AUTH_BACKOFF_MAX_ADDRESSES;
    this.now = options.now ?? Date.now;
    this.budget = new GuessBudget({ ...options.guesses, now: this.now });
    this.slots = new LoginSlots(options.slots);
  }

  /** Addresses remembered now (bounded by maxAddresses). */
  get size(): number {
    return this.addresses.size;
  }

  /**
   * The gate for a connection from `peer` (`host:port` as the session names clients; the port
   * is not part of the address). `log` hears the first failure of each burst, once.
   */
  gate(peer: string | undefined, log: (message: string) => void = () => undefined): AuthGate {
    const address = addressOf(peer);
    return {
      wait: () => this.wait(address),
      refusal: () => this.refusal(address),
      spend: () => this.wait(address) === 0 && this.budget.spend(address),
      failed: () => this.failed(address, log),
      succeeded: () => {
        this.addresses.delete(address);
        this.budget.knownGood(address);
      },
      enter: (evict) => this.slots.enter(address, evict),
    };
  }

  /**
   * Whether connections from `peer` are refused unchecked right now (held back, or the guesses
   * used up), or are one more of an address that holds its whole share of connections not logged
   * in (each closes an older one of its): they are counted, not logged one by one.
   */
  heldBack(peer: string | undefined): boolean {
    const address = addressOf(peer);
    return this.wait(address) > 0 || this.budget.wait(address) > 0 || this.slots.full(address);
  }

  private refusal(address: string): string | undefined {
    const held = this.wait(address);
    if (held > 0) return `too many wrong passwords from this address: try again in ${Math.ceil(held / 1000)} s`;
    const budget = this.budget.wait(address);
    if (budget > 0) return `too many password guesses at this listener: try again in ${Math.ceil(budget / 1000)} s`;
    return undefined;
  }

  private current(address: string): AddressRecord | undefined {
    const record = this.addresses.get(address);
    if (record && this.now() - record.lastFailure >= this.forgetMs && this.now() >= record.heldUntil) {
      this.addresses.delete(address);
      return undefined;
    }
    return record;
  }

  private wait(address: string): number {
    const record = this.current(address);
    return record ? Math.max(0, record.heldUntil - this.now()) : 0;
  }

  private failed(address: string, log: (message: string) => void): number {
    const now = this.now();
    let record = this.current(address);
    if (!record) {
      this.makeRoom();
      record = { failures: 0, heldUntil: now, lastFailure: now };
      this.addresses.set(address, record);
    }
    record.failures += 1;
    const delay = backoffDelay(this.holds, record.failures);
    record.heldUntil = now + delay;
    record.lastFailure = now;
    if (record.failures === 1) {
      log(
        `wrong VNC password from ${address}: viewer refused; from now on each wrong answer from ${address} waits ` +
          `${seconds(this.holds.firstMs)}, doubling up to ${seconds(this.holds.maxMs)}, and further ones are not logged`,
      );
    }
    return delay;
  }

  /** Forgets what has expired, then the oldest, until there is room for one more address. */
  private makeRoom(): void {
    if (this.addresses.size < this.maxAddresses) return;
    for (const address of [...this.addresses.keys()]) this.current(address);
    for (const address of this.addresses.keys()) {
      if (this.addresses.size < this.maxAddresses) break;
      this.addresses.delete(address);
    }
  }
}

/**
 * What one source is, out of `host:port` / `[v6]:port`: an IPv4 address (IPv4-mapped IPv6 as
 * plain IPv4), or an IPv6 address's /64, since one host commonly holds a whole /64 and would
 * otherwise start afresh from each of its addresses.
 */
export function addressOf(peer: string | undefined): string {
  if (!peer) return '?';
  const bracketed = /^\[(.*)\]:\d+$/.exec(peer);
  const host = (bracketed ? bracketed[1] : peer.replace(/:\d+$/, '')).replace(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/i, '$1');
  if (!host.includes(':')) return host;
  const groups = ipv6Groups(host.replace(/%.*$/, ''));
  return groups ? `${groups.slice(0, 4).join(':')}::/64` : host;
}

/** The eight groups of an IPv6 address (`::` expanded), or undefined when it is not one. */
function ipv6Groups(address: string): string[] | undefined {
  const halves = address.split('::');
  if (halves.length > 2) return undefined;
  const part = (text: string) => (text ? text.split(':') : []);
  const head = part(halves[0]);
  const tail = halves.length === 2 ? part(halves[1]) : [];
  const missing = 8 - head.length - tail.length;
  if (missing < 0 || (halves.length === 1 && missing !== 0)) return undefined;
  const groups = [...head, ...Array.from({ length: missing }, () => '0'), ...tail];
  return groups.every((g) => /^[0-9a-f]{1,4}$/i.test(g)) ? groups.map((g) => g.toLowerCase().replace(/^0+(?=.)/, '')) : undefined;
}

function seconds(ms: number): string {
  return `${Math.round(ms / 100) / 10} s`;
}
