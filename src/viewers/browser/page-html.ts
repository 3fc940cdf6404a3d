import type { PageConsoleType } from './page-protocol.js';

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => HTML_ESCAPES[ch]);
}

/**
 * The page of one session: the VM's name as its title, the toolbar and console area the page
 * script fills. Its script and style are relative to the page's own (secret) directory.
 */
export function consolePageHtml(title: string, consoleType: PageConsoleType): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(title)}</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${consoleType}.css">
<script type="module" src="${consoleType}.js"></script>
</head>
<body data-console="${consoleType}" data-state="connecting">
<div id="toolbar"><span id="state">connecting…</span></div>
<div id="console"><div id="closed-banner"></div></div>
</body>
</html>
`;
}

/** What the page may load and reach: its own scripts and styles, and its own server's websocket. */
export function contentSecurityPolicy(origin: string): string {
  const websocketOrigin = origin.replace(/^http/, 'ws');
  return [
    "default-src 'none'",
    "script-src 'self'",
    // xterm.js and noVNC set styles from script (xterm adds a <style> for its theme).
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    `connect-src 'self' ${websocketOrigin}`,
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}
