/**
 * One side of an ExtendedClipboard conversation, the same for vconsole's server (towards a
 * viewer) and its client (towards a console): it remembers what the peer can do (its caps) and
 * the text this side last offered, and answers the peer's requests, peeks and notifications.
 * Text for the peer goes as notify then provide on request when the peer takes notify, as a
 * provide when it takes only that (within the size its caps gave), and through `legacy` (plain
 * Latin-1 cut text) otherwise.
 */
import {
  CLIPBOARD_NOTIFY,
  CLIPBOARD_PROVIDE,
  clipboardAction,
  clipboardCaps,
  clipboardProvide,
  clipboardTextBytes,
  parseClipboardMessage,
  peerTakes,
} from './extended-clipboard.js';

interface ClipboardExchangeOptions {
  /** 3 (ServerCutText) on a server, 6 (ClientCutText) on a client. */
  messageType: 3 | 6;
  /** The largest text taken from the peer, and offered in the caps. */
  maxText: number;
  write(message: Buffer): void;
  /** Text the peer provided. */
  received(text: string): void;
}

export class ClipboardExchange {
  /** The peer's caps flags, once it sent them. */
  private peerFlags: number | undefined;
  /** The largest text its caps take unasked (a provide without its request). */
  private peerMaxText = 0;
  /** What this side offers: the last text it was given to pass on. */
  private offered: string | undefined;
  /** Its provide message, compressed once however often the peer asks. */
  private provideMessage: Buffer | undefined;

  constructor(private readonly options: ClipboardExchangeOptions) {}

  /** True once the peer sent its caps: text goes in the extended format from then on. */
  get extended(): boolean {
    return this.peerFlags !== undefined;
  }

  /** This side's caps (a server sends them when the client asks for the extension). */
  announce(): void {
    this.options.write(clipboardCaps(this.options.messageType, this.options.maxText));
  }

  /** Offers `text` to the peer; false when the peer speaks no extended clipboard (the caller sends it plain). */
  offer(text: string): boolean {
    const flags = this.peerFlags;
    if (flags === undefined) return false;
    if (!peerTakes(flags, CLIPBOARD_NOTIFY) && !peerTakes(flags, CLIPBOARD_PROVIDE)) return false;
    this.offered = text;
    this.provideMessage = undefined;
    if (peerTakes(flags, CLIPBOARD_NOTIFY)) this.options.write(clipboardAction(this.options.messageType, 'notify', true));
    // Unasked, a provide stays within the size the peer's caps gave (as TigerVNC's server does): larger text is not sent.
    else if (clipboardTextBytes(text).length <= this.peerMaxText) this.options.write(this.provide());
    return true;
  }

  private provide(): Buffer {
    this.provideMessage ??= clipboardProvide(this.options.messageType, this.offered ?? '');
    return this.provideMessage;
  }

  /** Handles the payload of a cut-text message with a negative length. */
  receive(payload: Buffer): void {
    const message = parseClipboardMessage(payload, this.options.maxText);
    if (!message) return;
    const type = this.options.messageType;
    switch (message.action) {
      case 'caps': {
        const first = this.peerFlags === undefined;
        this.peerFlags = message.flags;
        this.peerMaxText = message.maxText;
        // A client answers the server's caps with its own; a server's answer was its first word.
        if (first && type === 6) this.announce();
        break;
      }
      case 'request':
        if (message.text && this.offered !== undefined) this.options.write(this.provide());
        break;
      case 'peek':
        this.options.write(clipboardAction(type, 'notify', this.offered !== undefined));
        break;
      case 'notify':
        // New text on the peer's side: fetch it, to pass on.
        if (message.text) this.options.write(clipboardAction(type, 'request', true));
        break;
      case 'provide':
        if (message.text !== undefined) this.options.received(message.text);
        break;
    }
  }
}
