// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';
import globals from 'globals';
import reactHooks from 'eslint-plugin-react-hooks';
import jsxA11y from 'eslint-plugin-jsx-a11y';

export default tseslint.config(
  {
    ignores: [
      '**/dist/**',
      '**/node_modules/**',
      'packages/proto/src/gen/**',
      '.cache/**',
      '.data/**',
      'coverage/**',
      'charts/**',
      'packages/client/src/schema.ts',
      'web/test-results/**',
      'web/playwright-report/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  prettier,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-non-null-assertion': 'off',
      eqeqeq: ['error', 'always'],
      'no-console': 'error',
    },
  },
  {
    // The web app runs in the browser: React's hook rules and static accessibility checks (axe-core checks the
    // rendered pages in the browser tests).
    files: ['web/src/**/*.{ts,tsx}'],
    ...reactHooks.configs.flat.recommended,
    ...jsxA11y.flatConfigs.recommended,
    plugins: { ...reactHooks.configs.flat.recommended.plugins, ...jsxA11y.flatConfigs.recommended.plugins },
    rules: { ...reactHooks.configs.flat.recommended.rules, ...jsxA11y.flatConfigs.recommended.rules },
    languageOptions: { ...jsxA11y.flatConfigs.recommended.languageOptions, globals: { ...globals.browser } },
  },
  {
    // Browser tests run in Node and drive the page.
    files: ['web/e2e/**/*.ts', 'web/*.config.ts'],
    rules: { 'no-console': 'off', 'no-empty-pattern': 'off' },
  },
  {
    // Tests and benchmarks read loosely typed JSON answers.
    files: ['**/test/**/*.ts', 'bench/**/*.ts', 'packages/testkit/src/http.ts', 'packages/testkit/src/admin-cli.ts', 'scripts/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off', 'no-console': 'off' },
  },
);
