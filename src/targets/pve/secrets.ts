// Errors leave the provider with no token, password or ticket in them: not in the message, the
// hint or the cause --verbose prints.
import { UsageError, VconsoleError, describeError, redactSecrets } from '../../errors.js';

/** `text` with each secret (and its URL-encoded form) replaced by `***`. */
export function scrubbed(text: string, secrets: readonly string[]): string {
  let out = redactSecrets(text);
  for (const secret of secrets) {
    if (secret.length < 4) continue;
    for (const form of new Set([secret, encodeURIComponent(secret)])) out = out.split(form).join('***');
  }
  return out;
}

/** The error rebuilt from text without the secrets, its kind, hint and exit code kept. */
export function scrubSecretsFrom(err: unknown, secrets: readonly string[]): VconsoleError {
  const message = scrubbed(err instanceof VconsoleError ? err.message : describeError(err), secrets);
  const hint = err instanceof VconsoleError && err.hint ? scrubbed(err.hint, secrets) : undefined;
  if (err instanceof UsageError) return new UsageError(message, hint);
  const code = (err as { code?: string }).code;
  const cause = Object.assign(new Error(scrubbed(describeError((err as { cause?: unknown }).cause ?? err), secrets)), { code });
  const rebuilt = new VconsoleError(message, { hint, cause, exitCode: err instanceof VconsoleError ? err.exitCode : 1 });
  // Its class kept: the hub tells a refused console (ConsoleRefusedError) from a dropped one.
  const kind = (err instanceof VconsoleError ? Object.getPrototypeOf(err) : VconsoleError.prototype) as object;
  return Object.setPrototypeOf(rebuilt, kind) as VconsoleError;
}
