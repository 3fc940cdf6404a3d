/** What `run` throws; fails the test when it returns instead. For synchronous code (async: `failure`). */
export function thrownBy(run: () => unknown): unknown {
  try {
    run();
  } catch (err) {
    return err;
  }
  throw new Error('expected an error, but it returned');
}
