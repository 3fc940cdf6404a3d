// Secrets (passwords, API tokens, tickets, console tokens) never leave vconsole in a message:
// every provider scrubs its errors here, of the secrets it knows and of what looks like one
// (query tokens, URL credentials, bearer tokens, opaque URL path segments: redactSecrets).
import { UsageError, VconsoleError, describeError, redactSecrets } from './errors.js';

/** Shorter strings are not scrubbed: `***` everywhere a two-letter password appears would hide the message, not the secret. */
const SHORTEST_SECRET = 4;

/** How many secrets a `SecretSet` keeps when none is said: enough for every error still in flight. */
const SECRETS_KEPT = 64;

/** The ways a secret is spelled in text: as it is, percent-encoded, form-encoded (a query), inside a JSON string. */
function spellings(secret: string): string[] {
  const form = new URLSearchParams({ s: secret }).toString().slice(2);
  return [secret, encodeURIComponent(secret), form, JSON.stringify(secret).slice(1, -1)];
}

/** `text` with what looks like a secret redacted and each known secret, in each spelling, replaced by `***`. */
export function scrubText(text: string, secrets: Iterable<string | undefined>): string {
  const forms = new Set<string>();
  for (const secret of secrets) if (secret && secret.length >= SHORTEST_SECRET) for (const form of spellings(secret)) forms.add(form);
  // Longest first: a secret that holds another is replaced whole.
  let out = text;
  for (const form of [...forms].sort((a, b) => b.length - a.length)) out = out.split(form).join('***');
  return redactSecrets(out);
}

/**
 * The error rebuilt from scrubbed text: its message and hint, and a cause holding only the
 * scrubbed description and the code of the original (so no request, URL or header rides along
 * to --verbose). Its class, exit code, and its flags and numbers (`refused`, `status`) are kept:
 * the hub tells a refused console (ConsoleRefusedError) from a dropped one.
 */
export function scrubError(err: unknown, secrets: Iterable<string | undefined>): VconsoleError {
  const known = [...secrets].filter((s): s is string => Boolean(s));
  const message = scrubText(err instanceof VconsoleError ? err.message : describeError(err), known);
  const hint = err instanceof VconsoleError && err.hint ? scrubText(err.hint, known) : undefined;
  const rebuilt =
    err instanceof UsageError
      ? new UsageError(message, hint)
      : new VconsoleError(message, { hint, cause: causeOf(err, known), exitCode: err instanceof VconsoleError ? err.exitCode : 1 });
  if (!(err instanceof VconsoleError)) return rebuilt;
  for (const [key, value] of Object.entries(err))
    if (typeof value === 'boolean' || typeof value === 'number') Object.assign(rebuilt, { [key]: value });
  rebuilt.name = err.name;
  return Object.setPrototypeOf(rebuilt, Object.getPrototypeOf(err) as object) as VconsoleError;
}

/** What --verbose shows under a scrubbed error: the words of its cause (or its own), the code of either. */
function causeOf(err: unknown, secrets: readonly string[]): Error {
  const inner = (err as { cause?: unknown } | undefined)?.cause ?? err;
  return Object.assign(scrubbedCause(inner, secrets), { code: codeOf(err) ?? codeOf(inner) });
}

/** An error of `err`'s words, scrubbed, with its code or its cause's (ECONNRESET, a TLS code): nothing else of it. */
export function scrubbedCause(err: unknown, secrets: Iterable<string | undefined> = []): Error {
  return Object.assign(new Error(scrubText(describeError(err), secrets)), { code: codeOf(err) });
}

function codeOf(err: unknown): string | undefined {
  const failure = err as { code?: unknown; cause?: { code?: unknown } } | undefined;
  if (typeof failure?.code === 'string') return failure.code;
  return typeof failure?.cause?.code === 'string' ? failure.cause.code : undefined;
}

/**
 * A query value taken for a secret by its shape: 8 characters or more, not all letters. A token
 * is long and random (a UUID, a ticket); a `port=5900` beside it is not one, nor a word that the
 * close reasons and messages scrubbed of it may also say.
 */
const QUERY_SECRET = /^(?=.*[^A-Za-z]).{8,}$/s;
/**
 * Query keys whose value is a secret whatever its shape: websockify's token plugins take names a
 * person chose (`?token=workstation`), and that name is the key to the console.
 */
const SECRET_QUERY_KEY = /^(?:token|access_token|vncticket|ticket|password|secret)$/i;

/**
 * What a URL carries that is secret: its userinfo's password, its query's and fragment's values
 * under a secret's key (`?token=T`, `vncticket=T`, from SHORTEST_SECRET characters), and the
 * other values that look like a token (QUERY_SECRET).
 */
export function urlSecrets(href: string): string[] {
  let url: URL;
  try {
    url = new URL(href);
  } catch {
    return [];
  }
  const values = (query: string) =>
    [...new URLSearchParams(query)]
      .filter(([key, value]) => (SECRET_QUERY_KEY.test(key) ? value.length >= SHORTEST_SECRET : QUERY_SECRET.test(value)))
      .map(([, value]) => value);
  return [...new Set([url.password, decoded(url.password), ...values(url.search), ...values(url.hash.slice(1))])].filter(Boolean);
}

function decoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/**
 * The variables vconsole reads credentials from, OpenStack's openrc (OS_PASSWORD,
 * OS_APPLICATION_CREDENTIAL_SECRET, OS_TOKEN): no viewer or browser needs them.
 */
const CREDENTIAL_VARIABLE = /^OS_(?:\w*_)?(?:PASSWORD|SECRET|TOKEN)$/i;

/** `env` without the variables that hold vconsole's credentials: what a program vconsole starts is given. */
export function withoutCredentialVariables(env: Readonly<Record<string, string | undefined>>): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(env).filter(([name]) => !CREDENTIAL_VARIABLE.test(name)));
}

/**
 * The secrets a provider has learnt (a password read, a token bought, a console's ticket
 * received), the most recent ones kept: what its errors are scrubbed of.
 */
export class SecretSet {
  private readonly kept = new Set<string>();

  constructor(private readonly limit = SECRETS_KEPT) {}

  /** Remembers a secret (nothing for none), forgetting the oldest past the limit. */
  add(secret: string | undefined): void {
    if (!secret) return;
    this.kept.delete(secret);
    this.kept.add(secret);
    if (this.kept.size > this.limit) this.kept.delete(this.kept.values().next().value as string);
  }

  values(): string[] {
    return [...this.kept];
  }

  /** `text` without any secret of this set, nor anything that looks like one. */
  scrubText(text: string): string {
    return scrubText(text, this.kept);
  }

  /** The error rebuilt without any secret of this set (see scrubError). */
  scrubError(err: unknown): VconsoleError {
    return scrubError(err, this.kept);
  }
}
