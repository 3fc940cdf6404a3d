import net from 'node:net';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import WebSocket from 'ws';
import { Framebuffer } from '../../src/rfb/wire/framebuffer.js';
import { RfbConsoleClient } from '../../src/rfb/client/rfb-client.js';
import { startKubevirtFixture, type KubevirtFixture, type SessionEvent } from '../fixtures/kubevirt-api.js';
import { it } from '../support/fixtures.js';
import { waitFor } from '../support/wait.js';

let fixture: KubevirtFixture;
const kicked: SessionEvent[] = [];

beforeAll(async () => {
  fixture = await startKubevirtFixture({ vmis: [{ namespace: 'default', name: 'vm-a' }] });
  fixture.sessions.on('close', (event: SessionEvent) => {
    if (event.reason === 'kicked') kicked.push(event);
  });
});
afterAll(() => fixture?.close());

const upgrades = (status: number) =>
  fixture.requests.filter((r) => r.upgrade && r.path.endsWith('/vm-a/vnc') && r.status === status).length;

describe('proxy --share against the KubeVirt API', () => {
  it('does not kick back a client that took the VM session: it waits, then takes it once free', async ({ cleanup, vconsole }) => {
    const proxy = vconsole.start(['proxy', 'vm-a', '--share'], { KUBECONFIG: fixture.kubeconfigPath() });
    const [{ port }] = await proxy.jsonLines(1);
    const socket = net.connect({ host: '127.0.0.1', port: port as number });
    const framebuffer = new Framebuffer(0, 0);
    const viewer = await RfbConsoleClient.connect(socket, framebuffer);
    cleanup.add(() => viewer.close());
    await waitFor(() => framebuffer.width === 800, 'the shared screen');

    // Someone else (virtctl vnc, another tool) takes the VM's one VNC session.
    const refusedBefore = upgrades(500) + upgrades(503);
    const other = new WebSocket(fixture.consoleUrl('default', 'vm-a'), ['plain.kubevirt.io'], {
      ca: fixture.caPem,
      headers: { Authorization: `Bearer ${fixture.token}` },
    });
    cleanup.add(() => other.terminate());
    await new Promise((resolve, reject) => other.once('message', resolve).once('error', reject));
    await waitFor(() => kicked.length === 1, 'the hub kicked once');
    // The hub redials with preserveSession and is refused while the other client holds it.
    await waitFor(() => upgrades(500) + upgrades(503) > refusedBefore + 1, 'two refused redials');
    expect(kicked).toHaveLength(1);
    expect(other.readyState).toBe(WebSocket.OPEN);
    const preserved = fixture.requests.filter((r) => r.upgrade && r.path.endsWith('/vm-a/vnc')).at(-1);
    expect(preserved?.query).toMatchObject({ preserveSession: 'true' });

    const liveBefore = upgrades(101);
    other.close();
    await waitFor(() => upgrades(101) > liveBefore, 'the hub back on the session', 20_000);
    expect(kicked).toHaveLength(1);
    await proxy.waitForStderr(/console back/);
  });
});
