import { describe, expect, it } from 'vitest';
import { SessionRegistry } from '../../proxy/session-registry.js';
import { resolveTarget } from '../../targets/registry.js';
import { plainView, viewerEvent } from './views.js';

/* Without the TUI, the events open emits become plain lines on stderr: the ones a user reads there, and nothing for row facts. */

function collect() {
  let text = '';
  const stream = { write: (chunk: string) => ((text += chunk), true) } as unknown as NodeJS.WritableStream;
  return { io: { stdout: stream, stderr: stream, exit: () => undefined }, lines: () => text.split('\n').filter(Boolean) };
}

describe('the plain view', () => {
  it("prints a viewer's news, a notice and the no-viewer advice as lines, terminal-safe; row facts print nothing", () => {
    const registry = new SessionRegistry();
    const session = registry.add(resolveTarget('demo:vm-a', {}));
    const { io, lines } = collect();
    const view = plainView(registry, io, false);
    view.show(viewerEvent({ key: session.id, state: 'open', viewerName: 'TigerVNC' }));
    view.show(
      viewerEvent({
        key: session.id,
        state: 'failed',
        viewerName: 'TigerVNC',
        message: "TigerVNC exited at once with code 1: Can't open display",
      }),
    );
    view.show({ type: 'notice', text: 'a notice \u001b]52;c;x\u0007' });
    view.show({ type: 'no-viewer', notice: { lookedFor: ['TigerVNC'], install: 'sudo apt install tigervnc-viewer' } });
    view.show({ type: 'recording', sessionId: session.id, bytes: 1024 });
    view.show({ type: 'vm-state', sessionId: session.id, phase: 'Running' });
    view.show({ type: 'match', sessionId: session.id, matching: false });
    view.show({ type: 'serial', sessionId: session.id, status: { unseenBytes: 10 } });
    view.close();
    expect(lines()).toEqual([
      `[${session.name}] viewer: TigerVNC opened`,
      `[${session.name}] viewer failed: TigerVNC exited at once with code 1: Can't open display`,
      expect.stringMatching(/^a notice (?!.*\u001b)/),
      'no VNC viewer found (looked for TigerVNC).',
      'sudo apt install tigervnc-viewer',
      'Screens open in the browser meanwhile; any VNC viewer can connect to the addresses printed on stdout.',
    ]);
  });
});
