import { mkdir, copyFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { tmpdir } from 'node:os';
import { locateFramebuffer, showsFramebuffer, type FramebufferMatch } from './images.js';
import type { QemuVm } from './qemu.js';
import type { VncSnapshot } from './vncsnapshot.js';

/** Where pictures of failed checks are kept (the suite's temp dirs are removed). */
export const FAILURE_DIR = join(tmpdir(), 'vconsole-e2e-failures');

/** Copies a picture somewhere that outlives the test, and says where, for the failure message. */
export async function keepForInspection(file: string, label: string): Promise<string> {
  await mkdir(FAILURE_DIR, { recursive: true });
  const kept = join(FAILURE_DIR, `${Date.now()}-${label.replace(/[^A-Za-z0-9._-]+/g, '_')}-${basename(file)}`);
  await copyFile(file, kept).catch(() => undefined);
  return kept;
}

function describeMatch(match: FramebufferMatch | undefined): string {
  if (!match) return 'no position fits the VM screen inside the area';
  return `best position (${match.x},${match.y}): ${(match.textMatch * 100).toFixed(1)}% of the BIOS text pixels, ${(match.backgroundMatch * 100).toFixed(1)}% of its black background`;
}

/**
 * Asserts that a picture taken through vconsole is the VM's own screen: same size and desktop
 * name as QEMU announced, and the same BIOS text, pixel for pixel, as QEMU's own framebuffer.
 */
export async function expectVmScreen(snapshot: VncSnapshot, vm: QemuVm): Promise<void> {
  const problems: string[] = [];
  if (snapshot.width !== vm.reference.width || snapshot.height !== vm.reference.height) {
    problems.push(`size ${snapshot.width}x${snapshot.height}, QEMU's is ${vm.reference.width}x${vm.reference.height}`);
  }
  if (snapshot.desktopName !== vm.reference.desktopName)
    problems.push(`desktop name "${snapshot.desktopName}", QEMU's is "${vm.reference.desktopName}"`);
  const match = locateFramebuffer(snapshot.image, vm.reference.image, {
    x: 0,
    y: 0,
    width: snapshot.image.width,
    height: snapshot.image.height,
  });
  if (!showsFramebuffer(match)) problems.push(`picture is not ${vm.name}'s BIOS screen (${describeMatch(match)})`);
  if (problems.length > 0) {
    const kept = await keepForInspection(snapshot.file, vm.name);
    throw new Error(`vncsnapshot through vconsole did not show ${vm.name}: ${problems.join('; ')}; picture kept at ${kept}`);
  }
}
