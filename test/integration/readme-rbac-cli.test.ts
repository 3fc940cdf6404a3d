import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { startKubevirtFixture, type KubevirtFixture, type RecordedRequest } from '../fixtures/kubevirt-api.js';
import { readGreeting, runVconsole, startVconsole } from '../support/cli.js';
import { waitFor } from '../support/wait.js';

// docs/COMMANDS.md gives the Role a KubeVirt user needs (the README names its rules and links
// it). This runs what the README's KubeVirt section runs (list, open, a serial console, a stopped
// VM) against the fixture API server, turns each request into the RBAC attributes kube-apiserver
// would check, and holds that Role to them both ways: every request allowed, every rule used. A
// call vconsole starts making, or a rule it stops needing, fails here until the docs say so.

interface Rule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
}

/** The rules of the `kind: Role` in docs/COMMANDS.md's yaml blocks. */
function readmeRoleRules(): Rule[] {
  const readme = readFileSync(new URL('../../docs/COMMANDS.md', import.meta.url), 'utf8');
  const blocks = [...readme.matchAll(/```yaml\n([\s\S]*?)```/g)].map((match) => match[1]);
  const role = blocks
    .flatMap((block) => parseAllDocuments(block).map((doc) => doc.toJS() as { kind?: string; rules?: Rule[] }))
    .find((doc) => doc.kind === 'Role');
  expect(role, 'docs/COMMANDS.md has a yaml block with a kind: Role').toBeDefined();
  return role?.rules ?? [];
}

interface Attributes {
  verb: string;
  group: string;
  /** `virtualmachineinstances`, or `virtualmachineinstances/vnc` for a subresource. */
  resource: string;
}

/** What kube-apiserver's authorizer checks for one request; undefined for non-resource or review requests. */
function attributes(request: RecordedRequest): Attributes | undefined {
  const parts = /^\/apis\/([^/]+)\/[^/]+\/(?:namespaces\/[^/]+\/)?([^/]+)(?:\/([^/]+)(?:\/([^/]+))?)?$/.exec(request.path);
  if (!parts) return undefined;
  const [, group, resource, name, subresource] = parts;
  // Every authenticated user may create a SelfSubjectAccessReview (system:basic-user).
  if (group === 'authorization.k8s.io') return undefined;
  const verb = name ? 'get' : request.query.watch === 'true' ? 'watch' : 'list';
  return { verb, group, resource: subresource ? `${resource}/${subresource}` : resource };
}

const key = (a: Attributes) => `${a.verb} ${a.group} ${a.resource}`;

let fixture: KubevirtFixture;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  fixture = await startKubevirtFixture({
    vmis: [
      { namespace: 'prod', name: 'web-1' },
      { namespace: 'prod', name: 'db-1' },
      { namespace: 'prod', name: 'old' },
    ],
  });
  fixture.stopVm('prod', 'old');
  env = { KUBECONFIG: fixture.kubeconfigPath({ namespace: 'prod', fileName: 'prod.yaml' }) };
});
afterAll(() => fixture?.close());

describe('the KubeVirt Role the docs give', () => {
  it('allows every request of list, open, a serial console and a stopped VM, and has no rule they do not use', async () => {
    const rules = readmeRoleRules();
    expect((await runVconsole(['list', '-n', 'prod'], env)).code).toBe(0);
    expect((await runVconsole(['proxy', 'prod/old'], env)).code).toBe(1);

    // open follows the VM's state with a watch; a viewer's connection dials the vnc subresource.
    const open = startVconsole(['open', 'prod/web-1', '--no-tui', '--viewer', 'none'], env);
    try {
      await waitFor(() => fixture.openWatches() > 0 && /listening on 127\.0\.0\.1:(\d+)/.test(open.stderr() + open.stdout()));
      const port = Number(/listening on 127\.0\.0\.1:(\d+)/.exec(open.stderr() + open.stdout())?.[1]);
      (await readGreeting(port)).socket.destroy();
      await waitFor(() => fixture.requests.some((r) => r.upgrade && r.path.endsWith('/web-1/vnc')));
    } finally {
      open.kill();
    }

    const serial = startVconsole(['proxy', 'prod/db-1#serial'], env);
    try {
      const [line] = await serial.jsonLines(1);
      const { socket } = await readGreeting(line.port as number, 0);
      await waitFor(() => fixture.requests.some((r) => r.upgrade && r.path.endsWith('/db-1/console')));
      socket.destroy();
    } finally {
      serial.kill();
    }

    const used = new Map<string, Attributes>();
    for (const request of fixture.requests) {
      const a = attributes(request);
      if (a) used.set(key(a), a);
    }
    const allowedBy = (a: Attributes) =>
      rules.filter((rule) => rule.apiGroups.includes(a.group) && rule.resources.includes(a.resource) && rule.verbs.includes(a.verb));
    expect([...used.values()].filter((a) => allowedBy(a).length === 0).map(key), 'requests the Role does not allow').toEqual([]);
    const granted = rules.flatMap((rule) =>
      rule.apiGroups.flatMap((group) => rule.resources.flatMap((resource) => rule.verbs.map((verb) => key({ verb, group, resource })))),
    );
    expect(
      granted.filter((grant) => !used.has(grant)),
      'rules nothing used',
    ).toEqual([]);
  });
});

describe('a Role with only the console subresources, as virtctl needs', () => {
  it('opens the serial console without reading the VMI (virt-api reads it with its own account)', async () => {
    const consoleOnly = await startKubevirtFixture({
      vmis: [{ namespace: 'prod', name: 'db-1' }],
      deniedVmiVerbs: ['get', 'list', 'watch'],
    });
    try {
      const onlyEnv = { KUBECONFIG: consoleOnly.kubeconfigPath({ namespace: 'prod', fileName: 'console-only.yaml' }) };
      const serial = startVconsole(['proxy', 'prod/db-1#serial'], onlyEnv);
      try {
        const [line] = await serial.jsonLines(1);
        const { socket } = await readGreeting(line.port as number, 0);
        await waitFor(() => consoleOnly.requests.some((r) => r.upgrade && r.path.endsWith('/db-1/console')));
        socket.destroy();
      } finally {
        serial.kill();
      }
      expect(consoleOnly.requests.some((r) => r.method === 'GET' && r.path.endsWith('/virtualmachineinstances/db-1'))).toBe(true);
    } finally {
      await consoleOnly.close();
    }
  });
});
