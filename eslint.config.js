// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { noCycle } from './scripts/eslint-no-cycle.mjs';

/** Imports point one way (DESIGN.md): each layer lists what it may not reach. */
const layer = (files, forbidden) => ({
  files,
  rules: {
    'no-restricted-imports': [
      'error',
      {
        patterns: forbidden.map((dir) => ({
          group: [`**/${dir}/**`, `**/${dir}/*`],
          message: `${files[0].split('/')[0]}/ may not import from ${dir}/ (see DESIGN.md, Layout).`,
        })),
      },
    ],
  },
});

export default tseslint.config(
  {
    ignores: [
      'node_modules/**',
      '.faultline/**',
      'coverage/**',
      'dist/**',
      'test/package/project/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.strictTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    // No import cycle among our files, read from the TypeScript program (the rule says why not
    // import-x/no-cycle, which resolved none of our `./x.js` imports and so never failed).
    plugins: { faultline: { rules: { 'no-cycle': noCycle } } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/restrict-template-expressions': [
        'error',
        { allowNumber: true, allowBoolean: true },
      ],
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
      'faultline/no-cycle': 'error',
    },
  },
  layer(
    ['runtime/**/*.ts'],
    ['scenarios', 'faults', 'graders', 'reports', 'recordings', 'explore', 'bin', 'models'],
  ),
  layer(['scenarios/**/*.ts', 'faults/**/*.ts'], ['graders', 'reports', 'explore', 'bin']),
  layer(['graders/**/*.ts'], ['runtime', 'faults', 'reports', 'explore', 'bin']),
  layer(['reports/**/*.ts'], ['runtime', 'scenarios', 'faults', 'explore', 'bin']),
  // Exploration runs scenarios and judges them with the graders' findings: above both.
  layer(['explore/**/*.ts'], ['bin']),
  // Adapters are what a user imports beside faultline: never the examples or the command.
  layer(['adapters/**/*.ts'], ['examples', 'bin']),
  layer(['models/**/*.ts'], ['graders', 'reports', 'explore', 'bin']),
  {
    // Agent frameworks are the adapters' and examples' business: faultline itself loads without
    // them (a user of one framework need not install the other). A rule of its own, so the
    // layer rules above stay as they are.
    files: [
      '{runtime,scenarios,faults,graders,reports,recordings,explore,bin}/**/*.ts',
      'index.ts',
    ],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/adapters/*', '**/adapters/**', '**/examples/*', '**/examples/**'],
              message:
                'faultline itself may not import adapters/ or examples/ (see DESIGN.md, Layout).',
            },
            {
              group: ['ai', 'ai/*', '@langchain/*'],
              message: 'only adapters/ and examples/ may import an agent framework.',
            },
          ],
        },
      ],
    },
  },
  {
    // The zoo's model-driven agents are AI SDK agents: `ai` is a dependency since models came
    // into the loop, and they take the world's tools from its adapter. LangGraph stays out.
    files: ['scenarios/agents/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: [
                '**/adapters/*',
                '**/adapters/**',
                '!**/adapters/ai-sdk.js',
                '**/examples/*',
                '**/examples/**',
              ],
              message:
                'the zoo may import only the AI SDK adapter of adapters/, and no examples/ (see DESIGN.md, Layout).',
            },
            {
              group: ['@langchain/*'],
              message: 'only adapters/ and examples/ may import LangGraph.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['**/*.{js,mjs,cjs}'],
    ...tseslint.configs.disableTypeChecked,
  },
  {
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: {
      '@typescript-eslint/no-non-null-assertion': 'off',
    },
  },
);
