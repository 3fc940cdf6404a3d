import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { launchAddress } from './launch-page.js';

const URL_WITH_CODE = 'http://127.0.0.1:41234/p/one-time-code';

describe('what the browser is started on', () => {
  it.skipIf(process.platform === 'win32')('on Linux and macOS: a private file that sends it on, never the address', () => {
    const page = launchAddress(URL_WITH_CODE, 60_000, process.platform);
    try {
      expect(page.fileUrl).toMatch(/^file:\/\//);
      expect(page.fileUrl).not.toContain('one-time-code');
      const file = fileURLToPath(page.fileUrl);
      expect(fs.statSync(file).mode & 0o777).toBe(0o600);
      expect(fs.readFileSync(file, 'utf8')).toContain(URL_WITH_CODE);
    } finally {
      page.remove();
    }
  });

  it('on Windows: the address itself (no other user reads the command line; url.dll takes no Unix path)', () => {
    const page = launchAddress(URL_WITH_CODE, 60_000, 'win32');
    expect(page.fileUrl).toBe(URL_WITH_CODE);
    page.remove();
  });
});
