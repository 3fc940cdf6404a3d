// Where each value of one cloud comes from: the OS_* variables, secure.yaml, clouds.yaml, in
// the order openstacksdk lets them win, each layer knowing its file and whether it is trusted,
// so that a secret of the user's is never sent where only a planted file points.
import { isRecord as isDict } from '../../config/records.js';
import type { Dict, FoundFile } from './config-files.js';

/** One source of a cloud's values. */
export interface Layer {
  values: Dict;
  /** The file, or undefined for the OS_* variables. */
  file?: string;
  /** A file found only in the current directory (config-files.ts). */
  untrusted: boolean;
}

/** A value and the layer it came from. */
interface Picked {
  value: string;
  layer: Layer;
  key: string;
}

/**
 * The layers of cloud `name`, first wins: the OS_* variables; then, like openstacksdk, a value
 * outside `auth` beats one inside, and secure.yaml's beats clouds.yaml's.
 */
export function cloudLayers(name: string, env: Dict, clouds: FoundFile | undefined, secure: FoundFile | undefined): Layer[] {
  const entry = (found: FoundFile | undefined): Dict => {
    const all = found?.data.clouds;
    const cloud = isDict(all) ? all[name] : undefined;
    return isDict(cloud) ? normalizeKeys(cloud) : {};
  };
  const layer = (found: FoundFile | undefined, values: Dict): Layer => ({
    values,
    file: found?.file,
    untrusted: found?.untrusted ?? false,
  });
  const auth = (found: FoundFile | undefined): Dict => {
    const value = entry(found).auth;
    return isDict(value) ? normalizeKeys(value) : {};
  };
  return [
    { values: env, untrusted: false },
    layer(secure, entry(secure)),
    layer(clouds, entry(clouds)),
    layer(secure, auth(secure)),
    layer(clouds, auth(clouds)),
  ];
}

/** The first value of any of `keys`, layer by layer. */
export function pickFrom(layers: readonly Layer[], keys: readonly string[]): Picked | undefined {
  for (const layer of layers) {
    for (const key of keys) {
      const value = layer.values[key];
      // A mapping or list where a string belongs is not a value (it was "[object Object]").
      if (typeof value === 'string' ? value !== '' : typeof value === 'number' || typeof value === 'boolean') {
        return { value: String(value), layer, key };
      }
    }
  }
  return undefined;
}

/**
 * When the secret to be sent (`secret`) is the user's own (the OS_* variables, a file of theirs)
 * and where it goes (`aims`: auth_url, cacert, verify, insecure) comes from a file found only in
 * the current directory: that file and what the secret is. A file's own secret is its own.
 */
export function borrowedSecret(
  secret: Picked | undefined,
  aims: readonly (Picked | undefined)[],
): { file: string; secret: string } | undefined {
  if (!secret || secret.layer.untrusted) return undefined;
  const planted = aims.find((aim) => aim?.layer.untrusted);
  if (!planted?.layer.file) return undefined;
  const what = secret.key.replace(/_/g, ' ');
  const from = secret.layer.file ?? `OS_${secret.key.toUpperCase()}`;
  return { file: planted.layer.file, secret: `${what} from ${from}` };
}

/** `user-domain-name` and `user_domain_name` mean the same. */
export function normalizeKeys(dict: Dict): Dict {
  return Object.fromEntries(Object.entries(dict).map(([k, v]) => [k.replace(/-/g, '_'), v]));
}
