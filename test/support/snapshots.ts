import type { SessionSnapshot } from '../../src/proxy/types.js';

/** A listening session's snapshot as the registry would publish it; override what a test needs. */
export function sessionSnapshot(id: number, overrides: Partial<SessionSnapshot> = {}): SessionSnapshot {
  return {
    id,
    name: `demo:vm-${id}`,
    provider: 'demo',
    state: 'listening',
    address: '127.0.0.1',
    port: 5900 + id,
    clients: 0,
    totalClients: 0,
    bytesIn: 0,
    bytesOut: 0,
    startedAt: Date.now(),
    ...overrides,
  };
}
