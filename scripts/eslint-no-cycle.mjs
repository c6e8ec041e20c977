// @ts-check
// An ESLint rule: no import cycle among the project's own files, read from the TypeScript
// program the type-aware rules already use.
//
// Why not import-x/no-cycle: with our imports naming the emitted `./x.js` of a source `./x.ts`,
// its resolver found none of our files, so it could never fail; taught the `.js` → `.ts` alias,
// it resolved and parsed every file's imports again on its own, and took about 40 % of the whole
// lint's time. The program has every import resolved already: the graph is built once per
// program (a few milliseconds), its cycles found once (strongly connected components), and each
// file's imports are then looked up.
//
// An edge is a static `import` or `export … from` that stays in the emitted JavaScript:
// `import type` and `export type` are erased and make none (`import { type A }` stays, as an
// empty import, under verbatimModuleSyntax). A dynamic `import()` makes none either: a module
// loaded on first use is how a cycle of evaluation order is avoided, and the lazy loading of
// the command and the model stack relies on it. Only files of the program that are not
// declaration files and not from node_modules take part.
import ts from 'typescript';

/** @typedef {{ edges: Map<string, Set<string>>, component: Map<string, number>, sizes: number[] }} Graph */

/** @type {WeakMap<ts.Program, Graph>} */
const graphs = new WeakMap();

/** @param {ts.Program} program @param {ts.SourceFile} file */
function own(program, file) {
  return !file.isDeclarationFile && !program.isSourceFileFromExternalLibrary(file);
}

/**
 * The module specifiers of `file` that make a runtime edge.
 * @param {ts.SourceFile} file
 * @returns {ts.StringLiteralLike[]}
 */
function runtimeSpecifiers(file) {
  const found = [];
  for (const statement of file.statements) {
    if (ts.isImportDeclaration(statement)) {
      if (statement.importClause?.isTypeOnly) continue;
      if (ts.isStringLiteralLike(statement.moduleSpecifier)) found.push(statement.moduleSpecifier);
    } else if (ts.isExportDeclaration(statement)) {
      if (statement.isTypeOnly || statement.moduleSpecifier === undefined) continue;
      if (ts.isStringLiteralLike(statement.moduleSpecifier)) found.push(statement.moduleSpecifier);
    }
  }
  return found;
}

/**
 * The program's own file `specifier` resolves to, if any.
 * @param {ts.Program} program @param {ts.StringLiteralLike} specifier @param {ts.SourceFile} file
 */
function target(program, specifier, file) {
  const resolved = program.getResolvedModuleFromModuleSpecifier(specifier, file)?.resolvedModule;
  if (resolved === undefined || resolved.isExternalLibraryImport) return undefined;
  const to = program.getSourceFile(resolved.resolvedFileName);
  return to !== undefined && own(program, to) ? to.fileName : undefined;
}

/** @param {ts.Program} program @returns {Graph} */
function graphOf(program) {
  const cached = graphs.get(program);
  if (cached) return cached;
  /** @type {Map<string, Set<string>>} */
  const edges = new Map();
  for (const file of program.getSourceFiles()) {
    if (!own(program, file)) continue;
    const out = new Set();
    for (const specifier of runtimeSpecifiers(file)) {
      const to = target(program, specifier, file);
      if (to !== undefined) out.add(to);
    }
    edges.set(file.fileName, out);
  }
  // Tarjan's strongly connected components, iteratively (no recursion depth to run out of).
  /** @type {Map<string, number>} */
  const component = new Map();
  /** @type {number[]} */
  const sizes = [];
  /** @type {Map<string, number>} */
  const index = new Map();
  /** @type {Map<string, number>} */
  const low = new Map();
  /** @type {string[]} */
  const stack = [];
  const onStack = new Set();
  let next = 0;
  for (const root of edges.keys()) {
    if (index.has(root)) continue;
    /** @type {[string, Iterator<string>][]} */
    const work = [[root, (edges.get(root) ?? new Set()).values()]];
    index.set(root, next);
    low.set(root, next++);
    stack.push(root);
    onStack.add(root);
    while (work.length > 0) {
      const top = work[work.length - 1];
      if (top === undefined) break;
      const [node, pending] = top;
      const step = pending.next();
      if (!step.done) {
        const to = step.value;
        if (!index.has(to)) {
          index.set(to, next);
          low.set(to, next++);
          stack.push(to);
          onStack.add(to);
          work.push([to, (edges.get(to) ?? new Set()).values()]);
        } else if (onStack.has(to)) {
          low.set(node, Math.min(low.get(node) ?? 0, index.get(to) ?? 0));
        }
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent !== undefined)
        low.set(parent[0], Math.min(low.get(parent[0]) ?? 0, low.get(node) ?? 0));
      if (low.get(node) === index.get(node)) {
        const id = sizes.length;
        let size = 0;
        let member;
        do {
          member = stack.pop();
          if (member === undefined) break;
          onStack.delete(member);
          component.set(member, id);
          size++;
        } while (member !== node);
        sizes.push(size);
      }
    }
  }
  const graph = { edges, component, sizes };
  graphs.set(program, graph);
  return graph;
}

/**
 * The shortest way from `from` back to `to` inside their component, for the message.
 * @param {Graph} graph @param {string} from @param {string} to
 */
function pathBack(graph, from, to) {
  const id = graph.component.get(from);
  /** @type {Map<string, string | null>} */
  const previous = new Map([[from, null]]);
  const queue = [from];
  for (let at = 0; at < queue.length; at++) {
    const node = queue[at] ?? '';
    if (node === to) break;
    for (const next of graph.edges.get(node) ?? []) {
      if (previous.has(next) || graph.component.get(next) !== id) continue;
      previous.set(next, node);
      queue.push(next);
    }
  }
  const path = [];
  for (let node = to; node !== null && node !== undefined; node = previous.get(node) ?? null)
    path.unshift(node);
  return path;
}

/** @type {import('eslint').Rule.RuleModule} */
export const noCycle = {
  meta: {
    type: 'problem',
    docs: { description: 'Disallow import cycles among the TypeScript program’s own files' },
    messages: { cycle: 'Import cycle: {{path}}.' },
    schema: [],
  },
  create(context) {
    const program = /** @type {ts.Program | undefined | null} */ (
      context.sourceCode.parserServices?.program
    );
    // A file linted without type information (JavaScript here) has no program and no edges.
    if (!program) return {};
    const file = program.getSourceFile(context.filename);
    if (file === undefined || !own(program, file)) return {};
    const graph = graphOf(program);
    const id = graph.component.get(file.fileName);
    if (id === undefined) return {};
    const cyclic = (graph.sizes[id] ?? 0) > 1 || graph.edges.get(file.fileName)?.has(file.fileName);
    if (!cyclic) return {};
    const cwd = context.cwd;
    const shown = (/** @type {string} */ name) =>
      name.startsWith(`${cwd}/`) ? name.slice(cwd.length + 1) : name;
    const map = context.sourceCode.parserServices?.esTreeNodeToTSNodeMap;
    /** @param {import('estree').Node & { source?: import('estree').Literal | null, importKind?: string, exportKind?: string }} node */
    const check = (node) => {
      if (!node.source || node.importKind === 'type' || node.exportKind === 'type') return;
      const specifier = /** @type {ts.StringLiteralLike | undefined} */ (map?.get(node.source));
      if (specifier === undefined) return;
      const to = target(program, specifier, file);
      if (to === undefined || graph.component.get(to) !== id) return;
      const path = [file.fileName, ...pathBack(graph, to, file.fileName)];
      context.report({ node, messageId: 'cycle', data: { path: path.map(shown).join(' → ') } });
    };
    return {
      ImportDeclaration: check,
      ExportNamedDeclaration: check,
      ExportAllDeclaration: check,
    };
  },
};
