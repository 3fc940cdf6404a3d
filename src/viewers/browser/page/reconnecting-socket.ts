// The websocket life of both console pages: connect to this page's own `ws` path, reconnect with
// back-off when the console drops, and stop for good when vconsole says the session is closed.
import './page.css';
// The one back-off (a leaf, nothing of Node): esbuild bundles it into the page.
import { Backoff } from '../../../retry/backoff.js';

/** Close codes from vconsole that end the page for good; the close reason says why. Mirrors page-protocol.ts. */
const FINAL_CLOSE_MIN = 4000;
const FINAL_CLOSE_MAX = 4099;
/** A connection that lasted this long was a working one: the next drop starts the back-off over. */
const STABLE_MS = 3000;
const FIRST_RETRY_MS = 500;
const MAX_RETRY_MS = 10_000;

type PageState = 'connecting' | 'connected' | 'reconnecting' | 'closed';

/** Shows the state in the toolbar and as `data-state` on <body> (what the tests wait for). */
function showState(state: PageState, text: string): void {
  document.body.dataset.state = state;
  const label = document.getElementById('state');
  if (label) label.textContent = text;
  const banner = document.getElementById('closed-banner');
  if (banner && state === 'closed') banner.textContent = text;
}

interface ConsoleLink {
  /** Takes over a new websocket (still connecting); `connected()` once the console answers. */
  attach(socket: WebSocket, connected: () => void): void;
}

/** Connects `link` to the console now and again after every drop, until the session is closed. */
export function keepConnected(link: ConsoleLink): void {
  const url = new URL('ws', window.location.href);
  url.protocol = window.location.protocol === 'https:' ? 'wss:' : 'ws:';
  const retries = new Backoff({ firstMs: FIRST_RETRY_MS, maxMs: MAX_RETRY_MS });
  const connect = () => {
    const socket = new WebSocket(url);
    socket.binaryType = 'arraybuffer';
    let connectedAt: number | undefined;
    const first = retries.failures === 0;
    showState(first ? 'connecting' : 'reconnecting', first ? 'connecting…' : 'reconnecting…');
    socket.addEventListener('close', (event) => {
      if (event.code >= FINAL_CLOSE_MIN && event.code <= FINAL_CLOSE_MAX) {
        showState('closed', event.reason || 'session closed');
        return;
      }
      void pageStillServed().then((served) => {
        // Closed while this page was not connected: its address is refused now (403).
        if (served === false) return showState('closed', 'session closed');
        if (connectedAt !== undefined && Date.now() - connectedAt >= STABLE_MS) retries.reset();
        const delay = retries.next();
        const why = served === undefined ? 'vconsole is not reachable' : 'console dropped';
        showState('reconnecting', `${why}; reconnecting in ${Math.ceil(delay / 1000)} s`);
        window.setTimeout(connect, delay);
      });
    });
    link.attach(socket, () => {
      connectedAt = Date.now();
      showState('connected', 'connected');
    });
  };
  connect();
}

/** Whether vconsole still serves this page: false once it refuses it, undefined when it does not answer. */
async function pageStillServed(): Promise<boolean | undefined> {
  try {
    const answer = await fetch(window.location.href, { method: 'HEAD', cache: 'no-store' });
    return answer.status !== 403;
  } catch {
    return undefined;
  }
}

/** The toolbar's fullscreen button. */
export function fullscreenButton(): HTMLButtonElement {
  return button('Fullscreen', () => {
    if (document.fullscreenElement) void document.exitFullscreen();
    else void document.documentElement.requestFullscreen();
  });
}

export function button(label: string, onClick: () => void): HTMLButtonElement {
  const element = document.createElement('button');
  element.type = 'button';
  element.textContent = label;
  element.addEventListener('click', onClick);
  return element;
}

export function toolbar(): HTMLElement {
  const element = document.getElementById('toolbar');
  if (!element) throw new Error('the page has no toolbar');
  return element;
}

export function consoleArea(): HTMLElement {
  const element = document.getElementById('console');
  if (!element) throw new Error('the page has no console area');
  return element;
}
