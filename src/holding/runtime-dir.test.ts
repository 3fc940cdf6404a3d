import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { RuntimeDirError, ensureRuntimeDir, runtimeDirPath } from './runtime-dir.js';

const uid = process.getuid?.() ?? 0;
const made: string[] = [];
afterEach(() => made.splice(0).forEach((dir) => fs.rmSync(dir, { recursive: true, force: true })));

function scratch(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vconsole-rundir-'));
  made.push(dir);
  return dir;
}

describe.skipIf(process.platform === 'win32')('the runtime directory', () => {
  it('is XDG_RUNTIME_DIR/vconsole when that directory is the user’s, created 0700', () => {
    const xdg = scratch();
    const dir = ensureRuntimeDir({ env: { XDG_RUNTIME_DIR: xdg }, uid, tmpdir: scratch() });
    expect(dir).toBe(path.join(xdg, 'vconsole'));
    expect(fs.statSync(dir).mode & 0o777).toBe(0o700);
  });

  it('is TMPDIR/vconsole-UID without XDG_RUNTIME_DIR, or when it belongs to someone else', () => {
    const tmp = scratch();
    expect(runtimeDirPath({ env: {}, uid, tmpdir: tmp })).toBe(path.join(tmp, `vconsole-${uid}`));
    // Owned by uid (the test's), asked for another uid: not that user's, so not used.
    expect(runtimeDirPath({ env: { XDG_RUNTIME_DIR: scratch() }, uid: uid + 1, tmpdir: tmp })).toBe(path.join(tmp, `vconsole-${uid + 1}`));
    expect(runtimeDirPath({ env: { XDG_RUNTIME_DIR: 'relative/dir' }, uid, tmpdir: tmp })).toBe(path.join(tmp, `vconsole-${uid}`));
  });

  it('refuses a directory others may enter, in one line that says what to do', () => {
    const tmp = scratch();
    const dir = path.join(tmp, `vconsole-${uid}`);
    fs.mkdirSync(dir, { mode: 0o700 });
    fs.chmodSync(dir, 0o755);
    const thrown = (() => {
      try {
        ensureRuntimeDir({ env: {}, uid, tmpdir: tmp });
      } catch (err) {
        return err;
      }
    })();
    expect(thrown).toBeInstanceOf(RuntimeDirError);
    expect((thrown as RuntimeDirError).message).toBe(`not sharing consoles between vconsoles: ${dir} is open to its group (mode 0755)`);
    expect((thrown as RuntimeDirError).hint).toBe(`chmod 700 ${dir}`);
    // Refused, not changed.
    expect(fs.statSync(dir).mode & 0o777).toBe(0o755);
  });

  it('refuses a directory someone else owns', () => {
    const tmp = scratch();
    fs.mkdirSync(path.join(tmp, `vconsole-${uid + 1}`), { mode: 0o700 });
    // The directory is the test's (uid), asked for by uid + 1: someone else's.
    expect(() => ensureRuntimeDir({ env: {}, uid: uid + 1, tmpdir: tmp })).toThrow(`belongs to uid ${uid}, not to you (uid ${uid + 1})`);
  });

  it('refuses a symbolic link planted in its place, without following it', () => {
    const tmp = scratch();
    const elsewhere = scratch();
    fs.chmodSync(elsewhere, 0o700);
    fs.symlinkSync(elsewhere, path.join(tmp, `vconsole-${uid}`));
    expect(() => ensureRuntimeDir({ env: {}, uid, tmpdir: tmp })).toThrow(/is a symbolic link, which vconsole does not follow/);
  });

  it('refuses a file in its place', () => {
    const tmp = scratch();
    fs.writeFileSync(path.join(tmp, `vconsole-${uid}`), '');
    expect(() => ensureRuntimeDir({ env: {}, uid, tmpdir: tmp })).toThrow(/is not a directory/);
  });
});
