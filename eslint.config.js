// Lint gate run by `npm test` (npm run lint). ESLint with typescript-eslint because the React
// hooks rules (exhaustive-deps, rules-of-hooks) exist only as an ESLint plugin; Biome has no
// equivalent for the dependency arrays the TUI relies on.
import js from '@eslint/js';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', '.pkg-cache/**', 'src/viewers/browser/page-assets.generated.ts'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    plugins: { 'react-hooks': reactHooks },
    rules: {
      ...reactHooks.configs.recommended.rules,
      'react-hooks/exhaustive-deps': 'error',
      '@typescript-eslint/no-non-null-assertion': 'error',
      '@typescript-eslint/no-shadow': ['error', { builtinGlobals: true, hoist: 'functions', allow: ['WebSocket', 'escape', 'name', 'event', 'status', 'screen', 'close', 'open', 'stop', 'length', 'parent', 'top', 'self', 'origin', 'print', 'find', 'scroll'] }],
      'no-shadow': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      eqeqeq: ['error', 'always', { null: 'ignore' }],
      // Stripping terminal control characters is what those regular expressions are for.
      'no-control-regex': 'off',
    },
  },
  {
    // Tests may assert on values they know are there, and read JSON bodies loosely.
    files: ['**/*.test.ts', '**/*.test.tsx', 'test/**'],
    rules: { '@typescript-eslint/no-non-null-assertion': 'off', '@typescript-eslint/no-explicit-any': 'off' },
  },
);
