import { describe, expect, it } from 'vitest';
import { locateFramebuffer, parsePpm, showsFramebuffer, type RgbImage } from './support/images.js';
import { parseListeningSockets } from './support/net.js';
import { missingToolsReason } from './support/tools.js';
import { parsePortLines } from './support/vconsole.js';
import { parseVncSnapshotLog } from './support/vncsnapshot.js';
import { tokenFileText } from './support/websockify.js';
import { parseWindowTree } from './support/xvfb.js';

// The suite's own judgement, without any real program: if these read the tools' output wrong,
// the end-to-end tests would pass or fail for the wrong reason.

function blank(width: number, height: number, value = 0): RgbImage {
  return { width, height, pixels: Buffer.alloc(width * height * 3, value) };
}

function paint(image: RgbImage, x: number, y: number, grey = 0xaa): void {
  image.pixels.fill(grey, (y * image.width + x) * 3, (y * image.width + x) * 3 + 3);
}

/** A 40x20 "screen" with three short text strokes, like BIOS text. */
function textScreen(): RgbImage {
  const image = blank(40, 20);
  for (let x = 2; x < 30; x++) paint(image, x, 2);
  for (let x = 2; x < 20; x += 2) paint(image, x, 6);
  for (let y = 10; y < 16; y++) paint(image, 5, y);
  return image;
}

function placeOn(screen: RgbImage, picture: RgbImage, left: number, top: number): void {
  for (let y = 0; y < picture.height; y++) {
    picture.pixels.copy(screen.pixels, ((top + y) * screen.width + left) * 3, y * picture.width * 3, (y + 1) * picture.width * 3);
  }
}

describe('locateFramebuffer: is the VM screen in the window?', () => {
  it('finds the VM screen drawn 1:1 inside the window, at its offset', () => {
    const screen = blank(120, 80);
    placeOn(screen, textScreen(), 33, 17);
    const match = locateFramebuffer(screen, textScreen(), { x: 30, y: 10, width: 60, height: 40 });
    expect(match).toMatchObject({ x: 33, y: 17, textMatch: 1, backgroundMatch: 1 });
    expect(showsFramebuffer(match)).toBe(true);
  });

  it('a black window does not count', () => {
    expect(showsFramebuffer(locateFramebuffer(blank(120, 80), textScreen(), { x: 0, y: 0, width: 120, height: 80 }))).toBe(false);
  });

  it('a light grey window (an error dialog) does not count', () => {
    expect(showsFramebuffer(locateFramebuffer(blank(120, 80, 0xd0), textScreen(), { x: 0, y: 0, width: 120, height: 80 }))).toBe(false);
  });

  it('a window smaller than the VM screen has no match', () => {
    expect(locateFramebuffer(blank(120, 80), textScreen(), { x: 0, y: 0, width: 30, height: 15 })).toBeUndefined();
  });
});

describe('reading the tools', () => {
  it('parses a binary PPM as ImageMagick writes it', () => {
    const image = parsePpm(Buffer.concat([Buffer.from('P6\n# made by hand\n2 1\n255\n'), Buffer.from([1, 2, 3, 4, 5, 6])]));
    expect(image).toMatchObject({ width: 2, height: 1 });
    expect([...image.pixels]).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('parses xwininfo -root -tree', () => {
    const text = [
      '  Root window id: 0x50d (the root window) (has no name)',
      '     0x400007 "QEMU (vm-a) (1)": ("remote-viewer" "Remote-viewer")  730x456+0+0  +1000+0',
      '        0x400008 (has no name): ()  1x1+-1+-1  +999+-1',
      '     0x200005 "QEMU (vm-b) - TigerVNC": ("TigerVNC Viewer" "TigerVNC Viewer")  720x400+1+20  +1+20',
    ].join('\n');
    expect(parseWindowTree(text)).toEqual([
      {
        id: '0x400007',
        title: 'QEMU (vm-a) (1)',
        instance: 'remote-viewer',
        className: 'Remote-viewer',
        width: 730,
        height: 456,
        x: 1000,
        y: 0,
      },
      { id: '0x400008', title: '', instance: '', className: '', width: 1, height: 1, x: 999, y: -1 },
      {
        id: '0x200005',
        title: 'QEMU (vm-b) - TigerVNC',
        instance: 'TigerVNC Viewer',
        className: 'TigerVNC Viewer',
        width: 720,
        height: 400,
        x: 1,
        y: 20,
      },
    ]);
  });

  it('parses ss -ltnpH', () => {
    const text = [
      'LISTEN 0      511        127.0.0.1:40123      0.0.0.0:*    users:(("node",pid=4242,fd=21))',
      'LISTEN 0      100            [::1]:6080          [::]:*    users:(("websockify",pid=77,fd=3),("websockify",pid=78,fd=3))',
    ].join('\n');
    expect(parseListeningSockets(text)).toEqual([
      { address: '127.0.0.1', port: 40123, pid: 4242 },
      { address: '::1', port: 6080, pid: 77 },
      { address: '::1', port: 6080, pid: 78 },
    ]);
  });

  it("parses vncsnapshot -verbose's report", () => {
    const log =
      'Desktop name "QEMU (vm-a)"\nConnected to VNC server\nImage saved from (local host) 720x400 screen to a.jpg using 720x400+0+0 rectangle\n';
    expect(parseVncSnapshotLog(log)).toEqual({ desktopName: 'QEMU (vm-a)', width: 720, height: 400 });
  });

  it("reads vconsole proxy's port lines, ignoring partial ones", () => {
    const out = '{"target":"default/vm-a","address":"127.0.0.1","port":5901}\n{"target":"default/vm-b","addr';
    expect(parsePortLines(out)).toEqual([{ target: 'default/vm-a', address: '127.0.0.1', port: 5901 }]);
  });

  it("writes websockify's TokenFile format", () => {
    expect(tokenFileText({ abc: '127.0.0.1:5900', def: '127.0.0.1:5901' })).toBe('abc: 127.0.0.1:5900\ndef: 127.0.0.1:5901\n');
  });
});

describe('requireTools', () => {
  it('names each missing program with its Debian package, and the build', () => {
    const reason = missingToolsReason(['qemu-system-x86_64', 'vncviewer', 'tmux'], (tool) => tool === 'tmux', 'linux', false);
    expect(reason).toBe(
      'missing qemu-system-x86_64, vncviewer (Debian: qemu-system-x86 tigervnc-viewer; run scripts/e2e-deps.sh); vconsole is not built (run npm run build)',
    );
  });

  it('has nothing to say when everything is there', () => {
    expect(missingToolsReason(['tmux'], () => true, 'linux', true)).toBeUndefined();
  });

  it('refuses a tool that scripts/e2e-packages.txt does not install, even when it is on this machine', () => {
    expect(() => missingToolsReason(['tmux', 'hand-installed-viewer'], () => true, 'linux', true)).toThrow(
      /hand-installed-viewer, which no line/,
    );
  });

  it('says the suite needs Linux elsewhere', () => {
    expect(missingToolsReason(['tmux'], () => true, 'darwin', true)).toMatch(/need Linux/);
  });
});
