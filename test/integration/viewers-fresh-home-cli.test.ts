import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runVconsole } from '../support/cli.js';
import { skipWithoutPrograms } from '../support/programs.js';

// `vconsole viewers` asks each viewer its version; Remmina's `--version` writes its settings
// (~/.config/remmina/remmina.pref) and cache and data directories. Asking must leave the home as it was.

const homes: string[] = [];
afterEach(() => {
  while (homes.length) fs.rmSync(homes.pop()!, { recursive: true, force: true });
});

describe.skipIf(skipWithoutPrograms(['remmina']))('viewers in a fresh home', () => {
  it('finds Remmina with its version and writes nothing in the home', async () => {
    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'vconsole-fresh-home-'));
    homes.push(home);
    const result = await runVconsole(['viewers'], { HOME: home });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/Remmina.*\d+\.\d+/);
    expect(fs.readdirSync(home)).toEqual([]);
  });
});
