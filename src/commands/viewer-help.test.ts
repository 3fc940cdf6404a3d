import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { VIEWER_ALIASES, VIEWER_CHOICES } from '../viewers/catalog.js';
import { addFlags } from './flags.js';

describe('--viewer help', () => {
  it('lists every name the catalog accepts, in its order', () => {
    const help = addFlags(new Command('open'), ['viewer']).helpInformation().replace(/\s+/g, ' ');
    expect(help).toContain(
      `viewer to use: ${VIEWER_CHOICES.join(', ')} (also as ${[...VIEWER_ALIASES.keys()].join(', ')}), or the path of an executable`,
    );
    expect(VIEWER_CHOICES).toEqual([
      'tigervnc',
      'remote-viewer',
      'realvnc',
      'tightvnc',
      'chicken',
      'screen-sharing',
      'remmina',
      'browser',
      'none',
    ]);
  });

  it('names the programs and virtctl words --viewer takes, each once', () => {
    expect([...VIEWER_ALIASES.keys()]).toEqual([
      'vncviewer',
      'xtigervncviewer',
      'tiger',
      'virt-viewer',
      'real',
      'xtightvncviewer',
      'tvnviewer',
    ]);
    expect(VIEWER_ALIASES.get('vncviewer')).toEqual(['tigervnc', 'realvnc', 'tightvnc']);
  });
});
