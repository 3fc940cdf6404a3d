import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { NOTICE_HOLD_MS, UpdateRequests, namedByQemu } from './update-requests.js';

/** The requests an UpdateRequests sent, 'full' or 'incremental', after each parser turn (microtasks). */
function recorder(serverName: string) {
  const sent: string[] = [];
  const requests = new UpdateRequests(serverName, (incremental) => sent.push(incremental ? 'incremental' : 'full'));
  const turnOver = () => vi.advanceTimersByTimeAsync(0);
  return { requests, sent, turnOver };
}

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('namedByQemu', () => {
  it("knows QEMU's two ServerInit names and nothing else", () => {
    expect(['QEMU', 'QEMU (default_vm-a)', 'QEMU (instance-0000002a)'].map(namedByQemu)).toEqual([true, true, true]);
    expect(['', 'QEMU2', 'qemu', 'Xvnc', 'vm-demo', 'x QEMU (a)'].map(namedByQemu)).toEqual([false, false, false, false, false, false]);
  });
});

describe('UpdateRequests', () => {
  it('asks for the whole screen first, and for one update after each turn that drew answers, however many', async () => {
    const { requests, sent, turnOver } = recorder('QEMU (vm)');
    requests.start();
    await turnOver();
    requests.answered(true);
    requests.answered(false);
    requests.answered(true);
    await turnOver();
    expect(sent).toEqual(['full', 'full']);
  });

  it("never answers QEMU's notices: its pending request brings the pixels, and a second one could lose them for good", async () => {
    const { requests, sent, turnOver } = recorder('QEMU (default_vm-a)');
    requests.start();
    await turnOver();
    // The key events' ack, the size's echo, then a mode change's new size: no request for any.
    requests.notice(true);
    requests.notice(true);
    requests.notice(false);
    await vi.advanceTimersByTimeAsync(NOTICE_HOLD_MS * 10);
    expect(sent).toEqual(['full']);
    requests.answered(true);
    await turnOver();
    expect(sent).toEqual(['full', 'incremental']);
  });

  it('learns from pixels that follow a notice unasked that the console keeps requests, and then answers no notice', async () => {
    const { requests, sent, turnOver } = recorder('vm-demo');
    requests.start();
    await turnOver();
    requests.notice(true);
    await vi.advanceTimersByTimeAsync(NOTICE_HOLD_MS - 1);
    expect(sent).toEqual(['full']);
    requests.answered(true);
    await turnOver();
    expect(sent).toEqual(['full', 'incremental']);
    requests.notice(false);
    await vi.advanceTimersByTimeAsync(NOTICE_HOLD_MS * 10);
    expect(sent).toEqual(['full', 'incremental']);
  });

  it('learns from silence after a notice that the notice was the answer (TigerVNC), and then answers notices at once', async () => {
    const { requests, sent, turnOver } = recorder('Xvnc');
    requests.start();
    await turnOver();
    requests.notice(true);
    // A new size while the request is held: the held request becomes a full one.
    requests.notice(false);
    await vi.advanceTimersByTimeAsync(NOTICE_HOLD_MS - 1);
    expect(sent).toEqual(['full']);
    await vi.advanceTimersByTimeAsync(1);
    expect(sent).toEqual(['full', 'full']);
    requests.notice(true);
    await turnOver();
    expect(sent).toEqual(['full', 'full', 'incremental']);
  });

  it('sends nothing once closed, held or due', async () => {
    const { requests, sent, turnOver } = recorder('Xvnc');
    requests.start();
    await turnOver();
    requests.notice(true);
    requests.answered(true);
    requests.close();
    await vi.advanceTimersByTimeAsync(NOTICE_HOLD_MS * 2);
    expect(sent).toEqual(['full']);
    const { requests: held, sent: heldSent } = recorder('Xvnc');
    held.notice(true);
    held.close();
    await vi.advanceTimersByTimeAsync(NOTICE_HOLD_MS * 2);
    expect(heldSent).toEqual([]);
  });
});
