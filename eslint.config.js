import tseslint from 'typescript-eslint';

const nodeBuiltins = { group: ['node:*'], message: 'Runs in browsers: no Node built-ins.' };
const serverPackage = { group: ['@browseragentprotocol/server-playwright', '@browseragentprotocol/server-playwright/*'], message: 'Clients never import the server.' };

export default tseslint.config(
  { ignores: ['**/dist/**', 'node_modules/**', '**/*.d.ts', 'packages/protocol/schema/**'] },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-empty': ['error', { allowEmptyCatch: true }],
    },
  },
  {
    files: ['packages/protocol/src/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [nodeBuiltins, { group: ['@browseragentprotocol/*'], message: 'The protocol package imports nothing of ours.' }] }],
    },
  },
  {
    files: ['packages/client/src/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [nodeBuiltins, serverPackage] }] },
  },
);
