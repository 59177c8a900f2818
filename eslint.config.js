import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', '**/.turbo/**', '**/coverage/**', 'packages/client/test/consumer/**'] },
  js.configs.recommended,
  ...tseslint.configs.strictTypeChecked,
  {
    languageOptions: {
      globals: globals.node,
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true }],
      '@typescript-eslint/consistent-type-imports': 'error',
      // Engines with a synchronous driver (better-sqlite3) implement the async storage interface
      // with async functions that never await; that is the point, not a slip.
      '@typescript-eslint/require-await': 'off',
      // Express types its request as an interface over Node's IncomingMessage; this rule cannot
      // see that every Express request is one, and flags handing it to Node-level middleware.
      '@typescript-eslint/no-unsafe-class-instance-assignment': 'off',
      // `this: void` is how a method type says it may be passed around unbound (unbound-method).
      '@typescript-eslint/no-invalid-void-type': ['error', { allowAsThisParameter: true }],
    },
  },
  {
    files: ['**/*.test.ts', '**/test/**/*.ts'],
    rules: {
      // Asymmetric matchers (expect.any, expect.stringMatching) are typed `any`.
      '@typescript-eslint/no-unsafe-assignment': 'off',
    },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    extends: [tseslint.configs.disableTypeChecked],
  },
  {
    files: ['**/public/**/*.js'],
    languageOptions: { globals: globals.browser, sourceType: 'script' },
  },
);
