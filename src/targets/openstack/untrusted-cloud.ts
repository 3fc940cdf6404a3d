// The user's yes before a secret of theirs goes where only a file in the current directory
// points: a clouds.yaml found there may be someone else's (a cloned repository, a shared
// directory), and its auth_url would receive the password from the user's own secure.yaml or
// OS_* variables. Asked once per process for each file, cloud and address.
import { UsageError } from '../../errors.js';
import { askYesNo, canAsk } from '../../terminal/yes-no.js';
import { echoInput } from '../../text/terminal-text.js';
import { safeUrlText } from '../../text/url-text.js';
import type { TargetOptions } from '../types.js';
import type { CloudConfig } from './config.js';

/** Asks `question` and resolves with the answer; undefined when nobody can be asked (no terminal). */
type AskUser = (question: string) => Promise<boolean> | undefined;

/** The process's terminal: stdin and stderr, when both are terminals. */
const askOnTerminal: AskUser = (question) => {
  const terminal = { stdin: process.stdin, stderr: process.stderr };
  return canAsk(terminal) ? askYesNo(question, terminal) : undefined;
};

/** The answers of this process, one question per file, cloud and address (concurrent targets share it). */
const answers = new Map<string, Promise<boolean>>();

/**
 * Resolves when `cloud` may be used: it sends no borrowed secret, or the user said yes on a
 * terminal. Otherwise throws one UsageError saying what to do: name the file with
 * $OS_CLIENT_CONFIG_FILE, which trusts it.
 */
export async function trustCloud(
  cloud: CloudConfig,
  questions: TargetOptions['questions'],
  ask: AskUser = askOnTerminal,
  asked: Map<string, Promise<boolean>> = answers,
): Promise<void> {
  const borrowed = cloud.borrowed;
  if (!borrowed) return;
  const file = echoInput(borrowed.file);
  const where = `${file} (found only in the current directory) sets where cloud "${echoInput(cloud.name)}" logs in: ${addressOf(cloud.auth.authUrl)}`;
  const key = JSON.stringify([borrowed.file, cloud.name, cloud.auth.authUrl, cloud.insecure, cloud.cacert ?? null]);
  let answer = asked.get(key);
  if (!answer && (questions ?? 'terminal') === 'terminal') {
    answer = ask(`vconsole: ${where}; send your ${borrowed.secret} there? [y/N] `);
    if (answer) asked.set(key, answer);
  }
  const variable = /secure\.(ya?ml|json)$/.test(borrowed.file) ? 'OS_CLIENT_SECURE_FILE' : 'OS_CLIENT_CONFIG_FILE';
  const hint = `if the file is yours, name it: ${variable}=${file}`;
  if (!answer) throw new UsageError(`${where}; your ${borrowed.secret} is not sent there without your yes`, hint);
  if (!(await answer)) throw new UsageError(`${where}; your ${borrowed.secret} was not sent`, hint);
}

/** An auth_url as it may be shown: no credentials, query or fragment. */
function addressOf(authUrl: string): string {
  try {
    return safeUrlText(new URL(authUrl));
  } catch {
    return `"${echoInput(authUrl)}"`;
  }
}
