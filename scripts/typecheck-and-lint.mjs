#!/usr/bin/env node
// `tsc --noEmit` and `eslint .` in one process, over one TypeScript program.
//
// Run apart, the two build and check the same program twice: tsc for its diagnostics, and
// typescript-eslint's project service for the type-aware rules (most of eslint's time is the
// type checker's lazy work, billed to the first rule that asks). Here the program is created
// once from tsconfig.json, its diagnostics are reported as `tsc --noEmit` reports them (every
// diagnostic fails the check, as it fails tsc), and then ESLint lints what `eslint .` lints with
// `parserOptions.programs: [program]`, so the rules ask a checker that has already done the work.
//
// Nothing is dropped: the same config file, every rule, every file (`eslint .`'s own file
// search). A TypeScript file outside tsconfig.json is not in the program and fails to parse
// with a message naming it, as it fails under the project service; JavaScript files use
// `disableTypeChecked` and are parsed without the program.
//
// Run alone (`node scripts/typecheck-and-lint.mjs`), it prints both checks and exits 1 if either
// failed. Started by scripts/test.mjs with an IPC channel, it sends each check's result and
// output instead, so `npm test` prints and summarises them as two checks.
import { performance } from 'node:perf_hooks';
import process from 'node:process';
import { ESLint } from 'eslint';
import ts from 'typescript';

/**
 * Creates the program `tsc --noEmit` would create from `cwd`'s tsconfig.json and collects the
 * diagnostics tsc would report for it, in tsc's order (config, syntax, options, global,
 * semantic; later kinds only when the earlier are clean), sorted and deduplicated as tsc does.
 */
function typecheck(cwd, pretty) {
  const fatal = [];
  const configPath = ts.findConfigFile(cwd, ts.sys.fileExists, 'tsconfig.json');
  if (configPath === undefined) {
    return { ok: false, output: `No tsconfig.json in ${cwd}.\n`, program: undefined };
  }
  const config = ts.getParsedCommandLineOfConfigFile(
    configPath,
    { noEmit: true },
    { ...ts.sys, onUnRecoverableConfigFileDiagnostic: (diagnostic) => fatal.push(diagnostic) },
  );
  if (config === undefined) return { ok: false, output: format(fatal, cwd, pretty) };
  // Parent pointers set and all JSDoc parsed (the host's defaults otherwise skip neither): the
  // lint rules read both (no-deprecated reads @deprecated), as they do from the project service.
  const host = ts.createCompilerHost(config.options, true);
  const program = ts.createProgram({
    rootNames: config.fileNames,
    options: config.options,
    projectReferences: config.projectReferences,
    host,
    configFileParsingDiagnostics: ts.getConfigFileParsingDiagnostics(config),
  });
  const all = [...program.getConfigFileParsingDiagnostics()];
  const configCount = all.length;
  all.push(...program.getSyntacticDiagnostics());
  if (all.length === configCount) {
    all.push(...program.getOptionsDiagnostics(), ...program.getGlobalDiagnostics());
    if (all.length === configCount) all.push(...program.getSemanticDiagnostics());
  }
  const diagnostics = ts.sortAndDeduplicateDiagnostics(all);
  return { ok: diagnostics.length === 0, output: format(diagnostics, cwd, pretty), program };
}

function format(diagnostics, cwd, pretty) {
  if (diagnostics.length === 0) return '';
  const host = {
    getCanonicalFileName: (fileName) => fileName,
    getCurrentDirectory: () => cwd,
    getNewLine: () => '\n',
  };
  const text = pretty
    ? ts.formatDiagnosticsWithColorAndContext(diagnostics, host)
    : ts.formatDiagnostics(diagnostics, host);
  const errors = diagnostics.filter((d) => d.category === ts.DiagnosticCategory.Error).length;
  const files = new Set(diagnostics.map((d) => d.file?.fileName)).size;
  return `${text}\nFound ${String(errors)} error${errors === 1 ? '' : 's'} in ${String(files)} file${files === 1 ? '' : 's'}.\n`;
}

/**
 * Lints what `eslint .` lints in `cwd`, with its config file, handing typescript-eslint the
 * program instead of letting the project service build its own. Fails as the CLI fails: on any
 * error (warnings are printed and pass).
 */
async function lint(cwd, program) {
  const eslint = new ESLint({
    cwd,
    overrideConfig: [
      { languageOptions: { parserOptions: { projectService: false, programs: [program] } } },
      // JavaScript files are linted without type information (the config's disableTypeChecked):
      // no program may be asked for them, or their parse fails for not being in it.
      { files: ['**/*.{js,mjs,cjs}'], languageOptions: { parserOptions: { programs: null } } },
    ],
  });
  const results = await eslint.lintFiles(['.']);
  const formatter = await eslint.loadFormatter('stylish');
  const output = await formatter.format(results, {
    cwd,
    rulesMeta: eslint.getRulesMetaForResults(results),
  });
  const errors = results.reduce((sum, result) => sum + result.errorCount, 0);
  return { ok: errors === 0, output, files: results.length };
}

/**
 * Runs both checks in `cwd`; resolves with one entry per check, in the order `npm test` names
 * them. Lint runs even when the type check fails (tsc and eslint ran apart before).
 */
async function typecheckAndLint(cwd, { pretty }) {
  const started = performance.now();
  const checked = typecheck(cwd, pretty);
  const typed = performance.now();
  const checks = [
    {
      name: 'typecheck',
      shown: 'tsc --noEmit',
      ok: checked.ok,
      output: checked.output,
      seconds: (typed - started) / 1000,
    },
  ];
  if (checked.program === undefined) {
    checks.unshift({
      name: 'lint',
      shown: 'eslint .',
      ok: false,
      output: 'Not run: there is no TypeScript program to lint with.\n',
      seconds: 0,
    });
    return checks;
  }
  let linted;
  try {
    linted = await lint(cwd, checked.program);
  } catch (error) {
    linted = { ok: false, output: `${error instanceof Error ? error.stack : String(error)}\n` };
  }
  checks.unshift({
    name: 'lint',
    shown: "eslint ., on the type check's program",
    ok: linted.ok,
    output: linted.output,
    seconds: (performance.now() - typed) / 1000,
  });
  return checks;
}

// Colour as tsc and eslint choose it: a terminal, or FORCE_COLOR (scripts/test.mjs sets it when
// its own output is a terminal).
const pretty =
  process.stdout.isTTY ||
  (process.env.FORCE_COLOR !== undefined && process.env.FORCE_COLOR !== '0');
const checks = await typecheckAndLint(process.cwd(), { pretty });
if (process.send !== undefined) {
  process.send({ checks }, () => process.disconnect());
} else {
  for (const check of checks) {
    process.stdout.write(`── ${check.name}: ${check.shown} ──\n${check.output}`);
    process.stdout.write(
      `── ${check.name}: ${check.ok ? 'ok' : 'FAILED'} in ${check.seconds.toFixed(1)} s ──\n\n`,
    );
  }
}
process.exitCode = checks.every((check) => check.ok) ? 0 : 1;
