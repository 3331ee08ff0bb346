// One lint setup: type-aware typescript-eslint (floating promises are errors) and
// import-x (import cycles are errors). Formatting is prettier's job (`npm run lint`).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import importX from 'eslint-plugin-import-x';
import globals from 'globals';

// JSON text from outside the process is read by the one ladder (issue 30): depth on the text,
// `JSON.parse`, prototype keys. The few places that parse text they made themselves a line
// earlier say so in an eslint-disable comment, which test/unit/text/one-json-ladder.test.ts
// lists.
const JSON_PARSE = {
  selector: "MemberExpression[object.name='JSON'][property.name='parse']",
  message:
    'read JSON text with the one ladder, `readJsonText` or `readJsonValue` (src/text/json-text.ts; workers: the SDK), which bounds depth and refuses prototype keys',
};

// Worker threads and child processes start in one home each (issue 30, ADR 0082):
// `startThread` (src/process/thread.ts) and `spawnChild` / `runFile` (src/process/spawn.ts).
// Types may still be imported anywhere; test/unit/process/one-home.test.ts guards the same
// homes against what this rule cannot see (`import()`, `require`).
const THREAD_HOME =
  'start a worker thread with `startThread` (src/process/thread.ts; workers: the SDK)';
const CHILD_HOME =
  'start a child process with `spawnChild` or `runFile` (src/process/spawn.ts), the one home of child processes';
const NKEY_HOME =
  'make, read and sign with NKEYs through src/protocol/nkey-ed25519.ts (node:crypto), not the nkeys library (ADR 0103)';
const ONE_HOME_IMPORTS = {
  paths: [
    ...['node:worker_threads', 'worker_threads'].map((name) => ({
      name,
      importNames: ['Worker'],
      message: THREAD_HOME,
      allowTypeImports: true,
    })),
    ...['node:child_process', 'child_process'].map((name) => ({
      name,
      message: CHILD_HOME,
      allowTypeImports: true,
    })),
    // the nkeys library's Ed25519 is pure JS (tweetnacl): 30-150 ms a key or signature
    {
      name: '@nats-io/nkeys',
      importNames: ['createUser', 'createAccount', 'createOperator', 'createPair', 'fromSeed'],
      message: NKEY_HOME,
    },
    ...['@nats-io/transport-node', '@nats-io/nats-core'].map((name) => ({
      name,
      importNames: ['nkeyAuthenticator', 'nkeys'],
      message: NKEY_HOME,
    })),
  ],
};

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'var/**', 'coverage/**', '.prof/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    plugins: { 'import-x': importX },
    settings: { 'import-x/resolver': { node: { extensions: ['.ts', '.js'] } } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
      'import-x/no-cycle': ['error', { maxDepth: Infinity }],
      'no-console': 'error',
    },
  },
  {
    files: ['scripts/**', 'bench/**'],
    rules: { 'no-console': 'off' },
  },
  {
    files: ['src/**/*.ts', 'workers/**/*.ts'],
    ignores: ['src/text/json-text.ts'],
    rules: { 'no-restricted-syntax': ['error', JSON_PARSE] },
  },
  {
    files: ['src/**/*.ts', 'workers/**/*.ts'],
    ignores: ['src/process/thread.ts', 'src/process/spawn.ts'],
    rules: { '@typescript-eslint/no-restricted-imports': ['error', ONE_HOME_IMPORTS] },
  },
  {
    // The CLI prints through src/cli/program/terminal.ts alone, which escapes what a terminal would
    // act on (ADR 0064).
    files: ['src/cli/**'],
    ignores: ['src/cli/program/terminal.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        JSON_PARSE,
        {
          selector:
            "MemberExpression[object.object.name='process'][object.property.name=/^std(out|err)$/][property.name='write']",
          message:
            'print through `terminal` (src/cli/program/terminal.ts), which escapes control characters',
        },
      ],
    },
  },
  {
    files: ['src/cli/program/terminal.ts'],
    rules: { 'no-console': 'off' },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      ...tseslint.configs.disableTypeChecked.languageOptions,
      globals: { ...globals.node },
    },
  },
  {
    // The dashboard's script runs in the browser, not in Node (docs/dashboard.md).
    files: ['web/**/*.js'],
    languageOptions: { globals: { ...globals.browser } },
  },
  {
    files: ['test/**'],
    rules: {
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
    },
  },
);
