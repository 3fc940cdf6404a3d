import type { Duplex } from 'node:stream';

/** The first `n` bytes a stream produces; rejects if it ends or fails first. */
export function readBytes(stream: Duplex, n: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    let got = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      got = Buffer.concat([got, chunk]);
      if (got.length >= n) {
        stream.off('data', onData);
        resolve(got.subarray(0, n));
      }
    };
    stream.on('data', onData);
    stream.once('error', reject);
    stream.once('end', () => reject(new Error(`ended after ${got.length} bytes`)));
  });
}

/** The error a promise rejects with; fails the test if it resolves. */
export async function failure(promise: Promise<unknown>): Promise<Error> {
  const result = await promise.then(
    () => undefined,
    (err: unknown) => err as Error,
  );
  if (!result) throw new Error('expected a failure');
  return result;
}

/** Everything a stream sends until it ends, as text. */
export function readToEnd(stream: Duplex): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    stream.on('data', (chunk: Buffer) => (text += chunk.toString()));
    stream.once('end', () => resolve(text));
    stream.once('error', reject);
  });
}
