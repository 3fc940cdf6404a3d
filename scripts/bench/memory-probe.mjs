// Loaded into a bench's proxy with `node --expose-gc --import` (never into vconsole itself): on
// SIGUSR2 it collects garbage and writes process.memoryUsage() as JSON to $VCONSOLE_BENCH_MEMORY_OUT,
// so the bench can say where the proxy's RSS is: the JS heap, array buffers (the hub's framebuffers,
// sockets' and zlib's buffers), and the rest (native: malloc's heap, code, stacks).
import { writeFileSync } from 'node:fs';

process.on('SIGUSR2', () => {
  if (typeof globalThis.gc === 'function') globalThis.gc();
  writeFileSync(process.env.VCONSOLE_BENCH_MEMORY_OUT, JSON.stringify(process.memoryUsage()));
});
