// The serial page: xterm.js on the websocket vconsole bridges to the session's port, raw bytes
// both ways, one terminal for the page's life (reconnects continue in it).
import { Terminal } from '@xterm/xterm';
import '@xterm/xterm/css/xterm.css';
import { consoleArea, fullscreenButton, keepConnected, toolbar } from './reconnecting-socket.js';

const area = consoleArea();
const fontSize = 15;
const fontFamily = 'DejaVu Sans Mono, Menlo, Consolas, monospace';
const terminal = new Terminal({ fontSize, fontFamily, cursorBlink: true, scrollback: 5000 });
terminal.open(area);
toolbar().append(fullscreenButton());

let current: WebSocket | undefined;
const encoder = new TextEncoder();
const send = (bytes: Uint8Array) => {
  if (current?.readyState === WebSocket.OPEN) current.send(bytes);
};
terminal.onData((text) => send(encoder.encode(text)));
// Mouse reports and other non-text input come as one character per byte.
terminal.onBinary((text) => send(Uint8Array.from(text, (ch) => ch.charCodeAt(0) & 0xff)));

/** The size of one character cell in the terminal's font, measured once. */
function cellSize(): { width: number; height: number } {
  const probe = document.createElement('span');
  probe.style.cssText = `position:absolute;visibility:hidden;white-space:pre;font-size:${fontSize}px;font-family:${fontFamily};line-height:normal`;
  probe.textContent = 'W'.repeat(64);
  document.body.append(probe);
  const box = probe.getBoundingClientRect();
  probe.remove();
  return { width: box.width / 64, height: box.height };
}
const cell = cellSize();
/** As many columns and rows as the window holds (a serial line has no size of its own to follow). */
function fit(): void {
  const cols = Math.max(20, Math.floor((area.clientWidth - 16) / cell.width));
  const rows = Math.max(5, Math.floor(area.clientHeight / cell.height));
  if (cols !== terminal.cols || rows !== terminal.rows) terminal.resize(cols, rows);
}
new ResizeObserver(fit).observe(area);
fit();

keepConnected({
  attach(socket, connected) {
    current = socket;
    socket.addEventListener('open', () => {
      connected();
      terminal.focus();
    });
    socket.addEventListener('message', (event) => {
      if (event.data instanceof ArrayBuffer) terminal.write(new Uint8Array(event.data));
    });
  },
});
