import { vi } from 'vitest';
import type { ConsoleActions } from '../../src/tui/components/app.js';

/**
 * Waits for a frame condition. React commits Ink's frames a few event-loop turns after a key
 * or store flush, so this polls on setImmediate (never faked in the TUI tests) with a real deadline.
 */
export async function until(condition: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!condition()) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** Lets pending React work (effects, commits) run: for asserting that nothing more happens. */
export async function settle(turns = 20): Promise<void> {
  for (let i = 0; i < turns; i++) await new Promise((resolve) => setImmediate(resolve));
}

/** ConsoleActions whose every action is a spy. */
export function fakeActions() {
  return {
    onOpenViewer: vi.fn(),
    onAttach: vi.fn(),
    onRetry: vi.fn(),
    onClose: vi.fn(),
    onScreenshot: vi.fn((sessionId: number) => Promise.resolve(`saved screenshot of session ${sessionId}`)),
    onAdd: vi.fn(),
    onQuit: vi.fn(),
  } satisfies ConsoleActions;
}
