import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The README is what a newcomer reads top to bottom: short, its quick start made of commands
// that exist (CI runs its `npm test`), and every link and picture in it and in the docs it sends
// people to pointing at something that is there.

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');
const DOCS = ['README.md', 'docs/COMMANDS.md', 'docs/DEVELOPING.md'];

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
function anchorOf(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');
}

/** The anchors of a markdown file's headings (outside code blocks). */
function anchors(markdown: string): Set<string> {
  const withoutCode = markdown.replace(/```[\s\S]*?```/g, '');
  return new Set([...withoutCode.matchAll(/^#{1,6} (.+)$/gm)].map((match) => anchorOf(match[1].trim())));
}

/** The relative links and images of a markdown file, outside code. */
function links(markdown: string): string[] {
  const withoutCode = markdown.replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '');
  return [...withoutCode.matchAll(/!?\[[^\]]*\]\(([^)\s]+)\)/g)].map((match) => match[1]).filter((href) => !/^[a-z]+:/.test(href));
}

describe('the README', () => {
  const readme = read('README.md');

  it('stays under 250 lines', () => {
    expect(readme.split('\n').length).toBeLessThan(250);
  });

  it('has a quick start whose commands are npm scripts, the tests being what CI runs', () => {
    const quickStart = readme.split('\n## Quick start\n')[1]?.split('\n## ')[0] ?? '';
    const commands = [...quickStart.matchAll(/^npm .*$/gm)].map((match) => match[0].replace(/\s+#.*$/, ''));
    expect(commands).toEqual(['npm install && npm run demo', 'npm test']);
    const scripts = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts;
    expect(scripts.demo).toMatch(/demo:/);
    expect(scripts.test).toBeDefined();
    expect(read('.ci/run')).toMatch(/^(?:[A-Z_0-9]+=\S+ )*npm test\b/m);
  });

  it('shows the pictures the pictures script makes', () => {
    const pictures = links(readme).filter((href) => href.endsWith('.png'));
    expect(pictures.sort()).toEqual(['docs/pictures/browser-viewer.png', 'docs/pictures/grid.png', 'docs/pictures/table.png']);
    expect(read('scripts/pictures.ts')).toMatch(/'table\.png'[\s\S]*'browser-viewer\.png'[\s\S]*'grid\.png'/);
  });
});

describe('the links of the README and the docs it points to', () => {
  for (const file of DOCS) {
    it(`${file}: every relative link and #anchor exists`, () => {
      const broken: string[] = [];
      for (const href of links(read(file))) {
        const [path, anchor] = href.split('#');
        const target = path ? join(dirname(file), path) : file;
        if (!existsSync(join(ROOT, target))) broken.push(`${href} (no ${target})`);
        else if (anchor && target.endsWith('.md') && !anchors(read(target)).has(anchor)) broken.push(`${href} (no heading #${anchor})`);
      }
      expect(broken).toEqual([]);
    });
  }
});
