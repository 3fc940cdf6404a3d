// Kubeconfig files for the loopback control plane, one per way a user authenticates, as clusters hand them out:
// a client certificate (file paths), a bearer token, and an exec credential plugin. JSON is valid YAML, so they are
// written as JSON. Secrets stay in files (mode 0600), never in a command line.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ControlPlane } from './kube-control-plane.js';

export type KubeUserKind = 'cert' | 'token' | 'exec' | 'admin';

function kubeconfig(plane: ControlPlane, user: Record<string, unknown>, namespace: string): unknown {
  return {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'e2e', cluster: { server: plane.server, 'certificate-authority': plane.ca.cert } }],
    users: [{ name: 'e2e-user', user }],
    contexts: [{ name: 'e2e', context: { cluster: 'e2e', user: 'e2e-user', namespace } }],
    'current-context': 'e2e',
  };
}

/** A node script that prints an ExecCredential with the token read from the file its environment names. */
const EXEC_PLUGIN = `const token = require('node:fs').readFileSync(process.env.VCONSOLE_E2E_TOKEN_FILE, 'utf8').trim();
process.stdout.write(JSON.stringify({ apiVersion: 'client.authentication.k8s.io/v1', kind: 'ExecCredential', status: { token } }));
`;

async function userEntry(plane: ControlPlane, kind: KubeUserKind): Promise<Record<string, unknown>> {
  switch (kind) {
    case 'admin':
      return { 'client-certificate': plane.adminCert.cert, 'client-key': plane.adminCert.key };
    case 'cert':
      return { 'client-certificate': plane.userCert.cert, 'client-key': plane.userCert.key };
    case 'token':
      return { token: plane.tokens.token };
    case 'exec': {
      const tokenPath = join(plane.dir, 'exec-user.token');
      const script = join(plane.dir, 'exec-credential.cjs');
      await writeFile(tokenPath, plane.tokens.exec, { mode: 0o600 });
      await writeFile(script, EXEC_PLUGIN);
      return {
        exec: {
          apiVersion: 'client.authentication.k8s.io/v1',
          command: process.execPath,
          args: [script],
          env: [{ name: 'VCONSOLE_E2E_TOKEN_FILE', value: tokenPath }],
          interactiveMode: 'Never',
        },
      };
    }
  }
}

/** Writes `<dir>/kubeconfig-<kind>` for one user kind and returns its path. */
export async function writeKubeconfig(plane: ControlPlane, kind: KubeUserKind, namespace = 'default'): Promise<string> {
  const path = join(plane.dir, `kubeconfig-${kind}`);
  await writeFile(path, `${JSON.stringify(kubeconfig(plane, await userEntry(plane, kind), namespace), null, 2)}\n`, { mode: 0o600 });
  return path;
}
