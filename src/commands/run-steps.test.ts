import { describe, expect, it } from 'vitest';
import { UsageError } from '../errors.js';
import { parseStepFile } from './run-steps.js';

/** The one usage line a bad file gives (message and hint). */
function problem(source: string): string {
  try {
    parseStepFile('boot.yaml', source);
  } catch (err) {
    expect(err).toBeInstanceOf(UsageError);
    return (err as UsageError).message;
  }
  throw new Error('the file was taken');
}

describe('the step file of vconsole run', () => {
  it('reads every kind of step, a timeout beside one, and where each is', () => {
    const steps = parseStepFile(
      'boot.yaml',
      [
        '# a Packer-style boot menu',
        '- wait: "boot:"',
        '  timeout: 10m',
        '- send: [esc, tab]',
        '- send: ctrl-alt-delete',
        '- type: "linux inst.ks=http://10.0.0.1/ks.cfg\\n"',
        '- sleep: 2s',
        '- sleep: 1.5',
        '- screenshot: "{target}-menu.png"',
        '- power: Reset',
      ].join('\n'),
    );
    expect(steps.map((step) => step.kind)).toEqual(['wait', 'send', 'send', 'type', 'sleep', 'sleep', 'screenshot', 'power']);
    expect(steps[0]).toEqual({ kind: 'wait', pattern: /boot:/, line: 2, timeoutMs: 600_000 });
    expect(steps[1]).toMatchObject({ kind: 'send', line: 4, keys: [{ kind: 'chord' }, { kind: 'chord' }] });
    expect(steps[2]).toMatchObject({ kind: 'send', keys: [{ kind: 'chord', chord: { text: 'ctrl-alt-delete' } }] });
    expect(steps[3]).toEqual({ kind: 'type', text: 'linux inst.ks=http://10.0.0.1/ks.cfg\n', line: 6 });
    expect(steps[4]).toMatchObject({ ms: 2000 });
    expect(steps[5]).toMatchObject({ ms: 1500 });
    expect(steps[6]).toMatchObject({ file: '{target}-menu.png' });
    expect(steps[7]).toMatchObject({ action: 'reset', line: 10 });
  });

  it('names FILE:LINE:COLUMN and what to do for each kind of bad file', () => {
    expect(problem('- wait: "login:\n')).toMatch(/^boot\.yaml:\d+:\d+: not YAML: /);
    expect(problem('wait: x\n')).toMatch(/^boot\.yaml:1:1: the file is not a list of steps$/);
    expect(problem('[]\n')).toMatch(/^boot\.yaml:1:1: the file has no steps$/);
    expect(problem('- sleep: 1s\n- typo: x\n')).toBe('boot.yaml:2:3: "typo" is no step');
    expect(problem('- sleep: 1s\n- just a string\n')).toBe('boot.yaml:2:3: a step must be a map such as - sleep: 2s');
    expect(problem('- type: a\n  send: [esc]\n')).toBe('boot.yaml:2:3: a step does one thing: type and send together');
    expect(problem('- timeout: 5s\n')).toBe('boot.yaml:1:3: the step says what to do only with timeout:');
    expect(problem('- sleep: 1s\n- sleep: soon\n')).toBe('boot.yaml:2:10: sleep takes a duration');
    expect(problem('- wait: x\n  timeout: 0s\n')).toBe('boot.yaml:2:12: timeout is no time at all');
    expect(problem('- send: [esc, ctrl-nokey]\n')).toMatch(/^boot\.yaml:1:15: .*nokey/);
    expect(problem('- wait: "(("\n')).toMatch(/^boot\.yaml:1:9: wait: .* is not a regular expression/);
    expect(problem('- wait: ""\n')).toBe('boot.yaml:1:9: wait takes a string');
    expect(problem('- type: 42\n')).toBe('boot.yaml:1:9: type takes a string');
    expect(problem('- power: explode\n')).toBe('boot.yaml:1:10: "explode" is no power action');
    expect(problem('- screenshot: [a]\n')).toBe('boot.yaml:1:15: screenshot takes a string');
  });

  it('gives the hint of what to do with the line', () => {
    try {
      parseStepFile('f.yaml', '- typo: x\n');
    } catch (err) {
      expect((err as UsageError).hint).toMatch(/each step is one of type, send, wait, sleep, screenshot, power/);
    }
  });
});
