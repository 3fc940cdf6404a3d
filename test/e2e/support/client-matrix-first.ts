import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** The end-to-end file that runs beside the protocol-level ones (vitest.e2e.config.ts). */
export const CLIENT_MATRIX = 'test/e2e/client-matrix.e2e.test.ts';

/**
 * Vitest's order (failed, then longest, then largest first), with the client matrix at the head
 * of its group: it is the longest file by far, and the protocol-level files take turns beside it
 * in the group's other slot. Started late, it would run its minutes alone at the end.
 */
export class ClientMatrixFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const matrix = sorted.filter((file) => file.moduleId.endsWith(CLIENT_MATRIX));
    const group = (file: TestSpecification) => file.project.config.sequence.groupOrder;
    return [...sorted].sort((a, b) => {
      if (group(a) !== group(b)) return group(a) - group(b);
      return Number(matrix.includes(b)) - Number(matrix.includes(a));
    });
  }
}
