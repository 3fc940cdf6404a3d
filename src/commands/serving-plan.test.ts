import { afterEach, describe, expect, it } from 'vitest';
import { RfbHub } from '../rfb/hub/hub.js';
import { SharedSerialSource } from '../serial/shared-serial.js';
import { sourceChain } from '../proxy/wrapped-source.js';
import { resolveTarget } from '../targets/index.js';
import type { ConsoleTarget } from '../targets/types.js';
import { SerialTlsGate } from './exposed-serial.js';
import { OPEN_SERVING, PROXY_SERVING, servingPlan, settleSharing, type ServingFlags, type ServingProfile } from './serving-plan.js';

const context = (profile: ServingProfile, more: { listen?: string; configShare?: boolean; targets?: ConsoleTarget[] } = {}) => ({
  profile,
  listen: more.listen ?? '127.0.0.1',
  configShare: more.configShare,
  targets: more.targets ?? [],
});
const share = (flags: ServingFlags, ...args: Parameters<typeof context>) => settleSharing(flags, context(...args)).share;

/** The kinds of wrapper a served console gets, outermost first. */
const chainOf = (source: ReturnType<Awaited<ReturnType<typeof servingPlan>>['wrap']>) =>
  [...sourceChain(source)].map((s) =>
    s instanceof RfbHub
      ? 'hub'
      : s instanceof SharedSerialSource
        ? 'line'
        : s instanceof SerialTlsGate
          ? 'tls-gate'
          : 'inner' in s
            ? s.constructor.name
            : 'target',
  );

const released: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const release of released.splice(0)) await release();
});

describe('whether consoles are shared: the rules in their order', () => {
  it("open shares by default; proxy only when asked; the flag wins over the config file's defaults.share", () => {
    expect(share({}, OPEN_SERVING)).toBe(true);
    expect(share({}, PROXY_SERVING)).toBeUndefined();
    expect(share({}, OPEN_SERVING, { configShare: false })).toBe(false);
    expect(share({}, PROXY_SERVING, { configShare: true })).toBe(true);
    expect(share({ share: true }, OPEN_SERVING, { configShare: false })).toBe(true);
  });

  it('--grid shares over defaults.share: false, not over --no-share', () => {
    expect(share({ grid: true }, OPEN_SERVING, { configShare: false })).toBe(true);
    expect(share({ grid: true, share: false }, OPEN_SERVING)).toBe(false);
  });

  it('beyond loopback both commands share, over defaults.share: false; --no-share there is refused unless insecure by name', () => {
    for (const profile of [OPEN_SERVING, PROXY_SERVING]) {
      expect(share({}, profile, { listen: '0.0.0.0', configShare: false })).toBe(true);
      expect(() => share({ share: false }, profile, { listen: '0.0.0.0' })).toThrow(/--no-share on --listen 0\.0\.0\.0/);
      expect(share({ share: false, insecureExposeUnauthenticated: true }, profile, { listen: '0.0.0.0' })).toBe(false);
    }
  });

  it('--record shares in both commands, and refuses --no-share', () => {
    for (const profile of [OPEN_SERVING, PROXY_SERVING]) {
      expect(share({ record: '/tmp' }, profile, { configShare: false })).toBe(true);
      expect(() => share({ record: '/tmp', share: false }, profile)).toThrow(/--record and --no-share do not go together/);
    }
  });

  it('a VNC console with a one-time ticket shares in both commands, and refuses --no-share naming it', () => {
    const tcp = resolveTarget('tcp://127.0.0.1:5900', {});
    const ticketed: ConsoleTarget = { ...tcp, name: 'pve:100', facts: { ...tcp.facts, consolePasswordPerDial: true } };
    for (const profile of [OPEN_SERVING, PROXY_SERVING]) {
      expect(share({}, profile, { targets: [ticketed], configShare: false })).toBe(true);
      expect(() => share({ share: false }, profile, { targets: [ticketed] })).toThrow(/pve:100: its VNC server asks for a one-time ticket/);
    }
  });
});

describe('what wraps a console', () => {
  it('open and proxy --share wrap alike: the hub over a VNC console, one held line over a serial one', async () => {
    for (const [profile, flags] of [
      [OPEN_SERVING, {}],
      [PROXY_SERVING, { share: true }],
    ] as const) {
      const plan = await servingPlan({ ...flags, join: false }, context(profile), () => undefined);
      const vnc = plan.wrap(resolveTarget('tcp://127.0.0.1:5900', {}));
      const serial = plan.wrap(resolveTarget('tcp://127.0.0.1:5901#serial', {}));
      released.push(() => Promise.all([vnc.release?.(), serial.release?.()]));
      expect(chainOf(vnc)[0]).toBe('line');
      expect(chainOf(vnc)[1]).toBe('hub');
      expect(chainOf(serial).slice(0, 2)).toEqual(['line', 'hub']);
    }
  });

  it('proxy without --share relays: no hub and no held line; open holds its serial lines even unshared', async () => {
    const proxy = await servingPlan({ join: false }, context(PROXY_SERVING), () => undefined);
    expect(chainOf(proxy.wrap(resolveTarget('tcp://127.0.0.1:5901#serial', {})))).toEqual(['target']);
    const open = await servingPlan({ join: false, share: false }, context(OPEN_SERVING), () => undefined);
    expect(chainOf(open.wrap(resolveTarget('tcp://127.0.0.1:5901#serial', {})))[0]).toBe('line');
    expect(open.shareHint).toBe('drop --no-share');
  });

  it('beyond loopback proxy puts serial lines behind TLS and refuses a known SPICE console before listening; open leaves that to the console', async () => {
    const spice = resolveTarget('tcp://127.0.0.1:5930#spice', {});
    await expect(
      servingPlan({ join: false }, context(PROXY_SERVING, { listen: '0.0.0.0', targets: [spice] }), () => undefined),
    ).rejects.toThrow(/a SPICE console on --listen 0\.0\.0\.0 would be open to anyone/);
    const open = await servingPlan({ join: false }, context(OPEN_SERVING, { listen: '0.0.0.0', targets: [spice] }), () => undefined);
    await expect(open.wrap(spice).check?.(AbortSignal.timeout(60_000))).rejects.toThrow(/would be open to anyone/);
    const proxy = await servingPlan({ join: false }, context(PROXY_SERVING, { listen: '0.0.0.0' }), () => undefined);
    expect(chainOf(proxy.wrap(resolveTarget('tcp://127.0.0.1:5901#serial', {})))[0]).toBe('tls-gate');
  });
});
