import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { failure } from '../../../test/support/streams.js';
import { describeError } from '../../errors.js';
import { splitTarget } from '../registry.js';
import { createKubevirtProvider } from './provider.js';

/**
 * An API server whose answers the test sets: the VMI (or a 404), and which console
 * subresources a review allows. With `holdVmiUntilReview`, the VMI's answer waits until a
 * review has come in, so a pre-flight asking one after the other never finishes.
 */
interface Answers {
  vmi?: object;
  allowed: Record<string, boolean>;
  holdVmiUntilReview?: boolean;
  /** The reason virt-api's authorizer gives when it refuses the console's upgrade (401). */
  virtApiReason?: string;
}

const dir = mkdtempSync(join(tmpdir(), 'vconsole-preflight-'));
let answers: Answers = { allowed: {} };
let reviews: string[] = [];
let reviewed: () => void = () => undefined;
let reviewSeen = Promise.resolve();
let server: http.Server;
let kubeconfig: string;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    res.setHeader('content-type', 'application/json');
    if (req.method === 'POST') {
      let body = '';
      req.on('data', (d: Buffer) => (body += d.toString()));
      req.on('end', () => {
        const { subresource, name } = (JSON.parse(body) as { spec: { resourceAttributes: { subresource: string; name?: string } } }).spec
          .resourceAttributes;
        // The namespace-wide review is asked first; one about the VM by name only after its no.
        reviews.push(name ? `${subresource}:${name}` : subresource);
        reviewed();
        res.statusCode = 201;
        res.end(JSON.stringify({ status: { allowed: answers.allowed[subresource] ?? true } }));
      });
      return;
    }
    if (req.headers.upgrade) {
      // virt-api's own authorizer (pkg/virt-api/api.go): 401, text/plain, the review's reason.
      res.writeHead(401, { 'content-type': 'text/plain' });
      res.end(answers.virtApiReason ?? '');
      return;
    }
    const reply = () => {
      if (!answers.vmi) {
        res.statusCode = 404;
        res.end(JSON.stringify({ kind: 'Status', code: 404, message: 'virtualmachineinstances.kubevirt.io "vm" not found' }));
      } else res.end(JSON.stringify(answers.vmi));
    };
    if (answers.holdVmiUntilReview) void reviewSeen.then(reply);
    else reply();
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  kubeconfig = join(dir, 'config.yaml');
  writeFileSync(
    kubeconfig,
    [
      'apiVersion: v1',
      'kind: Config',
      'current-context: c',
      `clusters: [{name: c, cluster: {server: "http://127.0.0.1:${port}"}}]`,
      'users: [{name: u, user: {token: t}}]',
      'contexts: [{name: c, context: {cluster: c, user: u, namespace: ns}}]',
    ].join('\n'),
  );
});
afterEach(() => {
  reviews = [];
});
afterAll(async () => {
  server.close();
  rmSync(dir, { recursive: true, force: true });
});

function setAnswers(next: Answers): void {
  answers = next;
  reviewSeen = new Promise((resolve) => (reviewed = resolve));
}

const running = (devices: object = {}) => ({
  metadata: { name: 'vm', namespace: 'ns' },
  spec: { domain: { devices } },
  status: { phase: 'Running' },
});

function resolveTarget(consoleType: 'auto' | 'vnc' | 'serial') {
  const env = { env: { KUBECONFIG: kubeconfig }, homeDir: join(dir, 'home'), serviceAccountDir: join(dir, 'sa') };
  return createKubevirtProvider(() => env).resolve(splitTarget('vm'), { consoleType });
}

function check(consoleType: 'auto' | 'vnc' | 'serial' = 'auto') {
  const env = { env: { KUBECONFIG: kubeconfig }, homeDir: join(dir, 'home'), serviceAccountDir: join(dir, 'sa') };
  const target = createKubevirtProvider(() => env).resolve(splitTarget('vm'), { consoleType });
  return { target, done: target.check!(AbortSignal.timeout(10_000)) };
}

describe('the KubeVirt pre-flight', () => {
  it('asks for the VMI and the access review at once, not one after the other', async () => {
    setAnswers({ vmi: running(), allowed: {}, holdVmiUntilReview: true });
    await check().done;
    expect(reviews).toEqual(['vnc']);
  });

  it("reports the VMI's problem before a refused review, as when they were asked in turn", async () => {
    setAnswers({ vmi: { ...running(), status: { phase: 'Succeeded' } }, allowed: { vnc: false } });
    expect(String(await failure(check().done))).toMatch(/VMI is not running \(phase Succeeded\)/);
    setAnswers({ allowed: { vnc: false } });
    expect(String(await failure(check().done))).toMatch(/not found/);
    setAnswers({ vmi: running(), allowed: { vnc: false } });
    expect(String(await failure(check().done))).toMatch(/forbidden: you may not get virtualmachineinstances\/vnc in namespace "ns"/);
  });

  it('auto on a VMI without a display asks again for the serial console, and reports that one', async () => {
    setAnswers({ vmi: running({ autoattachGraphicsDevice: false }), allowed: { console: false } });
    const { target, done } = check();
    expect(String(await failure(done))).toMatch(/forbidden: you may not get virtualmachineinstances\/console/);
    expect(target.facts.consoleType).toBe('serial');
    expect(reviews).toEqual(['vnc', 'console', 'console:vm']);
    setAnswers({ vmi: running(), allowed: {} });
    await check('serial').done;
    expect(reviews).toEqual(['vnc', 'console', 'console:vm', 'console']);
  });

  it("words virt-api's own 401 on the upgrade as an authorization refusal for that subresource, not as bad credentials", async () => {
    setAnswers({ vmi: running(), allowed: {} });
    const serial = resolveTarget('serial');
    await serial.check!(AbortSignal.timeout(10_000));
    expect(describeError(await failure(serial.dial({ signal: AbortSignal.timeout(10_000), log: () => undefined })))).toBe(
      'virt-api refused authorization for virtualmachineinstances/console; ask for RBAC "get" on virtualmachineinstances/console in API group subresources.kubevirt.io',
    );
    setAnswers({ vmi: running(), allowed: {}, virtApiReason: 'no RBAC policy matched' });
    const vnc = resolveTarget('vnc');
    await vnc.check!(AbortSignal.timeout(10_000));
    expect(describeError(await failure(vnc.dial({ signal: AbortSignal.timeout(10_000), log: () => undefined })))).toMatch(
      /^virt-api refused authorization for virtualmachineinstances\/vnc \(no RBAC policy matched\); ask for RBAC "get" on virtualmachineinstances\/vnc /,
    );
  });
});
