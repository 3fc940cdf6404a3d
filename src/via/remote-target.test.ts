import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { runAgentCommand } from '../commands/agent.js';
import { heldConsoleName } from '../holding/held-console-name.js';
import { ViaConnection } from './connection.js';
import { AGENT_PREAMBLE, type FarTarget } from './protocol.js';
import { RemoteTarget } from './remote-target.js';
import type { ViaLink } from './ssh-link.js';

const linkTo = (host: string) => ({ host, generation: 1 }) as unknown as ViaLink;
const far = (extra: Partial<FarTarget> = {}): FarTarget => ({
  handle: 1,
  input: 'tcp://127.0.0.1:5900',
  name: 'tcp://127.0.0.1:5900',
  provider: 'tcp',
  facts: { consoleType: 'vnc' },
  capabilities: [],
  ...extra,
});

describe('RemoteTarget', () => {
  it("is never the console of the same name here, nor another bastion's: a far console without an identity gets the bastion's", () => {
    const local = { provider: 'tcp', name: 'tcp://127.0.0.1:5900', facts: { consoleType: 'vnc' } };
    const viaJump = new RemoteTarget(linkTo('jump'), far(), {});
    const viaOther = new RemoteTarget(linkTo('other'), far(), {});
    expect(heldConsoleName(viaJump)).not.toBe(heldConsoleName(local));
    expect(heldConsoleName(viaJump)).not.toBe(heldConsoleName(viaOther));
    // The same far console through the same bastion is the same console: a second --via command joins it.
    expect(heldConsoleName(new RemoteTarget(linkTo('jump'), far({ handle: 7 }), {}))).toBe(heldConsoleName(viaJump));
  });

  it("keeps the far identity's digest, under the bastion's name", () => {
    const one = new RemoteTarget(linkTo('jump'), far({ provider: 'kubevirt', facts: { consoleType: 'vnc', identity: 'abc' } }), {});
    const two = new RemoteTarget(linkTo('jump'), far({ provider: 'kubevirt', facts: { consoleType: 'vnc', identity: 'def' } }), {});
    expect(one.facts.identity).toBe('via:jump:abc');
    expect(heldConsoleName(one)).not.toBe(heldConsoleName(two));
  });

  it("says, as the far target does, whether its console type's guess holds (KubeVirt's VNC: open launches the viewer early)", async () => {
    const [toFar, toNear] = [new PassThrough(), new PassThrough()];
    const agent = runAgentCommand({ stdin: toFar, stdout: toNear, exit: () => undefined }, { defaults: {}, aliases: {} });
    await new Promise((resolve) => toNear.once('readable', resolve));
    expect(String(toNear.read(AGENT_PREAMBLE.length))).toBe(AGENT_PREAMBLE);
    const near = new ViaConnection(toNear, toFar, { lost: () => new Error('lost') });
    const resolved = (await near.request('resolve', {
      inputs: ['kubevirt:default/vm-a', 'tcp://127.0.0.1:5900'],
      flags: {},
    })) as FarTarget[];
    const [kubevirt, tcp] = resolved.map((described) => new RemoteTarget(linkTo('jump'), described, {}));
    expect(kubevirt.facts).toMatchObject({ consoleType: 'vnc', consoleTypeTentative: true, consoleTypeGuessHolds: true });
    expect(tcp.facts.consoleTypeGuessHolds).toBeFalsy();
    toFar.end();
    await agent;
  });

  it('asks the far side for any capability the far target names, by name, and refuses an answer of the wrong shape', async () => {
    const asked: unknown[] = [];
    let answer: unknown = 'https://nova.example:6083/?token=t0k';
    const connection = {
      request: (op: string, body: unknown) => {
        asked.push({ op, body });
        return Promise.resolve(answer);
      },
    };
    const link = { host: 'jump', generation: 1, connection: () => Promise.resolve(connection) } as unknown as ViaLink;
    const remote = new RemoteTarget(link, far({ facts: { consoleType: 'rdp' }, capabilities: ['browserUrl', 'noSuchThing'] }), {});
    expect(Object.keys(remote.capabilities)).toEqual(['browserUrl']);
    expect(await remote.capabilities.browserUrl!(AbortSignal.timeout(10_000))).toBe(answer);
    expect(asked).toEqual([{ op: 'capability', body: { handle: 1, name: 'browserUrl', args: [] } }]);
    answer = { not: 'a url' };
    await expect(remote.capabilities.browserUrl!(AbortSignal.timeout(10_000))).rejects.toThrow(
      /jump answered browserUrl .* with something else/,
    );
  });
});
