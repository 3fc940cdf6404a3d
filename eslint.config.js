// Lint gate run by `npm test` (npm run lint). ESLint with typescript-eslint because the React
// hooks rules (exhaustive-deps, rules-of-hooks) exist only as an ESLint plugin; Biome has no
// equivalent for the dependency arrays the TUI relies on. The layers' walls (docs/ARCHITECTURE.md)
// are rules here too, so an import across one fails the build instead of a review.
import fs from 'node:fs';
import path from 'node:path';
import js from '@eslint/js';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import tseslint from 'typescript-eslint';

/**
 * The leaves of src/ (docs/ARCHITECTURE.md, "Layers"): small modules any layer may import. A leaf
 * imports no layer, only the leaves it names in `uses` (each one it imports today), so that what
 * sits at the bottom of every layer pulls none of them in.
 */
const LEAVES = [
  { leaf: 'text', uses: [], why: 'src/text shapes text for a terminal and a URL' },
  { leaf: 'streams', uses: [], why: 'src/streams holds small stream helpers' },
  { leaf: 'limits.ts', uses: [], why: 'src/limits.ts holds the bounds and timeouts the layers share' },
  { leaf: 'version.ts', uses: [], why: "src/version.ts is vconsole's version" },
  { leaf: 'abort-race.ts', uses: [], why: 'src/abort-race.ts races a promise against an abort' },
  { leaf: 'console-kinds', uses: [], why: 'src/console-kinds is what a kind is, as data' },
  {
    leaf: 'retry',
    uses: [],
    why: 'src/retry is the one back-off (the browser page bundles it)',
  },
  { leaf: 'state-machine', uses: [], why: 'src/state-machine is the one checked state holder' },
  { leaf: 'errors.ts', uses: ['text'], why: "src/errors.ts is vconsole's error classes and their one-line messages" },
  { leaf: 'secrets.ts', uses: ['errors.ts'], why: 'src/secrets.ts is the one secret scrubber' },
  { leaf: 'files', uses: ['errors.ts', 'text'], why: 'src/files reads and writes files safely' },
  { leaf: 'terminal', uses: ['errors.ts', 'text'], why: "src/terminal drives the user's terminal" },
  { leaf: 'net', uses: ['errors.ts', 'limits.ts', 'files'], why: 'src/net holds the network and child-process helpers' },
  { leaf: 'keys', uses: ['errors.ts', 'text'], why: 'src/keys is what a key is: keysyms, scancodes, layouts and chord names, as data' },
  { leaf: 'ocr', uses: ['errors.ts', 'text'], why: "src/ocr reads a screen's text (tesseract.js) from its pixels" },
];

/**
 * The layers src/commands and src/cli.ts import only through one entry module, LAYER/index.ts,
 * which re-exports what the commands use of the layer (docs/ARCHITECTURE.md, "Walls").
 */
const FACADE_LAYERS = ['proxy', 'serial', 'recording', 'config', 'via', 'targets', 'tui', 'viewers', 'rfb', 'holding'];

/**
 * What a command imports statically beside a layer's entry, each for a reason. Every command
 * loads the entries of src/targets and src/tui for its `--help`, so they hold only what that
 * needs; these modules are loaded by the commands that run them (a lazy import() may name any).
 */
const BESIDE_ENTRIES = [
  // The registry loads every provider; a command that resolves or lists targets imports it.
  'targets/registry.ts',
  // The TUI's text measuring (get-east-asian-width): log lines and sizes print as the TUI shows them.
  'tui/layout/format.ts',
  // The last lines of a serial console as its thumbnail, measured the same way.
  'tui/thumbnails/text.ts',
];

/**
 * The walls between the layers of src/ (docs/ARCHITECTURE.md, "Walls"): each folder, the folders
 * (or files) of src/ it must not import, and why. A wall holds for the folder's subfolders too.
 * Tests are outside the walls: a test may put layers together to exercise one of them.
 */
const WALLS = [
  {
    folder: '.',
    forbids: ['commands'],
    spares: ['cli.ts'],
    why: 'only src/cli.ts and src/commands import src/commands: a command is the top of the stack',
  },
  // The commands reach a layer through its entry; a lazy import() may still name a deep module, so
  // that a command loads a heavy part (the hub, the replay server) only when it runs.
  ...['commands', 'cli.ts'].map((folder) => ({
    folder,
    forbids: FACADE_LAYERS,
    staticOnly: true,
    why: 'src/commands and src/cli.ts import a layer through its entry, LAYER/index.ts (a lazy import() may name a deep module)',
  })),
  {
    folder: 'proxy',
    forbids: ['targets', 'viewers', 'tui', 'rfb', 'serial', 'recording', 'config', 'console-kinds', 'via'],
    why: 'src/proxy is the data path: it moves bytes and knows no provider, viewer, console kind, screen or command',
  },
  {
    folder: 'targets',
    forbids: ['viewers', 'tui', 'rfb', 'serial', 'recording'],
    why: 'a provider (src/targets) resolves targets and dials upstreams: it knows no viewer, TUI or hub',
  },
  {
    folder: 'viewers',
    forbids: ['targets', 'proxy', 'tui', 'rfb', 'serial', 'recording'],
    why: 'a viewer (src/viewers) gets an address, never a session or a target',
  },
  {
    folder: 'tui',
    forbids: ['targets', 'viewers', 'rfb', 'serial', 'recording', 'proxy'],
    why: 'the TUI (src/tui) renders a store fed by events: it knows no provider, viewer, session or RFB',
  },
  {
    folder: 'config',
    forbids: ['proxy', 'viewers', 'tui', 'rfb', 'serial', 'recording'],
    why: 'src/config reads the config file and its workspaces: it knows no session, viewer or TUI',
  },
  {
    folder: 'flags',
    forbids: ['proxy', 'tui', 'rfb', 'serial', 'recording', 'config', 'holding'],
    why: 'src/flags declares the command flags as data below the commands and the config file: it knows no session, TUI or config file',
  },
  // The leaves, each walled off from everything of src/ but the leaves it names.
  ...LEAVES.map(({ leaf, uses, why }) => ({
    folder: leaf,
    forbids: sourceEntries().filter((entry) => entry !== leaf && !uses.includes(entry)),
    why: `${why}; it is a leaf anyone may import, and imports ${uses.length ? `only the leaves ${uses.join(', ')}` : 'nothing of vconsole'}`,
  })),
  { folder: 'rfb', forbids: ['targets', 'viewers', 'tui'], why: 'src/rfb speaks RFB: it knows no provider, viewer or TUI' },
  {
    folder: 'rfb/wire',
    forbids: ['rfb/client', 'rfb/server', 'rfb/hub', 'rfb/demo'],
    why: 'src/rfb/wire is what client and server share: it imports neither, nor the hub or the demo',
  },
  {
    folder: 'rfb/client',
    forbids: ['rfb/server', 'rfb/hub', 'rfb/demo'],
    why: 'the RFB client (src/rfb/client) knows no server, hub or demo',
  },
  {
    folder: 'rfb/server',
    forbids: ['rfb/client', 'rfb/hub', 'rfb/demo'],
    why: 'the RFB server (src/rfb/server) knows no client, hub or demo',
  },
  { folder: 'rfb/hub', forbids: ['rfb/demo'], why: 'the hub shares any console: it knows no demo' },
  { folder: 'rfb/demo', forbids: ['rfb/client', 'rfb/hub'], why: 'the demo is an RFB server: it knows no client or hub' },
  {
    folder: 'holding',
    forbids: ['targets', 'viewers', 'tui', 'rfb', 'serial', 'recording', 'config', 'console-kinds'],
    why: 'src/holding joins and holds consoles between vconsoles of one user: it knows no provider, viewer, kind, screen or TUI',
  },
  {
    folder: 'via',
    forbids: ['viewers', 'tui', 'rfb', 'serial', 'recording', 'config'],
    why: 'src/via carries consoles over ssh to a far vconsole: it knows no viewer, TUI, hub or screen',
  },
  {
    folder: 'serial',
    forbids: ['targets', 'viewers', 'tui', 'rfb'],
    why: 'serial sharing (src/serial) knows no provider, viewer, TUI or RFB',
  },
  // Each provider in a folder of its own; what they share is src/targets/dial, vm-state-poll.ts,
  // types.ts, capabilities.ts, console-type.ts and limits.ts, never another provider or the registry that lists them all.
  ...providerFolders().map((provider) => ({
    folder: `targets/${provider}`,
    forbids: [
      ...providerFolders()
        .filter((other) => other !== provider)
        .map((other) => `targets/${other}`),
      'targets/index.ts',
      'targets/registry.ts',
    ],
    why: `a provider imports no other provider nor the registry: share code through src/targets/dial, vm-state-poll.ts, types.ts, capabilities.ts, console-type.ts or limits.ts`,
  })),
];

/** The imports a wall lets through, each with its reason (docs/ARCHITECTURE.md lists them). */
const WALL_EXCEPTIONS = [
  // A layer's entry is what the commands import of it.
  ...FACADE_LAYERS.flatMap((layer) => ['commands', 'cli.ts'].map((from) => ({ from, to: `${layer}/index.ts` }))),
  ...BESIDE_ENTRIES.flatMap((to) => ['commands', 'cli.ts'].map((from) => ({ from, to }))),
  // The TUI shows session events; their types are the data path's vocabulary.
  { from: 'tui', to: 'proxy/types.ts' },
  // The demo provider's VMs are in-process RFB servers: it starts one as a cloud boots a VM.
  { from: 'targets/demo', to: 'rfb/demo/server.ts' },
];

/** The provider folders of src/targets (dial is what they share, not a provider). */
function providerFolders() {
  const targets = path.join(import.meta.dirname, 'src/targets');
  return fs
    .readdirSync(targets, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && entry.name !== 'dial')
    .map((entry) => entry.name)
    .sort();
}

/** What src/ holds at its top, folders and files alike ('targets', 'errors.ts'), tests aside. */
function sourceEntries() {
  return fs
    .readdirSync(path.join(import.meta.dirname, 'src'), { withFileTypes: true })
    .filter((entry) => entry.isDirectory() || (/\.tsx?$/.test(entry.name) && !/\.(test|d)\.tsx?$/.test(entry.name)))
    .map((entry) => entry.name)
    .sort();
}

/** Every folder of src/ as a path from src/ ('.' for src/ itself), parents before children. */
function sourceFolders(at = '.') {
  const children = fs
    .readdirSync(path.join(import.meta.dirname, 'src', at), { withFileTypes: true })
    .filter((entry) => entry.isDirectory());
  return [at, ...children.flatMap((child) => sourceFolders(path.posix.join(at, child.name)))];
}

const escapeRegex = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const inside = (folder, ancestor) => ancestor === '.' || folder === ancestor || folder.startsWith(`${ancestor}/`);
/** `proxy/types.ts` as an import from `folder` spells it: `../../proxy/types.js`. */
function specifierOf(folder, target) {
  const relative = path.posix.relative(folder, target).replace(/\.tsx?$/, '.js');
  return relative.startsWith('.') ? relative : `./${relative}`;
}

/**
 * The rules for the files directly in `folder` (or for the one file `file` in it, a leaf walled on
 * its own): every wall of the folder and its parents, as `no-restricted-imports` patterns, and the
 * same for lazy `import()` (which that rule does not see).
 */
function wallRules(folder, file) {
  const patterns = [];
  for (const wall of WALLS.filter((w) => (inside(folder, w.folder) || w.folder === file) && !w.spares?.includes(file))) {
    for (const target of wall.forbids.filter((t) => t === '.' || !inside(folder, t))) {
      const allowed = WALL_EXCEPTIONS.filter((e) => (inside(folder, e.from) || e.from === file) && inside(e.to, target)).map((e) =>
        escapeRegex(specifierOf(folder, e.to)),
      );
      const spelled = target === '.' ? '\\.\\./' : `${escapeRegex(specifierOf(folder, target))}(/|$)`;
      const regex = allowed.length ? `^(?!(${allowed.join('|')})$)${spelled}` : `^${spelled}`;
      // Two walls may forbid the same target (all of src/ forbids commands, and so does a leaf): one message.
      if (!patterns.some((p) => p.regex === regex))
        patterns.push({ regex, message: `${wall.why} (docs/ARCHITECTURE.md).`, staticOnly: wall.staticOnly });
    }
  }
  if (patterns.length === 0) return {};
  const lazy = patterns
    .filter((p) => !p.staticOnly)
    .map(({ regex, message }) => ({
      selector: `ImportExpression[source.value=/${regex.replaceAll('/', '\\/')}/]`,
      message,
    }));
  return {
    'no-restricted-imports': ['error', { patterns: patterns.map(({ regex, message }) => ({ regex, message })) }],
    'no-restricted-syntax': ['error', ...lazy],
  };
}

/** The files of src/ walled on their own (src/errors.ts, a leaf), not as their folder. */
const walledFiles = WALLS.map((wall) => wall.folder).filter((folder) => /\.tsx?$/.test(folder));

const wallConfigs = [
  ...sourceFolders().map((folder) => ({
    files: [`src/${folder === '.' ? '' : `${folder}/`}*.{ts,tsx}`],
    ignores: ['**/*.test.ts', '**/*.test.tsx', ...(folder === '.' ? ['src/cli.ts', ...walledFiles.map((file) => `src/${file}`)] : [])],
    rules: wallRules(folder),
  })),
  ...walledFiles.map((file) => ({ files: [`src/${file}`], rules: wallRules('.', file) })),
];

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', '.pkg-cache/**', 'src/viewers/browser/page-assets.generated.ts'] },
  js.configs.recommended,
  // Type-aware: the rules that need the types (a promise nobody awaits, an `any` that flows on)
  // read them from tsconfig.json through the project service.
  ...tseslint.configs.recommendedTypeChecked,
  { languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } } },
  // Plain JavaScript (bin, scripts, this file) is in no TypeScript project: no type-aware rules there.
  { files: ['**/*.js', '**/*.mjs', '**/*.cjs'], ...tseslint.configs.disableTypeChecked },
  {
    languageOptions: { globals: { ...globals.node } },
    plugins: { 'react-hooks': reactHooks },
    rules: {
      ...reactHooks.configs.recommended.rules,
      'react-hooks/exhaustive-deps': 'error',
      '@typescript-eslint/no-non-null-assertion': 'error',
      '@typescript-eslint/no-shadow': [
        'error',
        {
          builtinGlobals: true,
          hoist: 'functions',
          allow: [
            'WebSocket',
            'escape',
            'name',
            'event',
            'status',
            'screen',
            'close',
            'open',
            'stop',
            'length',
            'parent',
            'top',
            'self',
            'origin',
            'print',
            'find',
            'scroll',
            'Text',
          ],
        },
      ],
      'no-shadow': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      eqeqeq: ['error', 'always', { null: 'ignore' }],
      // Stripping terminal control characters is what those regular expressions are for.
      'no-control-regex': 'off',
      // Callbacks are declared in method shorthand (`onQuit(): void`) and passed around as values
      // (`exit: io.exit`); what implements them is an arrow or an object literal, not a class
      // method that needs its `this`. The rule flags every such pass, none of them a bug.
      '@typescript-eslint/unbound-method': 'off',
      // An `async` function that does not await still turns a throw into a rejection: the
      // providers' dial()/list() rely on that, and dropping `async` would change it.
      '@typescript-eslint/require-await': 'off',
    },
  },
  {
    // Tests may assert on values they know are there, and read JSON bodies loosely (`any`, and
    // what the type-aware rules would say of it).
    files: ['**/*.test.ts', '**/*.test.tsx', 'test/**'],
    rules: {
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/restrict-template-expressions': 'off',
      '@typescript-eslint/no-base-to-string': 'off',
    },
  },
  ...wallConfigs,
);
