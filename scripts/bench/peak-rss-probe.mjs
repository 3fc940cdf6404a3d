// Loaded into a bench's vconsole with `node --import` (never into vconsole itself): as the
// process exits, writes its peak resident set (getrusage's ru_maxrss, KiB) to $VCONSOLE_BENCH_PEAK_RSS_OUT.
import { writeFileSync } from 'node:fs';

process.on('exit', () => writeFileSync(process.env.VCONSOLE_BENCH_PEAK_RSS_OUT, String(process.resourceUsage().maxRSS)));
