import type { Duplex } from 'node:stream';

/** What a source knows of its console besides its name (`UpstreamSource.facts`). */
export interface ConsoleFacts {
  /**
   * What kind of console it is (a kind's id, src/console-kinds), for display, identity and the
   * wrappers that ask the kind; may be settled by the pre-flight. The data path carries bytes
   * alike whatever it says.
   */
  consoleType?: string;
  /**
   * True while the pre-flight may still change consoleType (`auto` on a provider that looks at
   * the VM): what it says until then is a guess, not worth launching a viewer for.
   */
  consoleTypeTentative?: boolean;
  /**
   * True when that guess is what nearly every VM of the provider has (KubeVirt's VNC display:
   * a VMI has one unless it turns its graphics off), so a viewer for it is worth launching
   * while the pre-flight runs. If the pre-flight settles another type, `open` stops that viewer
   * (ListenOptions.onTypeChanged) and then the session closes the client that came for the
   * guess (ClientUpstreams.open).
   */
  consoleTypeGuessHolds?: boolean;
  /**
   * True when the far end keeps one console session per VM (KubeVirt's): a new client
   * replaces the session of an older one, which is worth telling the user.
   */
  exclusive?: boolean;
  /**
   * True when the console lives in this process (the demo's VMs): no other vconsole can reach
   * it, so it is neither held for them nor joined (src/holding).
   */
  inProcess?: boolean;
  /**
   * What makes two sources the same console, compared and never printed (it may hold a
   * token). Without it: the provider, the name and the console type, read when compared, so
   * a name that becomes exact during the pre-flight (a KubeVirt namespace) is compared exact.
   */
  identity?: string;
  /**
   * True when its VNC server asks for a password the provider learns anew at each dial
   * (Proxmox VE's one-time ticket), carried on the dialled stream (src/streams/console-password.ts):
   * only vconsole's own RFB client can answer it, so such a VNC console is always served through the hub.
   */
  consolePasswordPerDial?: boolean;
}

/**
 * Where a session's bytes come from. Providers (src/targets) implement it; the data path
 * only ever sees this interface.
 */
export interface UpstreamSource {
  /** What the user sees for this console, e.g. `default/vm-a`. Never holds a secret. */
  readonly name: string;
  /** Provider id for display, e.g. `kubevirt`. */
  readonly provider: string;
  /**
   * What the source knows of its console, as one value: a wrapper passes its inner source's on
   * whole (WrappedSource), and --via carries it as one field, so a new fact is its declaration
   * here, the provider that sets it and the code that reads it. The pre-flight may change it
   * (`auto` settles the type; KubeVirt completes the name its identity holds): read it when needed.
   */
  readonly facts: ConsoleFacts;
  /**
   * Pre-flight run before the session listens (the VM exists, runs, has a display). It may
   * complete the name (a bare KubeVirt name gets the kubeconfig context's namespace).
   * Errors say what is wrong with the console, without its name: the session's owner adds it.
   * A wrapper that opens a shared connection in its pre-flight calls `admit` (the session's
   * one-console-one-session check; it throws the refusal) once its inner pre-flight made the
   * name exact and before it dials: a duplicate refused then never took the console from the
   * session it duplicates (KubeVirt keeps one VNC session per VM). Wrappers pass it on.
   */
  check?(signal: AbortSignal, admit?: () => void): Promise<void>;
  /**
   * True when a connection from `peer` (`host:port`) is turned away unserved right now (its
   * address is held back after wrong viewer passwords): the session counts such connections
   * in one line per burst instead of logging each. A wrapper need not pass it on: the session
   * asks every source of the chain.
   */
  turnsAway?(peer: string): boolean;
  /**
   * Why what is typed into this console goes nowhere: it was joined from another vconsole that
   * holds it view-only (`--view-only`); undefined when it takes input. An action (the TUI's
   * paste, keys, broadcast) asks every source of the chain first, and sends nothing if one says.
   */
  inputRefused?(): string | undefined;
  /**
   * The session is closing: ends what this source serves each client as its protocol ends it (a
   * TLS close_notify, then the end of the stream), so that the relays pass that end on and close
   * the clients' connections cleanly; the session then gives them CLIENT_FAREWELL_GRACE_MS before
   * it cuts what is left. A wrapper need not pass it on: the session asks every source of the chain.
   */
  endClients?(): void;
  /** Opens a fresh upstream byte stream for one client connection. Errors as for check. */
  dial(context: DialContext): Promise<Duplex>;
  /**
   * Called once, when the session that uses this source closes: frees what the source
   * started for it (the demo console's in-process server).
   */
  release?(): Promise<void>;
}

export interface DialContext {
  /** Aborted when the client goes away or the session closes while dialling. */
  signal: AbortSignal;
  /** Reports a line worth logging (never a secret). */
  log(level: LogLevel, message: string): void;
  /** The client's address (`host:port`), for log lines about it. */
  peer?: string;
  /**
   * Do not take the console from another client (KubeVirt `preserveSession`): a shared
   * console redialling after someone else took it over waits instead of kicking them back.
   */
  preserveSession?: boolean;
  /**
   * This dial takes back a console that dropped under a line following it (a serial line
   * reconnecting on its own), not one a user just asked for. `ending`: how the console ended
   * (the stream's error; none when it closed plainly). A console that keeps one session per VM
   * may refuse it (ConsoleRefusedError) when another client took that session, rather than
   * take it back from them.
   */
  reconnect?: { ending?: Error };
  /**
   * The client is another vconsole of this user, joined through the user-only socket of a
   * console held here (src/holding): a wrapper that asks clients for a password lets it in.
   */
  joined?: boolean;
  /**
   * false: the client wants only what the console prints from now on, not what a shared serial
   * line already holds (`wait --since now`); a line replays its scrollback to every other dial.
   */
  replay?: boolean;
}

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

type SessionState = 'idle' | 'connecting' | 'listening' | 'error' | 'closed';

/** A plain-data view of a session, what the TUI and the log lines render. */
export interface SessionSnapshot {
  id: number;
  name: string;
  provider: string;
  state: SessionState;
  address?: string;
  port?: number;
  /** Clients connected now. */
  clients: number;
  /** Clients accepted since the session started. */
  totalClients: number;
  /** Bytes from the VM to viewers (downstream). */
  bytesIn: number;
  /** Bytes from viewers to the VM (upstream). */
  bytesOut: number;
  startedAt?: number;
  lastError?: string;
  /** The source's console type (a kind's id, src/console-kinds), once known. */
  consoleType?: string;
}

export interface SessionLogEntry {
  time: number;
  sessionId: number;
  name: string;
  level: LogLevel;
  message: string;
}

export interface ListenOptions {
  host: string;
  /** 0 picks a free port. */
  port: number;
  /**
   * Listen before the pre-flight and tell the address here, so a viewer can start while the
   * pre-flight runs (`open`); the pre-flight starts once the returned promise settles (the
   * viewer is spawned: nothing else first). A client that connects meanwhile waits for the
   * pre-flight; when it fails, the listener closes with its clients, as any failed start.
   * Without it the session listens once the pre-flight has passed, so a printed address is
   * ready to use (`proxy`).
   */
  onBound?(bound: BoundAddress): Promise<void> | void;
  /**
   * With onBound: called before start() resolves when the pre-flight settled another console
   * type than the session had when it bound (`auto`), with the new one: what was started at
   * the address for the old type (the viewer) is stopped here. Until the returned promise
   * settles, every client is closed unserved: one that came for the old type must not get
   * the new one (KubeVirt's serial console keeps one session, a new client takes it).
   */
  onTypeChanged?(consoleType: string | undefined): Promise<void> | void;
}

export interface BoundAddress {
  address: string;
  port: number;
}
