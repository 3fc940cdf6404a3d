import { describe, expect, it } from 'vitest';
import { redactSecrets, safeTargetText } from '../errors.js';
import { maskUrlPaths, safeUrlText } from './url-text.js';

const TOKEN = 'a3F9c0ffee12b7D4e5f60718293a4b5c6d7e8f90';

describe('URLs shown to the user', () => {
  it('masks a token in the path, keeping scheme, host, port and the readable segments', () => {
    expect(safeUrlText(new URL(`ws://127.0.0.1:6080/websockify/${TOKEN}?token=x#y`))).toBe('ws://127.0.0.1:6080/websockify/***');
    expect(safeUrlText(new URL('wss://u:pw@[::1]:443/api/v1/ticket/3fa85f64-5717-4562-b3fc-2c963f66afa6'))).toBe(
      'wss://[::1]/api/v1/ticket/***',
    );
  });

  it('leaves Kubernetes and noVNC paths readable', () => {
    const path = 'https://api:6443/apis/subresources.kubevirt.io/v1/namespaces/default/virtualmachineinstances/vm-a/vnc';
    expect(maskUrlPaths(path)).toBe(path);
    expect(maskUrlPaths('http://h:6080/vnc_lite.html')).toBe('http://h:6080/vnc_lite.html');
  });

  it('masks path tokens in free text, and in what the user typed', () => {
    expect(redactSecrets(`cannot open wss://proxy.example/console/${TOKEN}: refused`)).toBe(
      'cannot open wss://proxy.example/console/***: refused',
    );
    expect(safeTargetText(`ws://127.0.0.1:1/websockify/${TOKEN}`)).toBe('ws://127.0.0.1:1/websockify/***');
  });

  it("takes linear time over an API answer's long dotted run (a hostile one held the loop for seconds)", () => {
    const run = 'a.'.repeat(100_000);
    const started = process.cpuUsage();
    expect(maskUrlPaths(`said: ${run} see https://h/${TOKEN}`)).toBe(`said: ${run} see https://h/***`);
    const spent = process.cpuUsage(started);
    // CPU time, not wall time (a busy machine's scheduler is not the regex). Quadratic, this
    // run costs some ten seconds; linear, a few milliseconds.
    expect((spent.user + spent.system) / 1000, 'CPU ms').toBeLessThan(1000);
  });
});
