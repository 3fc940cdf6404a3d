// What an OpenStack target holds that no message may carry: its cloud's password or application
// credential secret, its Keystone session's tokens and the console tokens Nova gave it. An error
// leaves the target through scrubbed(), without them, its kind, hint and exit code kept.
import type { VconsoleError } from '../../errors.js';
import { SecretSet, scrubError } from '../../secrets.js';
import type { CloudConnection } from './cloud-connection.js';
import type { CloudConfig } from './config.js';
import type { KeystoneSession } from './keystone.js';

/** How many of a target's console tokens are kept: enough to scrub any error still in flight. */
const CONSOLE_TOKENS_KEPT = 32;

export class TargetSecrets {
  /** Known once the config is read. */
  private cloud?: CloudConfig;
  private session?: KeystoneSession;
  /** The recent console tokens this target received, not every one ever. */
  private readonly consoleTokens = new SecretSet(CONSOLE_TOKENS_KEPT);

  /** The cloud's and its Keystone session's secrets, once the target has connected. */
  connected({ cloud, session }: CloudConnection): void {
    this.cloud = cloud;
    this.session = session;
  }

  rememberConsoleToken(token: string): void {
    this.consoleTokens.add(token);
  }

  /** The error rebuilt without a secret in it (see scrubError). */
  scrubbed(err: unknown): VconsoleError {
    const auth = this.cloud?.auth;
    return scrubError(err, [
      ...this.consoleTokens.values(),
      auth?.password,
      auth?.applicationCredentialSecret,
      ...(this.session?.secrets() ?? []),
    ]);
  }
}
