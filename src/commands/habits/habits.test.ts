// kubectl's and virtctl's spellings, each mapped onto what vconsole means by it.
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../errors.js';
import { withForeignFlagHint } from './foreign-flags.js';
import { isVerbose, parseVerbosityLevel, rewriteKubectlVerbosity } from './kubectl-verbosity.js';
import { consoleWaitFromTimeout, parseMinutes, vncAsVconsole } from './virtctl.js';

describe("kubectl's -v N", () => {
  it('reads -v 4, -v=4, -v4 and --v=4 as a level, leaving -v before a target and words after -- alone', () => {
    expect(rewriteKubectlVerbosity(['open', '-v', '4', 'vm-a'])).toEqual(['open', '--v=4', 'vm-a']);
    expect(rewriteKubectlVerbosity(['-v=2', 'list', '-v6'])).toEqual(['--v=2', 'list', '--v=6']);
    expect(rewriteKubectlVerbosity(['--v=4', 'list'])).toEqual(['--v=4', 'list']);
    expect(rewriteKubectlVerbosity(['open', '-v', 'vm-a'])).toEqual(['open', '-v', 'vm-a']);
    expect(rewriteKubectlVerbosity(['open', '-v'])).toEqual(['open', '-v']);
    expect(rewriteKubectlVerbosity(['complete', '--', 'open', '-v', '4'])).toEqual(['complete', '--', 'open', '-v', '4']);
  });

  it('is --verbose from level 4, as kubectl shows debug output from there', () => {
    expect([0, 3, 4, 9].map((v) => isVerbose({ v }))).toEqual([false, false, true, true]);
    expect(isVerbose({ verbose: true })).toBe(true);
    expect(isVerbose({})).toBe(false);
    expect(parseVerbosityLevel('7')).toBe(7);
    expect(() => parseVerbosityLevel('high')).toThrow(UsageError);
  });
});

describe("virtctl's vnc", () => {
  it('is open --type vnc, with --port, --address and --vnc-type/--vnc-path as vconsole spells them', () => {
    expect(vncAsVconsole(['vm-a', '--context', 'prod'], {})).toEqual(['open', '--type', 'vnc', 'vm-a', '--context', 'prod']);
    expect(vncAsVconsole(['vm-a'], { port: 5901, address: '0.0.0.0', vncType: 'tiger' })).toEqual([
      'open',
      '--type',
      'vnc',
      '--port',
      '5901',
      '--listen',
      '0.0.0.0',
      '--viewer',
      'tiger',
      'vm-a',
    ]);
    expect(vncAsVconsole(['vm-a'], { vncType: 'tiger', vncPath: '/opt/tiger/vncviewer' })).toContain('/opt/tiger/vncviewer');
  });

  it('is proxy --type vnc with --proxy-only, where a viewer flag means nothing', () => {
    expect(vncAsVconsole(['vm-a'], { proxyOnly: true, port: 5901 })).toEqual(['proxy', '--type', 'vnc', '--port', '5901', 'vm-a']);
    expect(() => vncAsVconsole(['vm-a'], { proxyOnly: true, vncType: 'tiger' })).toThrow(UsageError);
  });
});

describe("virtctl's console --timeout", () => {
  it('counts minutes as virtctl does, and becomes --wait', () => {
    expect(parseMinutes('5')).toBe('5m');
    expect(parseMinutes('90s')).toBe('90s');
    expect(() => parseMinutes('soon')).toThrow(UsageError);
    expect(consoleWaitFromTimeout({ timeout: '5m' })).toEqual({ timeout: '5m', wait: '5m' });
    expect(consoleWaitFromTimeout({ wait: '1m' })).toEqual({ wait: '1m' });
    expect(() => consoleWaitFromTimeout({ timeout: '5m', wait: '1m' })).toThrow(UsageError);
  });
});

describe('unknown virtctl and kubectl flags', () => {
  it("get vconsole's spelling, for a near miss too, and other unknown options stay as commander said", () => {
    expect(withForeignFlagHint("unknown option '--address'")).toBe("unknown option '--address' (Did you mean --listen?)");
    expect(withForeignFlagHint("unknown option '--vnc-type=tiger'")).toBe("unknown option '--vnc-type=tiger' (Did you mean --viewer?)");
    expect(withForeignFlagHint("unknown option '--proxy-onyl'")).toBe(
      "unknown option '--proxy-onyl' (Did you mean --proxy-only? here that is vconsole vnc --proxy-only, or vconsole proxy)",
    );
    expect(withForeignFlagHint("unknown option '--frobnicate'")).toBe("unknown option '--frobnicate'");
    expect(withForeignFlagHint("unknown option '--sahre' (Did you mean --share?)")).toBe(
      "unknown option '--sahre' (Did you mean --share?)",
    );
  });

  it("name a flag only where the command has it, and win over commander's guess by spelling", () => {
    const open = (flag: string) => ['--listen', '--viewer', '--context'].includes(flag);
    const list = (flag: string) => flag === '--context';
    expect(withForeignFlagHint("unknown option '--address'", open)).toBe("unknown option '--address' (Did you mean --listen?)");
    // list has no --listen: no hint rather than a flag list refuses too.
    expect(withForeignFlagHint("unknown option '--address'", list)).toBe("unknown option '--address'");
    // A hint that names a command stays wherever it is typed.
    expect(withForeignFlagHint("unknown option '--proxy-only'", list)).toBe(
      "unknown option '--proxy-only' (Did you mean vconsole vnc --proxy-only, or vconsole proxy?)",
    );
    // kubectl's -o where it is not (open, proxy); another short flag is no near miss of it.
    expect(withForeignFlagHint("unknown option '-o'", open)).toBe("unknown option '-o' (Did you mean -o on vconsole list and viewers?)");
    expect(withForeignFlagHint("unknown option '-w'", open)).toBe("unknown option '-w'");
    // commander guesses --listen for kubectl's --cluster by its letters; it means --context.
    expect(withForeignFlagHint("unknown option '--cluster' (Did you mean --listen?)", open)).toBe(
      "unknown option '--cluster' (Did you mean --context?)",
    );
  });
});
