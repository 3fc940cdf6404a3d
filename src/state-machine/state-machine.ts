// One state held with checked transitions (docs/ARCHITECTURE.md, "state"): a discriminated
// union whose `kind` names the state and whose other fields are what only that state has (the
// hub's connection while it is live, a session's listener while it listens), and a table of the
// moves each kind may make. A move the table does not list is a bug, refused loudly: it throws
// rather than leave a holder in a state no code expects.
//
// A leaf: it imports nothing, of vconsole or of Node.

/** A state of a discriminated union: `kind` names it; its other fields belong to it alone. */
interface State {
  readonly kind: string;
}

/**
 * For each kind, the kinds it may move to. Staying in a kind (new fields, same kind) is a move
 * too, allowed only where listed; a kind listing none is final.
 */
export type Transitions<S extends State> = { readonly [K in S['kind']]: readonly S['kind'][] };

/** The state of `kind` out of the union `S`. */
type StateOf<S extends State, K extends S['kind']> = Extract<S, { readonly kind: K }>;

/** A move the table does not allow: a bug in its holder, not a condition to handle. */
export class IllegalTransitionError extends Error {
  constructor(
    readonly machine: string,
    readonly from: string,
    readonly to: string,
  ) {
    super(`${machine}: no move from ${from} to ${to}`);
    this.name = 'IllegalTransitionError';
  }
}

/** Holds one state of `S`; every change goes through `to()`, checked against the table. */
export class StateMachine<S extends State> {
  private state: S;

  /** `name` says whose state it is in the error of an illegal move. */
  constructor(
    readonly name: string,
    private readonly transitions: Transitions<S>,
    initial: S,
  ) {
    this.state = initial;
  }

  get current(): S {
    return this.state;
  }

  get kind(): S['kind'] {
    return this.state.kind;
  }

  /** The current state when it is of `kind`, else undefined. */
  when<K extends S['kind']>(kind: K): StateOf<S, K> | undefined {
    return this.state.kind === kind ? (this.state as StateOf<S, K>) : undefined;
  }

  /** Whether the table lets the current state move to `kind`. */
  can(kind: S['kind']): boolean {
    return (this.transitions[this.state.kind as S['kind']] as readonly string[]).includes(kind);
  }

  /** Moves to `next`; throws IllegalTransitionError, and stays, when the table has no such move. Returns the state left. */
  to(next: S): S {
    if (!this.can(next.kind)) throw new IllegalTransitionError(this.name, this.state.kind, next.kind);
    const left = this.state;
    this.state = next;
    return left;
  }
}
