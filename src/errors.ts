import { clip, echoInput, terminalSafe } from './text/terminal-text.js';
import { maskUrlPaths } from './text/url-text.js';

/**
 * Errors are values with a user-facing message: the CLI edge turns them into one
 * line on stderr and an exit code. `cause` keeps the underlying error for --verbose.
 */
export class VconsoleError extends Error {
  /** 1: runtime failure, 2: usage error. */
  readonly exitCode: 1 | 2;
  /** What the user can do about it, appended to the message line. */
  readonly hint?: string;

  constructor(message: string, options: { exitCode?: 1 | 2; hint?: string; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'VconsoleError';
    this.exitCode = options.exitCode ?? 1;
    this.hint = options.hint;
  }
}

/**
 * A console's connection ended from the far side (the console, its proxy or the network): the
 * message says how, in words, so whoever held the stream can tell the user at once.
 */
export class ConsoleEndedError extends VconsoleError {
  /** It ended right after the upgrade with no byte and no close frame: the proxy refused the console. */
  readonly refused: boolean;

  constructor(message: string, hint?: string, refused = false) {
    super(message, { hint });
    this.name = 'ConsoleEndedError';
    this.refused = refused;
  }
}

/**
 * The console's proxy refused this console (a wrong or expired token): dialling the same way
 * again gets the same answer, so a line that waits for its console gives up at once.
 */
export class ConsoleRefusedError extends VconsoleError {}

/** Bad input from the user: exit code 2. */
export class UsageError extends VconsoleError {
  constructor(message: string, hint?: string) {
    super(message, { exitCode: 2, hint });
    this.name = 'UsageError';
  }
}

/**
 * One line for the user: the message and, when there is one, what to do. Safe to print: the
 * line holds no control character (names in it come from users and cloud APIs), no query
 * token, bearer token or URL credentials (quoted by a library or an API) and
 * its message part is capped, so a huge name cannot flood the terminal.
 */
export function describeError(err: unknown): string {
  if (err instanceof VconsoleError) return withHint(redactCredentials(err.message), err.hint ? redactCredentials(err.hint) : undefined);
  if (err instanceof Error) return printableMessage(describeSystemError(err));
  return printableMessage(String(err));
}

/** The one line vconsole prints for an error, wherever it prints one. */
export function errorLine(err: unknown): string {
  return `vconsole: ${describeError(err)}`;
}

/**
 * What --verbose adds under the error line: the stack of the error and of its cause, secrets
 * redacted, control characters shown, each message capped as describeError caps it.
 */
export function errorStackLines(err: unknown): string[] {
  if (!(err instanceof Error) || !err.stack) return [];
  const lines = stackLines(err.stack);
  if (err.cause instanceof Error && err.cause.stack) {
    const [head, ...frames] = stackLines(err.cause.stack);
    lines.push(`caused by: ${head}`, ...frames);
  }
  return lines;
}

/** Longest message describeError prints before the hint; longer ones are cut with `...`. */
export const MESSAGE_MAX_CHARS = 1000;

/**
 * `message; hint`. A message that ends a sentence or a clause (`.`, `!`, `?`, `:` or `;`)
 * loses that mark first, so the line never reads `present.; the VM ...`; an ellipsis that
 * marks a cut stays.
 */
export function withHint(message: string, hint?: string): string {
  const text = printableMessage(message);
  if (!hint) return text;
  return `${withoutClosingMark(text)}; ${printableMessage(hint)}`;
}

function withoutClosingMark(text: string): string {
  const trimmed = text.trimEnd();
  if (trimmed.endsWith('...') || trimmed.endsWith('\u2026')) return trimmed;
  return trimmed.replace(/[.!?:;]+$/, '');
}

function printableMessage(text: string): string {
  return clip(terminalSafe(text), MESSAGE_MAX_CHARS);
}

/** A stack as lines: its header (the message, which may span lines) as one, then each frame. */
function stackLines(stack: string): string[] {
  const framesAt = stack.search(/\n\s+at /);
  const head = framesAt === -1 ? stack : stack.slice(0, framesAt);
  const frames = framesAt === -1 ? [] : stack.slice(framesAt + 1).split('\n');
  return [printableMessage(redactSecrets(head)), ...frames.map((frame) => terminalSafe(redactSecrets(frame)))];
}

/** Node's socket and TLS errors in words an operator understands. */
export function describeSystemError(err: Error & { code?: string; hostname?: string; address?: string; port?: number }): string {
  const where = err.hostname ?? (err.address ? `${err.address}${err.port ? `:${err.port}` : ''}` : undefined);
  switch (err.code) {
    case 'ECONNREFUSED':
      return `connection refused${where ? ` by ${where}` : ''}`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `cannot resolve host ${where ?? ''}`.trim();
    case 'ETIMEDOUT':
      return `connection timed out${where ? ` to ${where}` : ''}`;
    case 'EADDRINUSE':
      return `local address ${where ?? ''} is already in use: pick another --port, or omit --port for a free one`;
    case 'EADDRNOTAVAIL':
      return `cannot listen on ${where ?? 'that address'}: it is not an address of this machine`;
    case 'ECONNRESET':
      return 'connection reset by peer';
    case 'ENOENT':
      return `no such file or socket${err.address ? ` ${err.address}` : ''}`;
    case 'EACCES':
      return `permission denied${where ? ` (${where})` : ''}`;
    case 'DEPTH_ZERO_SELF_SIGNED_CERT':
    case 'SELF_SIGNED_CERT_IN_CHAIN':
    case 'UNABLE_TO_VERIFY_LEAF_SIGNATURE':
    case 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY':
    case 'UNABLE_TO_GET_ISSUER_CERT':
    case 'CERT_HAS_EXPIRED':
    case 'ERR_TLS_CERT_ALTNAME_INVALID':
      return `TLS certificate verification failed (${err.code}): ${redactSecrets(err.message)}`;
    case 'EPIPE':
    case 'ERR_STREAM_DESTROYED':
    case 'ERR_STREAM_WRITE_AFTER_END':
      return 'the connection had already closed';
    default:
      if (err.code?.startsWith('WS_ERR_')) return `the other end broke the websocket protocol (${redactSecrets(err.message)})`;
      return libraryWords(err.message) ?? redactSecrets(err.message);
  }
}

/** Messages of `ws` that carry no code, in vconsole's words; undefined for any other message. */
function libraryWords(message: string): string | undefined {
  if (/^WebSocket is not open: readyState [23]\b/.test(message)) return 'the console had already closed';
  if (/^WebSocket is not open: readyState 0\b/.test(message)) return 'the console was not open yet';
  if (message === 'Opening handshake has timed out') return 'the websocket upgrade timed out';
  if (message === 'socket hang up') return 'the server hung up before answering';
  if (
    /^Server sent (no|an invalid) subprotocol/.test(message) ||
    message === 'Invalid Sec-WebSocket-Accept header' ||
    message === 'Missing Sec-WebSocket-Accept header'
  ) {
    return 'the server did not answer as a websocket console proxy';
  }
  if (message === 'WebSocket was closed before the connection was established') return 'the connection closed before the websocket opened';
  return undefined;
}

/** True for TLS verification failures, so callers can suggest a CA or insecure flag. */
export function isTlsError(err: unknown): boolean {
  const code = (err as { code?: string } | undefined)?.code ?? '';
  return /CERT|SELF_SIGNED|TLS|SSL|UNABLE_TO_/.test(code);
}

/** A query's secret value, up to the next parameter, space, quote, or the `,` or `)` of a sentence. */
const TOKEN_QUERY = /([?&](?:token|access_token|password|secret)=)([^&\s"',)]+)/gi;
/** What vconsole's own hints write where a token goes (`?token=TOKEN`, `?token=…`): no secret to redact. */
const TOKEN_PLACEHOLDER = /^(?:TOKEN|T|SECRET|PASSWORD|…)$/;
const BEARER = /(bearer\s+)[A-Za-z0-9._~+/=-]+/gi;
const URL_CREDENTIALS = /(\/\/)[^/@\s:]+:[^/@\s]+@/g;

/** Removes tokens (in queries and URL paths), passwords and URL credentials from text that may reach a log. */
export function redactSecrets(text: string): string {
  return maskUrlPaths(redactCredentials(text));
}

/**
 * Removes query tokens, bearer tokens and URL credentials, leaving URL paths as they are: for
 * vconsole's own messages, whose paths (a socket's, a file's) are the user's and say what failed.
 */
function redactCredentials(text: string): string {
  return text
    .replace(TOKEN_QUERY, (match: string, key: string, value: string) => (TOKEN_PLACEHOLDER.test(value) ? match : `${key}***`))
    .replace(BEARER, '$1***')
    .replace(URL_CREDENTIALS, '$1***@');
}

/** What the user typed as a target, with query and fragment (console tokens) cut off, for messages. */
export function safeTargetText(text: string): string {
  const cut = text.search(/[?#]/);
  return redactSecrets(cut === -1 ? text : `${text.slice(0, cut)}?…`);
}

/** A target as an error message echoes it: secrets cut as safeTargetText cuts them, then capped and printable. */
export function echoTarget(text: string): string {
  return echoInput(safeTargetText(text));
}

/** How a console's websocket ended, as the stream saw it. */
export interface WebSocketEnding {
  /** The close code (1006: the connection went without a close frame). */
  code: number;
  /** The close frame's reason, when it had one. */
  reason: string;
  /** The socket under it failed with this code (ECONNRESET ...). */
  socketErrorCode?: string;
  /** Nothing came from the console between the upgrade and the close, and the close came at once. */
  soonAfterUpgrade: boolean;
  /** The reason as it may be shown (a proxy may quote the token it refused); the ending is told from the reason as said. */
  shownReason?: (reason: string) => string;
}

/** Console proxies (websockify, nova-*proxy) close with this reason when the VM's end of the console closes. */
const TARGET_CLOSED = /^target closed$/i;

/**
 * What the user reads when a console's websocket ended under them: the close code's meaning
 * and the reason when there is one, e.g. `the console closed: Target closed (the VM stopped?)`.
 * A close without a close frame right after the upgrade, no byte before it, is a refusal: Nova's
 * proxies check the token after the upgrade and hang up that way; a close frame's reason speaks
 * for itself (websockify: 1011 "Failed to connect to downstream server").
 */
export function describeWebSocketEnding(ending: WebSocketEnding): ConsoleEndedError {
  const reason = printableMessage(ending.reason.trim()).slice(0, 123);
  const shown = ending.shownReason ? ending.shownReason(reason) : reason;
  const because = shown ? `: ${shown}` : '';
  if (ending.soonAfterUpgrade && (ending.code === 1006 || ending.code === 1005) && !ending.socketErrorCode) {
    return new ConsoleEndedError(
      'the console was refused right after the upgrade',
      'the token is wrong or expired: get a fresh console URL',
      true,
    );
  }
  switch (ending.code) {
    case 1000:
      return new ConsoleEndedError(`the console closed${because}${!reason || TARGET_CLOSED.test(reason) ? ' (the VM stopped?)' : ''}`);
    case 1001:
      return new ConsoleEndedError(`the console proxy went away${because}`, 'it is restarting or shutting down: try again in a moment');
    case 1005:
      return new ConsoleEndedError('the console closed (the VM stopped?)');
    case 1006:
      if (ending.socketErrorCode === 'ECONNRESET')
        return new ConsoleEndedError("the console's connection was reset", 'the console proxy or the network dropped it');
      return new ConsoleEndedError("the console's connection dropped without a close frame", 'the console proxy or the network went away');
    case 1008:
      return new ConsoleEndedError(
        `the console proxy refused the session${because}`,
        'the token may be wrong or expired: get a fresh console URL',
      );
    case 1011:
      if (/failed to connect to downstream/i.test(reason))
        return new ConsoleEndedError(`the console proxy could not reach the VM's console${because}`, 'is the VM running?');
      return new ConsoleEndedError(`the console proxy failed${because}`, 'see its log');
    case 1012:
    case 1013:
      return new ConsoleEndedError(`the console proxy is overloaded or restarting${because}`, 'try again in a moment');
    case 1014:
      return new ConsoleEndedError(`the console proxy could not reach the console${because}`, "the VM's host may be down");
    default:
      return new ConsoleEndedError(`the console closed the websocket with code ${ending.code}${because}`);
  }
}
