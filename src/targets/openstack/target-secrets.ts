// What an OpenStack target holds that no message may carry: its cloud's password or application
// credential secret, its Keystone session's tokens and the console tokens Nova gave it. An error
// leaves the target through scrubbed(), without them, its kind, hint and exit code kept.
import { UsageError, VconsoleError, describeError } from '../../errors.js';
import type { CloudConnection } from './cloud-connection.js';
import type { CloudConfig } from './config.js';
import { scrubSecrets } from './http.js';
import type { KeystoneSession } from './keystone.js';

/** How many of a target's console tokens are kept: enough to scrub any error still in flight. */
const CONSOLE_TOKENS_KEPT = 32;

export class TargetSecrets {
  /** Known once the config is read. */
  private cloud?: CloudConfig;
  private session?: KeystoneSession;
  /** The recent console tokens this target received, not every one ever. */
  private readonly consoleTokens = new Set<string>();

  /** The cloud's and its Keystone session's secrets, once the target has connected. */
  connected({ cloud, session }: CloudConnection): void {
    this.cloud = cloud;
    this.session = session;
  }

  rememberConsoleToken(token: string): void {
    this.consoleTokens.add(token);
    if (this.consoleTokens.size > CONSOLE_TOKENS_KEPT) this.consoleTokens.delete(this.consoleTokens.values().next().value as string);
  }

  /** The error rebuilt without a secret in it. */
  scrubbed(err: unknown): VconsoleError {
    const auth = this.cloud?.auth;
    const known = [...this.consoleTokens, auth?.password, auth?.applicationCredentialSecret, ...(this.session?.secrets() ?? [])];
    const text = err instanceof VconsoleError ? err.message : describeError(err);
    const message = scrubSecrets(text, known);
    const hint = err instanceof VconsoleError && err.hint ? scrubSecrets(err.hint, known) : undefined;
    if (err instanceof UsageError) return new UsageError(message, hint);
    // The cause is rebuilt from text so no request, URL or header rides along to --verbose.
    const code = (err as { code?: string; cause?: { code?: string } }).cause?.code ?? (err as { code?: string }).code;
    const cause = Object.assign(new Error(scrubSecrets(describeError((err as { cause?: unknown }).cause ?? err), known)), { code });
    return new VconsoleError(message, { hint, cause, exitCode: err instanceof VconsoleError ? err.exitCode : 1 });
  }
}
