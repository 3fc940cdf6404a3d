import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { ConsoleRefusedError } from '../../errors.js';
import type { ConsoleSession } from '../../proxy/console-session.js';
import type { SessionRegistry } from '../../proxy/session-registry.js';
import type { RfbHub } from '../../rfb/hub/hub.js';
import type { ConsoleEvent } from '../../tui/state/events.js';
import type { ViewerRouter } from '../../viewers/viewer-router.js';
import type { Recording } from '../record-flags.js';
import type { Sharing } from '../sharing.js';
import { SessionFollowUps } from './follow-ups.js';
import type { OpenView } from './views.js';

describe('SessionFollowUps', () => {
  it("tells the view a shared console's drop, its return, and its end for good with the reason", () => {
    const hub = new EventEmitter();
    const shown: ConsoleEvent[] = [];
    const session = Object.assign(new EventEmitter(), { id: 4, source: {}, log: () => undefined }) as unknown as ConsoleSession;
    const followUps = new SessionFollowUps(
      {
        view: () => ({ show: (event: ConsoleEvent) => shown.push(event) }) as unknown as OpenView,
        sharing: { follow: () => undefined, hubOf: () => hub as unknown as RfbHub } as unknown as Sharing,
        recording: { recorderOf: () => undefined } as unknown as Recording,
        logDir: undefined,
        tiles: 'none',
        runsAgain: () => Promise.resolve(),
      },
      new EventEmitter() as unknown as SessionRegistry,
      new EventEmitter() as unknown as ViewerRouter,
    );
    followUps.track(session);
    hub.emit('state', 'reconnecting');
    hub.emit('state', 'live');
    hub.emit('state', 'reconnecting');
    hub.emit('state', 'ended');
    hub.emit('ended', new ConsoleRefusedError('connection to jump lost', { hint: 'with --wait vconsole connects again' }));
    expect(shown.filter((event) => event.type === 'upstream').map((event) => event.status)).toEqual([
      { reconnecting: true },
      { reconnecting: false },
      { reconnecting: true },
      { reconnecting: false, ended: 'connection to jump lost; with --wait vconsole connects again' },
    ]);
  });
});
