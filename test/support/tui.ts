import { vi } from 'vitest';
import type { ConsoleHandlers } from '../../src/tui/state/requests.js';

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

/** A handler for every request of the TUI, each a spy. */
export function fakeHandlers() {
  return {
    open: vi.fn(),
    attach: vi.fn(),
    retry: vi.fn(),
    close: vi.fn(),
    screenshot: vi.fn(({ sessionId }: { sessionId: number }) => Promise.resolve(`saved screenshot of session ${sessionId}`)),
    add: vi.fn(),
    'save-workspace': vi.fn(({ name }: { name: string }) => Promise.resolve(`saved workspace ${name}`)),
    paste: vi.fn(),
    'send-key': vi.fn(),
    power: vi.fn(),
    'broadcast-end': vi.fn(),
    quit: vi.fn(),
  } satisfies ConsoleHandlers;
}
