/**
 * What `open`'s TUI types into its consoles (`p`, `K`, a broadcast with `b`): through the one
 * session each console already has, as any client of it is served (the hub's RFB server over the
 * shared screen, a client of the shared serial line), never a connection of its own to the VM, so
 * no viewer is kicked. A screen gets keys with `type`'s machinery (keysyms, or QEMU's key events
 * laid out as `us`, paced so none is lost), a serial line bytes with `type`'s default newline (CR).
 * One link per console, kept while it is used (a broadcast types key by key) and closed when idle.
 * Every action is one log line of the session (who, what, when; typed text only as its length).
 */
import type { Duplex } from 'node:stream';
import { VconsoleError } from '../../errors.js';
import { chordStrokes, parseChord } from '../../keys/chords.js';
import { DEFAULT_LAYOUT } from '../../keys/layouts/index.js';
import { serialBytes } from '../../keys/serial-keys.js';
import { keysymStrokes, scancodeStrokes } from '../../keys/typing.js';
import { sourceChain, type ConsoleSession, type SessionRegistry } from '../../proxy/index.js';
import type { RfbConsoleClient } from '../../rfb/index.js';
import { actionRecord, kindOf, readyClient, writeAll } from '../acting.js';
import { namingTarget } from '../command-io.js';
import { STROKE_INTERVAL_MS, sendPaced, sendStroke } from '../key-pacing.js';
import { NEWLINES } from '../type-flags.js';

const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? '' : 's'}`;

/** How long a console's link may take to be ready for keys. */
const LINK_TIMEOUT_MS = 30_000;
/** A link nobody typed through for this long is closed (a broadcast's next key opens it again). */
const IDLE_MS = 15_000;
/** How long a key of `K`'s menu is held down. */
const HOLD_MS = 100;

type Link = { kind: 'screen'; stream: Duplex; client: RfbConsoleClient } | { kind: 'serial'; stream: Duplex };

interface Held {
  link: Promise<Link>;
  /** The actions on this console, one after the other: keys keep their order. */
  queue: Promise<unknown>;
  idle?: NodeJS.Timeout;
  /** During a broadcast: what it was sent, for its one log line. */
  sent: { characters: number; keys: number };
}

/** What the inputs need of `open`'s run. */
interface InputHost {
  readonly registry: Pick<SessionRegistry, 'get'>;
  /** `open --view-only`: its consoles are watched, never typed into. */
  readonly viewOnly: boolean;
}

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** One link per console the TUI types into. */
export class ConsoleInputs {
  private readonly held = new Map<number, Held>();

  constructor(private readonly host: InputHost) {}

  /** Text into each console (`p`, a broadcast's typing); resolves with the notice, or nothing during a broadcast. */
  async paste(ids: readonly number[], text: string, broadcast = false): Promise<string | void> {
    const characters = [...text].length;
    const done = await this.onEach(ids, broadcast, (session, link, held) => {
      if (broadcast) held.sent.characters += characters;
      return this.typeInto(link, text);
    });
    if (!broadcast) return this.told(done, (how) => `typed ${characters} characters (${how})`);
  }

  /** A key chord by name into each console (`K`'s menu, a broadcast's Enter or arrows). */
  async sendKey(ids: readonly number[], name: string, broadcast = false): Promise<string | void> {
    const chord = parseChord(name);
    const done = await this.onEach(ids, broadcast, async (session, link, held) => {
      if (broadcast) held.sent.keys++;
      if (link.kind === 'serial') {
        await writeAll(link.stream, serialBytes(chord));
        return 'serial';
      }
      const { press, release } = chordStrokes(chord);
      press.forEach((stroke) => sendStroke(link.client, stroke));
      await pause(broadcast ? STROKE_INTERVAL_MS : HOLD_MS);
      release.forEach((stroke) => sendStroke(link.client, stroke));
      await link.client.idle();
      return link.client.supportsQemuKeys ? 'scancodes' : 'keysyms';
    });
    if (!broadcast) return this.told(done, (how) => `sent ${chord.text} (${how})`);
  }

  /** Esc ends a broadcast: one log line per console for all it was sent; the links close. */
  endBroadcast(ids: readonly number[]): string {
    for (const id of ids) {
      const session = this.host.registry.get(id);
      const held = this.held.get(id);
      if (session && held && (held.sent.characters > 0 || held.sent.keys > 0))
        session.log(
          'info',
          actionRecord(session.name, `broadcast: typed ${plural(held.sent.characters, 'character')} and ${plural(held.sent.keys, 'key')}`),
        );
      this.close(id);
    }
    return `broadcast to ${ids.length} consoles ended`;
  }

  /** Closes every link (the TUI quits). */
  closeAll(): void {
    for (const id of [...this.held.keys()]) this.close(id);
  }

  /** Runs `act` on each console's link in turn, queued behind what it was sent before; each one's log line unless a broadcast. */
  private async onEach(
    ids: readonly number[],
    broadcast: boolean,
    act: (session: ConsoleSession, link: Link, held: Held) => Promise<string>,
  ): Promise<Array<{ session: ConsoleSession; how: string }>> {
    if (this.host.viewOnly)
      throw new VconsoleError('open --view-only watches its consoles: nothing was sent', {
        hint: 'open them without --view-only to type into them',
      });
    const sessions = ids.flatMap((id) => this.host.registry.get(id) ?? []);
    if (sessions.length === 0) throw new VconsoleError('that console is gone');
    for (const session of sessions) {
      const refused = [...sourceChain(session.source)].map((source) => source.inputRefused?.()).find(Boolean);
      if (refused)
        throw new VconsoleError(`${session.name}: ${refused}: nothing was sent`, {
          hint: 'act through a vconsole that shares it with keys, or stop that one (vconsole ps lists it)',
        });
    }
    return Promise.all(
      sessions.map(async (session) => {
        const held = this.linkOf(session);
        const turn = held.queue.then(async () => act(session, await held.link, held));
        held.queue = turn.catch(() => undefined);
        try {
          return { session, how: await turn };
        } catch (err) {
          // A link that failed is not kept: the next key dials anew.
          this.close(session.id);
          throw namingTarget(session.name, err);
        }
      }),
    );
  }

  /** The notice for one action and each console's log line of it. */
  private told(done: Array<{ session: ConsoleSession; how: string }>, what: (how: string) => string): string {
    for (const { session, how } of done) session.log('info', actionRecord(session.name, what(how)));
    return done.map(({ session, how }) => `${session.name}: ${what(how)}`).join('; ');
  }

  private async typeInto(link: Link, text: string): Promise<string> {
    if (link.kind === 'serial') {
      await writeAll(link.stream, Buffer.from(text.replace(/\r\n?|\n/g, NEWLINES.cr), 'utf8'));
      return 'serial, newline cr';
    }
    const byScancode = link.client.supportsQemuKeys;
    const strokes = byScancode ? scancodeStrokes(text, DEFAULT_LAYOUT) : keysymStrokes(text);
    await sendPaced(link.client, strokes, STROKE_INTERVAL_MS);
    await link.client.idle();
    return byScancode ? `scancodes, ${DEFAULT_LAYOUT.name} layout` : 'keysyms';
  }

  /** The console's link, opened on first use; its idle timer starts over. */
  private linkOf(session: ConsoleSession): Held {
    let held = this.held.get(session.id);
    if (!held) {
      held = { link: openLink(session), queue: Promise.resolve(), sent: { characters: 0, keys: 0 } };
      this.held.set(session.id, held);
    }
    clearTimeout(held.idle);
    held.idle = setTimeout(() => this.close(session.id), IDLE_MS);
    held.idle.unref();
    return held;
  }

  private close(id: number): void {
    const held = this.held.get(id);
    if (!held) return;
    this.held.delete(id);
    clearTimeout(held.idle);
    // Closed once what was queued has left.
    void held.queue
      .then(() => held.link)
      .then(
        (link) => {
          if (link.kind === 'screen') link.client.close();
          link.stream.destroy();
        },
        () => undefined,
      );
  }
}

/**
 * A client of the session's own source: the hub serves it the shared screen (as another
 * vconsole of the user: no password asked), the shared line its bytes. What the console prints
 * to it is read and dropped, so it never holds a shared line back.
 */
async function openLink(session: ConsoleSession): Promise<Link> {
  const source = session.source;
  const kind = kindOf(source);
  const signal = AbortSignal.timeout(LINK_TIMEOUT_MS);
  const stream = await source.dial({ signal, log: (level, message) => session.log(level, message), preserveSession: true, joined: true });
  stream.on('error', () => undefined);
  if (kind === 'serial') {
    stream.resume();
    return { kind, stream };
  }
  try {
    return { kind, stream, client: (await readyClient(stream, undefined, signal)).client };
  } catch (err) {
    stream.destroy();
    throw err;
  }
}
