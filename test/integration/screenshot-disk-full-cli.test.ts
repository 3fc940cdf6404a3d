import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runVconsole } from '../support/cli.js';
import { mountTinyFilesystem, tinyFilesystemSkip } from '../support/tiny-filesystem.js';

// Issue 36 item 7: a screenshot onto a disk that filled left a truncated PNG where the picture
// was. Now the picture is written beside it and takes the name only once whole.

describe('screenshot onto a full disk', () => {
  it.skipIf(tinyFilesystemSkip)(
    `exits 1 with one line, leaves no partial file and the picture of before whole${tinyFilesystemSkip ? ` (skipped: ${tinyFilesystemSkip})` : ''}`,
    async () => {
      const disk = mountTinyFilesystem();
      try {
        const shot = path.join(disk.dir, 'shot.png');
        fs.writeFileSync(shot, 'the picture of before', { mode: 0o600 });
        disk.fill();
        const before = fs.readdirSync(disk.dir).sort();
        const result = await runVconsole(['screenshot', 'demo:vm-a', '-o', shot]);
        expect(result.code).toBe(1);
        expect(result.stderr.trim().split('\n')).toEqual([expect.stringContaining(`cannot write ${shot}: disk full`)]);
        expect(fs.readFileSync(shot, 'utf8')).toBe('the picture of before');
        expect(fs.readdirSync(disk.dir).sort()).toEqual(before);
      } finally {
        disk.unmount();
      }
    },
  );
});
