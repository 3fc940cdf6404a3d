import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { listeningPortsOf } from './net.js';
import { GiveUp, pollFor } from './poll.js';
import type { ProcessLab, RunningProcess } from './processes.js';

export interface Websockify {
  port: number;
  process: RunningProcess;
  /** `ws://127.0.0.1:PORT/?token=TOKEN`, the websocket a noVNC client opens. */
  url(token: string): string;
  tokenFile: string;
}

/** The TokenFile plugin's format: one `TOKEN: host:port` line per console. */
export function tokenFileText(tokens: Readonly<Record<string, string>>): string {
  return Object.entries(tokens)
    .map(([token, target]) => `${token}: ${target}\n`)
    .join('');
}

/**
 * Runs Debian's websockify the way nova-novncproxy uses its core: tokens map to VNC servers
 * through `--token-plugin TokenFile --token-source FILE`. It listens on port 0 (the OS picks);
 * the port is read back from `ss` by websockify's pid, so no port can be taken in between.
 */
export async function startWebsockify(lab: ProcessLab, dir: string, tokens: Readonly<Record<string, string>>): Promise<Websockify> {
  const tokenFile = join(dir, 'websockify-tokens');
  await writeFile(tokenFile, tokenFileText(tokens), { mode: 0o600 });
  const proc = lab.start('websockify', 'websockify', ['--token-plugin', 'TokenFile', '--token-source', tokenFile, '127.0.0.1:0']);
  const port = await pollFor(
    async () => {
      if (proc.hasExited()) throw new GiveUp(`websockify exited:\n${proc.describe()}`);
      return (await listeningPortsOf(proc.pid))[0];
    },
    { what: 'websockify to listen', timeoutMs: 30_000, detail: () => proc.describe() },
  );
  return { port, process: proc, tokenFile, url: (token) => `ws://127.0.0.1:${port}/?token=${encodeURIComponent(token)}` };
}
