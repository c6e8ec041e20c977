import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Linter } from 'eslint';
import ts from 'typescript';
import tseslint from 'typescript-eslint';
import { describe, expect, it } from 'vitest';
import { noCycle } from '../../scripts/eslint-no-cycle.mjs';
import { tempDir } from '../support/cli.js';

/** Lints every file of a small project with the rule alone, on the project's program. */
function lintProject(files: Record<string, string>): Record<string, string[]> {
  const dir = tempDir('no-cycle');
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  const program = ts.createProgram(
    Object.keys(files).map((name) => join(dir, name)),
    {
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      verbatimModuleSyntax: true,
      noLib: true,
      types: [],
    },
  );
  const linter = new Linter({ configType: 'flat', cwd: dir });
  const config: Linter.Config[] = [
    {
      files: ['**/*.ts'],
      languageOptions: { parser: tseslint.parser, parserOptions: { programs: [program] } },
      plugins: { faultline: { rules: { 'no-cycle': noCycle } } },
      rules: { 'faultline/no-cycle': 'error' },
    },
  ];
  return Object.fromEntries(
    Object.keys(files).map((name) => {
      const file = join(dir, name);
      const messages = linter.verify(readFileSync(file, 'utf8'), config, { filename: file });
      return [name, messages.map((m) => `${String(m.line)}: ${m.message}`)];
    }),
  );
}

describe('faultline/no-cycle (eslint.config.js)', () => {
  it('fails each import of a cycle, naming the way round; a type-only or dynamic import is no edge', () => {
    const found = lintProject({
      'a.ts': "import { b } from './b.js';\nexport const a = (): number => b();\n",
      'b.ts': "import { c } from './c.js';\nexport const b = (): number => c();\n",
      'c.ts': "export { a } from './a.js';\nexport const c = (): number => 1;\n",
      // Erased from the emitted JavaScript, or loaded on first use: no cycle through these.
      'd.ts': "import type { e } from './e.js';\nexport const d = (x: typeof e): number => x;\n",
      'e.ts':
        "export const e = 1;\nexport const later = (): Promise<unknown> => import('./d.js');\nexport type { d } from './d.js';\n",
    });
    expect(found).toEqual({
      'a.ts': ['1: Import cycle: a.ts → b.ts → c.ts → a.ts.'],
      'b.ts': ['1: Import cycle: b.ts → c.ts → a.ts → b.ts.'],
      'c.ts': ['1: Import cycle: c.ts → a.ts → b.ts → c.ts.'],
      'd.ts': [],
      'e.ts': [],
    });
  });

  it('passes a project without a cycle', () => {
    const found = lintProject({
      'a.ts': "import { b } from './b.js';\nexport const a = b;\n",
      'b.ts': 'export const b = 1;\n',
    });
    expect(found).toEqual({ 'a.ts': [], 'b.ts': [] });
  });
});
