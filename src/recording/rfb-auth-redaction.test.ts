import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { RfbAuthRedaction } from './rfb-auth-redaction.js';

const u32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n);
  return b;
};

/** One handshake as turns (who, bytes), and the challenge and answer in it. */
function handshake(version: '3.3' | '3.8', type = 2) {
  const challenge = randomBytes(16);
  const response = randomBytes(16);
  const turns: ['S' | 'C', Buffer][] =
    version === '3.3'
      ? [
          ['S', Buffer.from('RFB 003.003\n')],
          ['C', Buffer.from('RFB 003.003\n')],
          ['S', Buffer.concat([u32(type), type === 2 ? challenge : Buffer.alloc(0)])],
        ]
      : [
          ['S', Buffer.from('RFB 003.008\n')],
          ['C', Buffer.from('RFB 003.008\n')],
          ['S', Buffer.from([2, 1, 2])],
          ['C', Buffer.from([type])],
          ...(type === 2 ? ([['S', challenge]] as ['S', Buffer][]) : []),
        ];
  if (type === 2) turns.push(['C', response]);
  turns.push(['S', u32(0)], ['C', Buffer.from([1])], ['S', Buffer.from('server init and pictures')]);
  return { turns, challenge, response };
}

/** Feeds the turns, each cut into `piece`-byte chunks, and returns both recorded streams. */
function record(turns: ['S' | 'C', Buffer][], piece: number) {
  const redaction = new RfbAuthRedaction();
  const out = { S: [] as Buffer[], C: [] as Buffer[] };
  for (const [who, bytes] of turns) {
    for (let at = 0; at < bytes.length; at += piece) {
      const chunk = bytes.subarray(at, at + piece);
      out[who].push(who === 'S' ? redaction.fromServer(chunk) : redaction.fromClient(chunk));
    }
  }
  return {
    S: Buffer.concat(out.S),
    C: Buffer.concat(out.C),
    sent: {
      S: Buffer.concat(turns.filter(([w]) => w === 'S').map(([, b]) => b)),
      C: Buffer.concat(turns.filter(([w]) => w === 'C').map(([, b]) => b)),
    },
  };
}

describe('RfbAuthRedaction', () => {
  for (const version of ['3.3', '3.8'] as const) {
    for (const piece of [1, 5, 1000]) {
      it(`records RFB ${version}'s challenge and answer as zeros, the rest unchanged (chunks of ${piece})`, () => {
        const { turns, challenge, response } = handshake(version);
        const { S, C, sent } = record(turns, piece);
        expect(S.indexOf(challenge)).toBe(-1);
        expect(C.indexOf(response)).toBe(-1);
        expect(S.length).toBe(sent.S.length);
        expect(S.subarray(S.length - 24).toString()).toBe('server init and pictures');
        const at = sent.S.indexOf(challenge);
        expect(S.subarray(0, at)).toEqual(sent.S.subarray(0, at));
        expect(S.subarray(at, at + 16)).toEqual(Buffer.alloc(16));
        expect(C.subarray(C.length - 1)).toEqual(Buffer.from([1]));
      });
    }
  }

  it('passes a handshake without VNC authentication unchanged', () => {
    const { turns } = handshake('3.8', 1);
    const { S, C, sent } = record(turns, 3);
    expect(S).toEqual(sent.S);
    expect(C).toEqual(sent.C);
  });
});
