import { describe, expect, it } from 'vitest';
import { buildProgram, programName } from '../../cli.js';
import { flagsAfterVerb } from './flags-before-verb.js';

describe("kubectl's flag positions: a command's flags before the verb", () => {
  const program = buildProgram(undefined, false);
  const moved = (line: string) => flagsAfterVerb(program, line.split(' ')).join(' ');

  it('are moved to just after it, values and all, in their order', () => {
    expect(moved('-n prod --context lab list -A')).toBe('list -n prod --context lab -A');
    expect(moved('--kubeconfig=/k/config -n prod open vm-a')).toBe('open --kubeconfig=/k/config -n prod vm-a');
    expect(moved('--as jane --as-group ops console vm-a')).toBe('console --as jane --as-group ops vm-a');
  });

  it("leave the program's own flags where they are", () => {
    expect(moved('--verbose -n prod list')).toBe('--verbose list -n prod');
    expect(moved('--config /c.yaml list')).toBe('--config /c.yaml list');
  });

  it('leave a line alone that has none, no verb, an unknown flag, or a flag after --', () => {
    expect(moved('list -n prod')).toBe('list -n prod');
    expect(moved('-n prod')).toBe('-n prod');
    expect(moved('--bogus list -n prod')).toBe('--bogus list -n prod');
    expect(moved('-n prod vm-a')).toBe('-n prod vm-a');
  });
});

describe('the name vconsole answers to', () => {
  it('is `kubectl vconsole` run as kubectl runs a plugin, by the npm launcher or the single executable', () => {
    expect(programName(['/usr/bin/node', '/usr/local/bin/kubectl-vconsole'], 'node')).toBe('kubectl vconsole');
    expect(programName(['/opt/vconsole', '/opt/vconsole'], '/usr/local/bin/kubectl-vconsole')).toBe('kubectl vconsole');
    expect(programName(['C:\\\\vconsole.exe', 'C:\\\\vconsole.exe'], 'kubectl-vconsole.exe')).toBe('kubectl vconsole');
    expect(programName(['/usr/bin/node', '/usr/local/bin/vconsole'], 'node')).toBe('vconsole');
  });
});
