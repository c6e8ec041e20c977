import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The repository root, whose package is packed and whose lock file pins every version. */
export const REPO = join(import.meta.dirname, '..', '..');

/**
 * What the temporary project needs besides faultline: a test runner and a type checker, and what
 * a user of `faultline/langgraph` installs beside it (LangGraph.js is not faultline's dependency).
 */
const PROJECT_DEV_DEPENDENCIES = [
  'vitest',
  'typescript',
  '@types/node',
  '@langchain/core',
  '@langchain/langgraph',
  '@langchain/langgraph-checkpoint-sqlite',
] as const;

interface LockEntry {
  version?: string;
  resolved?: string;
  integrity?: string;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  [key: string]: unknown;
}
interface Lock {
  packages: Record<string, LockEntry>;
}

function npm(args: string[], cwd: string): string {
  return execFileSync('npm', args, {
    cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, npm_config_update_notifier: 'false', npm_config_fund: 'false' },
  });
}

/**
 * The repository's build, as `prepack` runs it (`npm run build`: `tsc -p tsconfig.build.json`),
 * without its type check: `npm test`'s `tsc --noEmit` checks every file the build compiles
 * (tsconfig.json includes them all, with the same options), and checking them a second time here
 * cost about 17 CPU-seconds. What only a build can fail still fails it: `--noCheck` reports
 * parse, option and declaration-emit errors (a declaration that cannot name a type).
 */
export const BUILD_WITHOUT_CHECK = ['-p', 'tsconfig.build.json', '--noCheck'] as const;

/**
 * Packs the repository into `dir`, dist/ built as `prepack` builds it (see
 * {@link BUILD_WITHOUT_CHECK}); returns the tarball's file name.
 */
export function pack(dir: string): string {
  const tsc = join(REPO, 'node_modules', 'typescript', 'bin', 'tsc');
  const built = spawnSync(process.execPath, [tsc, ...BUILD_WITHOUT_CHECK], {
    cwd: REPO,
    encoding: 'utf8',
  });
  if (built.status !== 0)
    throw new Error(
      `the build failed (tsc ${BUILD_WITHOUT_CHECK.join(' ')}):\n${built.stdout}${built.stderr}`,
    );
  // The build above is prepack's: running it again through the script would only repeat it.
  const packArgs = ['pack', '--json', '--ignore-scripts', '--pack-destination', dir];
  const [packed] = JSON.parse(npm(packArgs, REPO)) as {
    filename: string;
  }[];
  if (!packed) throw new Error('npm pack reported no tarball');
  return packed.filename;
}

/** Where Node would find `name` from the package at lock path `from` (nested first, then up). */
function resolveIn(lock: Lock, from: string, name: string): string | undefined {
  let base = from;
  for (;;) {
    const candidate = `${base === '' ? '' : `${base}/`}node_modules/${name}`;
    if (candidate in lock.packages) return candidate;
    if (base === '') return undefined;
    const cut = base.lastIndexOf('/node_modules/');
    base = cut < 0 ? '' : base.slice(0, cut);
  }
}

/**
 * A lock file for the temporary project, cut from the repository's: the tarball, and the
 * closure of what the tarball declares plus the project's own test tools, at the versions the
 * repository pins. With it `npm ci --offline` resolves nothing and fetches nothing, and a
 * package faultline imports but only the repository has (a devDependency) is not installed, so
 * importing it fails here as it would for a user.
 */
function projectLock(tarball: string, packed: LockEntry, devDependencies: Record<string, string>) {
  const registry = npm(['config', 'get', 'registry'], REPO).trim().replace(/\/?$/, '/');
  const repo = JSON.parse(readFileSync(join(REPO, 'package-lock.json'), 'utf8')) as Lock;
  const packages: Record<string, LockEntry> = {};
  const queue: [string, string][] = [
    ...Object.keys(packed.dependencies ?? {}).map((n): [string, string] => [
      'node_modules/faultline',
      n,
    ]),
    ...Object.keys(devDependencies).map((n): [string, string] => ['', n]),
  ];
  for (let next = queue.shift(); next; next = queue.shift()) {
    const [from, name] = next;
    const at = resolveIn(repo, from === 'node_modules/faultline' ? '' : from, name);
    if (!at) {
      if (from.length > 0 && repo.packages[from]?.optionalDependencies?.[name] !== undefined)
        continue;
      throw new Error(`${name} (needed by ${from || 'the project'}) is not in package-lock.json`);
    }
    if (at in packages) continue;
    const { dev: _dev, devOptional: _devOptional, peer: _peer, ...entry } = repo.packages[at] ?? {};
    // The repository's lock omits tarball addresses; without one npm ci asks the registry for
    // the package's metadata, which an offline install cannot do. The cache holds tarballs by
    // integrity, found through the registry's usual address.
    const base = name.split('/').pop() ?? name;
    packages[at] = {
      resolved: `${registry}${name}/-/${base}-${entry.version ?? ''}.tgz`,
      ...entry,
    };
    const optionalPeers = entry.peerDependenciesMeta ?? {};
    for (const dep of [
      ...Object.keys(entry.dependencies ?? {}),
      ...Object.keys(entry.optionalDependencies ?? {}),
      ...Object.keys(entry.peerDependencies ?? {}).filter(
        (p) => optionalPeers[p]?.optional !== true,
      ),
    ])
      queue.push([at, dep]);
  }
  return {
    name: 'packed-project',
    lockfileVersion: 3,
    requires: true,
    packages: {
      '': {
        name: 'packed-project',
        dependencies: { faultline: `file:${tarball}` },
        devDependencies,
      },
      'node_modules/faultline': { ...packed, resolved: `file:${tarball}` },
      ...packages,
    },
  };
}

/**
 * Makes a fresh project in `dir` that depends on the tarball (already in `dir`), and installs it
 * with `npm ci --offline`: every package comes from npm's cache, which the repository's own
 * `npm ci` filled. Install scripts are skipped and better-sqlite3 gets the binary this
 * repository already built, so it is not compiled a second time (nor downloaded).
 */
export function installProject(dir: string, tarball: string): void {
  const repoManifest = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as {
    devDependencies: Record<string, string>;
  };
  const devDependencies = Object.fromEntries(
    PROJECT_DEV_DEPENDENCIES.map((name) => [name, repoManifest.devDependencies[name] ?? '*']),
  );
  const packed = JSON.parse(
    execFileSync('tar', ['-xOzf', join(dir, tarball), 'package/package.json'], {
      encoding: 'utf8',
    }),
  ) as LockEntry & { name: string };
  const { name: _name, scripts: _scripts, devDependencies: _dev, files: _files, ...entry } = packed;
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify(
      {
        name: 'packed-project',
        private: true,
        type: 'module',
        dependencies: { faultline: `file:${tarball}` },
        devDependencies,
      },
      null,
      2,
    ),
  );
  writeFileSync(
    join(dir, 'package-lock.json'),
    JSON.stringify(projectLock(tarball, entry, devDependencies), null, 2),
  );
  npm(['ci', '--offline', '--ignore-scripts', '--no-audit', '--no-fund'], dir);
  const binary = join('node_modules', 'better-sqlite3', 'build', 'Release', 'better_sqlite3.node');
  mkdirSync(join(dir, binary, '..'), { recursive: true });
  copyFileSync(join(REPO, binary), join(dir, binary));
}
