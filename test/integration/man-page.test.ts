// vconsole(1) (src/commands/man-page.ts, written by scripts/packaging/man-page.mjs): man renders
// it without a warning, and it names every command and every flag that the built CLI's --help and
// --help-all print, found by walking them (no list kept here). Needs `npm run build`.
import { execFileSync, spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const vconsole = (args: string[]) => execFileSync(process.execPath, [path.join(ROOT, 'bin/vconsole.js'), ...args], { encoding: 'utf8' });
const page = execFileSync(process.execPath, [path.join(ROOT, 'scripts/packaging/man-page.mjs')], { encoding: 'utf8' });
/** The page's words as a reader sees them: roff's escaped hyphens, break points and fonts undone. */
const plain = page
  .replace(/\\-/g, '-')
  .replace(/\\:/g, '')
  .replace(/\\f[BIR]/g, '')
  .replace(/\\e/g, '\\');

/** The lines of a help section (`Commands:`, `Options:`) that start an entry. */
function entries(help: string, section: string): string[] {
  const lines = help.split('\n');
  const start = lines.indexOf(`${section}:`);
  if (start < 0) return [];
  const end = lines.findIndex((line, at) => at > start && line === '');
  return lines.slice(start + 1, end < 0 ? undefined : end).filter((line) => /^ {2}\S/.test(line));
}

/** Every command path and flag that --help and --help-all print, from the top down. */
function walk(words: string[] = [], found = { commands: [] as string[], flags: [] as string[] }) {
  // --help-all where a command takes it (not the top level, not completion), else --help.
  const all = spawnSync(process.execPath, [path.join(ROOT, 'bin/vconsole.js'), ...words, '--help-all'], { encoding: 'utf8' });
  const help = all.status === 0 ? all.stdout : vconsole([...words, '--help']);
  for (const line of entries(help, 'Options')) {
    for (const flag of line
      .trim()
      .split(/\s{2,}/)[0]
      .match(/--?[\w-]+/g) ?? []) {
      if (flag !== '-h' && flag !== '--help' && flag !== '--help-all') found.flags.push(`${words.join(' ')}: ${flag}`);
    }
  }
  for (const line of entries(help, 'Commands')) {
    const name = line.trim().split(/[\s|]/)[0];
    if (name === 'help') continue;
    found.commands.push([...words, name].join(' '));
    walk([...words, name], found);
  }
  return found;
}

describe('the man page', () => {
  it('renders with man and groff without a warning', () => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'vconsole-man-')), 'vconsole.1');
    writeFileSync(file, page);
    const man = spawnSync('man', ['--warnings', '-l', file], {
      encoding: 'utf8',
      env: { ...process.env, MANWIDTH: '80', MANPAGER: 'cat' },
    });
    expect(man.stderr).toBe('');
    expect(man.status).toBe(0);
    expect(man.stdout).toMatch(/^VCONSOLE\(1\)/);
    const groff = spawnSync('groff', ['-man', '-Tutf8', '-ww', '-z', file], { encoding: 'utf8' });
    expect(groff.stderr).toBe('');
  });

  it('names every command and every flag --help and --help-all print', () => {
    const { commands, flags } = walk();
    expect(commands).toContain('open');
    expect(flags.length).toBeGreaterThan(50);
    const sections = plain.split('\n.SS ');
    for (const command of commands) expect(sections.some((section) => section.startsWith(`${command}\n`))).toBe(true);
    for (const entry of flags) {
      const [command, flag] = entry.split(': ') as [string, string];
      const section = command ? sections.find((text) => text.startsWith(`${command}\n`))! : sections[0];
      expect(section, entry).toMatch(new RegExp(`(^|[\\s,])${flag}\\b`, 'm'));
    }
  });
});
