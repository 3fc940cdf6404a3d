/**
 * The walls of docs/ARCHITECTURE.md as the lint gate holds them: an import across one fails
 * `npm run lint` with the wall's reason, a lazy import() as well, and the crossings the table
 * allows pass. Only the two wall rules run here, on imports written for the test.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';
import { describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const eslint = new ESLint({
  cwd: root,
  // The files are not on disk, so not in the TypeScript project: the wall rules need no types.
  overrideConfig: tseslint.configs.disableTypeChecked,
  ruleFilter: ({ ruleId }) => ruleId === 'no-restricted-imports' || ruleId === 'no-restricted-syntax',
});

/** The wall messages linting `code` as the file `file` (a path from the repository root) gives. */
async function wallMessages(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(root, file) });
  return result.messages.map((m) => m.message);
}

describe('the walls in the lint gate', () => {
  it('refuses the data path a provider, a kind or the TUI, saying which wall', async () => {
    const messages = await wallMessages(
      'src/proxy/new-file.ts',
      "import type { ConsoleProvider } from '../targets/types.js';\nimport { CONSOLE_KINDS } from '../console-kinds/index.js';\nexport { ConsoleStore } from '../tui/state/console-store.js';\nexport const kinds: unknown = [CONSOLE_KINDS, null as unknown as ConsoleProvider];\n",
    );
    expect(messages).toHaveLength(3);
    for (const message of messages) expect(message).toContain('src/proxy is the data path');
  });

  it('refuses a lazy import() across a wall too', async () => {
    const messages = await wallMessages('src/viewers/new-file.ts', "export const load = () => import('../proxy/console-session.js');\n");
    expect(messages).toEqual([expect.stringContaining('a viewer (src/viewers) gets an address')]);
  });

  it('refuses a provider another provider or the registry, not the dial helpers they share', async () => {
    const messages = await wallMessages(
      'src/targets/openstack/new-file.ts',
      "import '../websocket/provider.js';\nimport '../index.js';\nimport '../dial/socket.js';\nimport '../types.js';\n",
    );
    expect(messages).toHaveLength(2);
    for (const message of messages) expect(message).toContain('a provider imports no other provider');
  });

  it("holds a folder's wall in its subfolders", async () => {
    expect(
      await wallMessages(
        'src/rfb/client/decoders/new-file.ts',
        "import '../../server/rfb-server.js';\nimport '../../wire/byte-queue.js';\n",
      ),
    ).toEqual([expect.stringContaining('the RFB client (src/rfb/client) knows no server')]);
  });

  it('lets through the crossings the table allows, and nothing next to them', async () => {
    expect(await wallMessages('src/tui/state/new-file.ts', "export type { SessionSnapshot } from '../../proxy/types.js';\n")).toEqual([]);
    expect(await wallMessages('src/targets/demo/new-file.ts', "export const load = () => import('../../rfb/demo/server.js');\n")).toEqual(
      [],
    );
    expect(
      await wallMessages('src/targets/demo/new-file.ts', "export const load = () => import('../../rfb/demo/screen.js');\n"),
    ).toHaveLength(1);
  });

  it('keeps src/commands to the command line: only cli.ts and the commands import it', async () => {
    expect(await wallMessages('src/errors-new.ts', "import './commands/flags.js';\n")).toHaveLength(1);
    expect(await wallMessages('src/cli.ts', "import './commands/flags.js';\n")).toEqual([]);
    expect(await wallMessages('src/commands/open/new-file.ts', "import '../flags.js';\n")).toEqual([]);
  });

  it('lets src/commands and src/cli.ts import a layer through its entry only, a lazy import() deeper', async () => {
    const facadeWall = 'src/commands and src/cli.ts import a layer through its entry';
    expect(
      await wallMessages(
        'src/commands/open/new-file.ts',
        "import { ConsoleSession } from '../../proxy/index.js';\nimport type { ViaLink } from '../../via/ssh-link.js';\nimport { loadConfig } from '../../config/config.js';\nexport const load = () => import('../../recording/replay-source.js');\nexport const all: unknown = [ConsoleSession, loadConfig, null as unknown as ViaLink];\n",
      ),
    ).toEqual([expect.stringContaining(facadeWall), expect.stringContaining(facadeWall)]);
    expect(
      await wallMessages('src/cli.ts', "import './serial/shared-serial.js';\nimport './serial/index.js';\nimport './commands/flags.js';\n"),
    ).toEqual([expect.stringContaining(facadeWall)]);
  });

  it('keeps src/state-machine a leaf, so that any layer may hold its state with it', async () => {
    expect(await wallMessages('src/state-machine/new-file.ts', "import '../errors.js';\nimport './state-machine.js';\n")).toEqual([
      expect.stringContaining('src/state-machine is the one checked state holder'),
    ]);
  });

  it('keeps src/retry a leaf, so that the browser page can bundle the back-off', async () => {
    expect(await wallMessages('src/retry/new-file.ts', "import '../limits.js';\nimport './backoff.js';\n")).toEqual([
      expect.stringContaining('src/retry is the one back-off'),
    ]);
  });

  it('keeps each leaf to the leaves it names, a file leaf as well as a folder', async () => {
    expect(
      await wallMessages(
        'src/net/new-file.ts',
        "import '../errors.js';\nimport '../limits.js';\nimport '../files/safe-file.js';\nimport '../proxy/types.js';\n",
      ),
    ).toEqual([
      expect.stringContaining(
        'src/net holds the network and child-process helpers; it is a leaf anyone may import, and imports only the leaves errors.ts, limits.ts, files',
      ),
    ]);
    expect(
      await wallMessages(
        'src/errors.ts',
        "import './text/terminal-text.js';\nimport './secrets.js';\nexport const load = () => import('./targets/index.js');\n",
      ),
    ).toEqual([expect.stringContaining('src/errors.ts is'), expect.stringContaining('src/errors.ts is')]);
    expect(await wallMessages('src/limits.ts', "import './errors.js';\n")).toEqual([expect.stringContaining('src/limits.ts holds')]);
    expect(await wallMessages('src/text/new-file.ts', "import '../errors.js';\nimport './terminal-text.js';\n")).toHaveLength(1);
    // A leaf's wall is its own: the file beside it in src/ is walled as its folder is.
    expect(await wallMessages('src/new-file.ts', "import './proxy/types.js';\nimport './commands/flags.js';\n")).toEqual([
      expect.stringContaining('a command is the top of the stack'),
    ]);
  });

  it('keeps src/console-kinds a leaf', async () => {
    expect(await wallMessages('src/console-kinds/new-file.ts', "import '../errors.js';\nimport './types.js';\n")).toEqual([
      expect.stringContaining('is a leaf'),
    ]);
  });
});
