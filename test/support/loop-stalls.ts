// How long the event loop was held: what the bounded-work tests measure (conditions on a
// bound, not timed sleeps).

/** The longest the event loop went without running a timer, from now until stop(). */
export function loopStalls(): { stop(): number } {
  let last = performance.now();
  let longest = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
  }, 5);
  return {
    stop() {
      clearInterval(timer);
      return Math.max(longest, performance.now() - last);
    },
  };
}
