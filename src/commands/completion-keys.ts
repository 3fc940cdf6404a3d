// What decides the names a provider lists, as a completion cache key (completion-cache.ts): the
// provider, its flags typed on the line (--kubeconfig, --context, -n, -A, --cloud, --pve-url,
// --connect, ...), the environment it reads (KUBECONFIG, OS_CLOUD and the other OS_* but the
// secret ones, LIBVIRT_DEFAULT_URI), and the files it reads as they are now (path, size and
// modification time of the config file, the kubeconfig files, clouds.yaml: `kubectl config
// use-context` changes the kubeconfig, so the entry of the other context is not used).
// Never a secret: no flag or variable whose name says password, token, secret, ticket or key,
// and no file's content.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { CompletionModel } from './completion-model.js';

/** Names of flags and variables whose values are (or locate) secrets: left out of every key. */
const SECRET_NAME = /pass|token|secret|ticket|credential|key/i;

/** What the TLS flags (--insecure, --ca) belong to: they apply to every provider that dials. */
const TLS_GROUP = 'websocket';

/** The flags typed on a line, by long spelling (`--namespace`), each with every value given. */
type TypedFlags = Record<string, string[]>;

/** The flags `words` hold, read with the model's spellings (`-n prod`, `--context=lab`, `-A`). */
export function typedFlags(model: CompletionModel, words: readonly string[]): TypedFlags {
  const typed: TypedFlags = {};
  for (let i = 0; i < words.length; i++) {
    const word = words[i];
    if (!word.startsWith('-') || word === '--') continue;
    const equals = word.indexOf('=');
    const spelling = equals > 0 ? word.slice(0, equals) : word;
    const flag = model.flags.find((f) => f.spellings.includes(spelling));
    if (!flag) continue;
    const long = flag.spellings.at(-1) ?? spelling;
    let value = 'true';
    if (equals > 0) value = word.slice(equals + 1);
    else if (flag.takesValue && i + 1 < words.length) value = words[++i];
    (typed[long] ??= []).push(value);
  }
  return typed;
}

/** The config file the line, the environment or the default names (as src/config/config.ts finds it). */
function configFile(typed: TypedFlags, env: NodeJS.ProcessEnv): string {
  const named = typed['--config']?.at(-1) ?? env.VCONSOLE_CONFIG;
  if (named) return path.resolve(named);
  const home = env.HOME || os.homedir();
  const base =
    process.platform === 'win32'
      ? env.XDG_CONFIG_HOME || env.APPDATA || path.join(home, 'AppData', 'Roaming')
      : env.XDG_CONFIG_HOME || path.join(home, '.config');
  return path.join(base, 'vconsole', 'config.yaml');
}

/** A file as it is now: path, size and modification time (null when there is none). */
function stamp(file: string): [string, number, number] | [string, null] {
  try {
    const { size, mtimeMs } = fs.statSync(file);
    return [file, size, mtimeMs];
  } catch {
    return [file, null];
  }
}

/** The key of the config file's own names (aliases, workspaces): the file as it is now. */
export function configKey(typed: TypedFlags, env: NodeJS.ProcessEnv = process.env): unknown {
  return { v: 1, names: 'config', config: stamp(configFile(typed, env)) };
}

/** The key of what `provider` lists for the line's flags here. */
export function providerKey(model: CompletionModel, typed: TypedFlags, provider: string, env: NodeJS.ProcessEnv = process.env): unknown {
  const own = model.flags.filter((flag) => flag.provider === provider || flag.provider === TLS_GROUP);
  const flags = Object.fromEntries(
    own.flatMap((flag) => {
      const long = flag.spellings.at(-1) ?? flag.key;
      return typed[long] && !SECRET_NAME.test(long) ? [[long, typed[long]]] : [];
    }),
  );
  const { variables, files } = providerSources(provider, typed, env);
  const environment = Object.fromEntries(
    variables.filter((name) => env[name] !== undefined && !SECRET_NAME.test(name)).map((name) => [name, env[name]]),
  );
  return { v: 1, provider, config: stamp(configFile(typed, env)), flags, env: environment, files: files.map(stamp) };
}

/** The variables and files a provider's listing reads besides its flags and the config file. */
function providerSources(provider: string, typed: TypedFlags, env: NodeJS.ProcessEnv): { variables: string[]; files: string[] } {
  const home = env.HOME || os.homedir();
  if (provider === 'kubevirt') {
    const named = typed['--kubeconfig']?.at(-1);
    const files = named
      ? [named]
      : env.KUBECONFIG
        ? env.KUBECONFIG.split(path.delimiter).filter(Boolean)
        : [path.join(home, '.kube', 'config')];
    return { variables: ['KUBECONFIG', 'KUBERNETES_SERVICE_HOST', 'KUBERNETES_SERVICE_PORT'], files: files.map((f) => path.resolve(f)) };
  }
  if (provider === 'openstack') {
    const files = [env.OS_CLIENT_CONFIG_FILE, env.OS_CLIENT_SECURE_FILE].filter((f): f is string => Boolean(f)).map((f) => path.resolve(f));
    const places = [path.join(env.XDG_CONFIG_HOME || path.join(home, '.config'), 'openstack'), '/etc/openstack'];
    files.push(...places.flatMap((place) => ['clouds.yaml', 'secure.yaml'].map((name) => path.join(place, name))));
    return {
      variables: Object.keys(env)
        .filter((name) => name.startsWith('OS_'))
        .sort(),
      files,
    };
  }
  if (provider === 'libvirt') return { variables: ['LIBVIRT_DEFAULT_URI'], files: [] };
  return { variables: [], files: [] };
}
