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
    const { dir } = ensureRuntimeDir({ env: { XDG_RUNTIME_DIR: xdg }, uid, tmpdir: scratch() });
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

  // Issue 36 item 7: TMPDIR/vconsole-UID is a name anyone can take first. Planted, it must not
  // switch joining off: the consoles move to a private directory of an unpredictable name that
  // every vconsole of the user finds through a file in their home.
  it('moves to a private directory when TMPDIR/vconsole-UID is unfit, and every later vconsole finds it', () => {
    const tmp = scratch();
    const home = scratch();
    const planted = path.join(tmp, `vconsole-${uid}`);
    fs.mkdirSync(planted, { mode: 0o700 });
    fs.chmodSync(planted, 0o777);
    const place = { env: {}, uid, tmpdir: tmp, home };
    const first = ensureRuntimeDir(place);
    expect(first.dir).not.toBe(planted);
    expect(path.dirname(first.dir)).toBe(tmp);
    expect(path.basename(first.dir)).toMatch(new RegExp(`^vconsole-${uid}-\\w{6}$`));
    expect(fs.statSync(first.dir).mode & 0o777).toBe(0o700);
    expect(first.notice).toBe(`${planted} is open to its group (mode 0777): holding consoles in ${first.dir} instead`);
    const pointer = path.join(home, '.local', 'state', 'vconsole', 'runtime-dir');
    expect(fs.statSync(pointer).mode & 0o777).toBe(0o600);
    made.push(first.dir);
    // The next command (and ps) meet there, without a word; the planted directory is left as it was.
    expect(ensureRuntimeDir(place)).toEqual({ dir: first.dir });
    expect(runtimeDirPath(place)).toBe(first.dir);
    expect(fs.statSync(planted).mode & 0o777).toBe(0o777);
  });

  it.skipIf(uid !== 0)('moves away from a TMPDIR/vconsole-UID another user planted (as root: chown)', () => {
    const tmp = scratch();
    const planted = path.join(tmp, `vconsole-${uid}`);
    fs.mkdirSync(planted, { mode: 0o700 });
    fs.chownSync(planted, 4242, 4242);
    const moved = ensureRuntimeDir({ env: { XDG_STATE_HOME: scratch() }, uid, tmpdir: tmp });
    made.push(moved.dir);
    expect(moved.notice).toBe(`${planted} belongs to uid 4242, not to you (uid ${uid}): holding consoles in ${moved.dir} instead`);
  });

  it("a runtime-dir file that is not the user's alone, or names an unfit directory, is not followed", () => {
    const tmp = scratch();
    const state = scratch();
    const elsewhere = scratch();
    fs.chmodSync(elsewhere, 0o755);
    fs.mkdirSync(path.join(state, 'vconsole'));
    fs.writeFileSync(path.join(state, 'vconsole', 'runtime-dir'), `${elsewhere}\n`, { mode: 0o600 });
    expect(runtimeDirPath({ env: { XDG_STATE_HOME: state }, uid, tmpdir: tmp })).toBe(path.join(tmp, `vconsole-${uid}`));
    fs.chmodSync(elsewhere, 0o700);
    expect(runtimeDirPath({ env: { XDG_STATE_HOME: state }, uid, tmpdir: tmp })).toBe(elsewhere);
    fs.chmodSync(path.join(state, 'vconsole', 'runtime-dir'), 0o666);
    expect(runtimeDirPath({ env: { XDG_STATE_HOME: state }, uid, tmpdir: tmp })).toBe(path.join(tmp, `vconsole-${uid}`));
  });
});
