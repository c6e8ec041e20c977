// Run by test/package/pack.test.ts in the packed project (its working folder): the project's own
// TypeScript builds the program `tsc --noEmit` builds from the project's tsconfig.json, plus the
// files named as arguments, and reports, as JSON on stdout, every file in the program, the files
// it checked, and each diagnostic with its file and code.
//
// What it checks is what `tsc --noEmit` would report in the project's own files and in
// faultline's declarations (`skipLibCheck: false`): the options, the syntax of every file, the
// types of those files, and the program's global diagnostics. The other packages' declarations
// (zod, the MCP SDK, Node's types) are parsed and bound but not checked file by file: checking
// them was about half of a full `tsc` (17–20 CPU-seconds against 9–10), and nothing in them is
// faultline's.
import { createRequire } from 'node:module';
import { join } from 'node:path';
import process from 'node:process';

const ts = createRequire(join(process.cwd(), 'package.json'))('typescript');

const config = ts.getParsedCommandLineOfConfigFile('tsconfig.json', undefined, {
  ...ts.sys,
  onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
    throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
  },
});
const program = ts.createProgram({
  rootNames: [
    ...config.fileNames,
    ...process.argv.slice(2).map((file) => join(process.cwd(), file)),
  ],
  options: config.options,
  projectReferences: config.projectReferences,
  configFileParsingDiagnostics: ts.getConfigFileParsingDiagnostics(config),
});

/** The project's own files and faultline's: not another package's. */
const ours = (file) =>
  !file.fileName.includes('/node_modules/') || file.fileName.includes('/node_modules/faultline/');

const files = program.getSourceFiles();
const checked = files.filter(ours);
const diagnostics = [
  ...program.getConfigFileParsingDiagnostics(),
  ...program.getOptionsDiagnostics(),
  ...files.flatMap((file) => program.getSyntacticDiagnostics(file)),
  ...checked.flatMap((file) => program.getSemanticDiagnostics(file)),
  // After the files' checks: what they found that belongs to no one file.
  ...program.getGlobalDiagnostics(),
];

process.stdout.write(
  JSON.stringify({
    files: files.map((file) => file.fileName),
    checked: checked.map((file) => file.fileName),
    diagnostics: diagnostics.map((diagnostic) => ({
      file: diagnostic.file?.fileName ?? null,
      code: diagnostic.code,
      text: ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'),
    })),
  }),
);
