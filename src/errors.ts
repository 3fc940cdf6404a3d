import { clip, echoInput, terminalSafe } from './terminal-text.js';
import { maskUrlPaths } from './url-text.js';

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

/** Bad input from the user: exit code 2. */
export class UsageError extends VconsoleError {
  constructor(message: string, hint?: string) {
    super(message, { exitCode: 2, hint });
    this.name = 'UsageError';
  }
}

/**
 * One line for the user: the message and, when there is one, what to do. Safe to print: the
 * line holds no control character (names in it come from users and cloud APIs) and its
 * message part is capped, so a huge name cannot flood the terminal.
 */
export function describeError(err: unknown): string {
  if (err instanceof VconsoleError) return withHint(err.message, err.hint);
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
    default:
      return redactSecrets(err.message);
  }
}

/** True for TLS verification failures, so callers can suggest a CA or insecure flag. */
export function isTlsError(err: unknown): boolean {
  const code = (err as { code?: string } | undefined)?.code ?? '';
  return /CERT|SELF_SIGNED|TLS|SSL|UNABLE_TO_/.test(code);
}

const TOKEN_QUERY = /([?&](?:token|access_token|password|secret)=)[^&\s"']+/gi;
const BEARER = /(bearer\s+)[A-Za-z0-9._~+/=-]+/gi;
const URL_CREDENTIALS = /(\/\/)[^/@\s:]+:[^/@\s]+@/g;

/** Removes tokens (in queries and URL paths), passwords and URL credentials from text that may reach a log. */
export function redactSecrets(text: string): string {
  return maskUrlPaths(text.replace(TOKEN_QUERY, '$1***').replace(BEARER, '$1***').replace(URL_CREDENTIALS, '$1***@'));
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
