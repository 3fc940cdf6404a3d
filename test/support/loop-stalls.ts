// How long the event loop was held: what the bounded-work tests measure (conditions on a
// bound, not timed sleeps).
//
// A gap between two timer ticks counts only the CPU time this process spent in it: on a busy
// machine the scheduler can take the CPU away for a few hundred milliseconds, and that is not
// work the code under test did without yielding. Work done in one go still counts whole (it
// is CPU time), so a flood decoded in one turn shows as the seconds it takes.

import { ownCpuMs as cpuMs } from './cpu-time.js';

/** The longest the event loop went without running a timer, from now until stop(), counting only this process's CPU time in each gap. */
export function loopStalls(): { stop(): number } {
  let lastWall = performance.now();
  let lastCpu = cpuMs();
  let longest = 0;
  const gap = () => {
    const wall = performance.now();
    const cpu = cpuMs();
    // Other threads (GC helpers, zlib's pool) add CPU time too: a gap never counts more than it lasted.
    longest = Math.max(longest, Math.min(wall - lastWall, cpu - lastCpu));
    lastWall = wall;
    lastCpu = cpu;
  };
  const timer = setInterval(gap, 5);
  return {
    stop() {
      clearInterval(timer);
      gap();
      return longest;
    },
  };
}
