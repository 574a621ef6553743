#!/usr/bin/env node
// `npm run build`: compiles the sources into dist/ and stamps the build, so that `npm start` can tell
// in a few milliseconds, without loading TypeScript, whether the sources changed since.
import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, openSync, readdirSync, statSync, utimesSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const projectRoot = fileURLToPath(new URL('..', import.meta.url));
const stamp = (root) => join(root, 'dist', '.build-stamp');
/** What the build reads: the folders tsconfig.build.json includes and the two configurations. */
const sourceDirs = ['cli', 'server', 'rest', 'auth', 'tools', 'db', 'core', 'parsing', 'views'];
const configFiles = ['tsconfig.json', 'tsconfig.build.json'];

function newestIn(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestIn(path));
    else if (entry.isFile()) newest = Math.max(newest, statSync(path).mtimeMs);
  }
  // A deleted or renamed file moves its directory's mtime.
  return Math.max(newest, statSync(dir).mtimeMs);
}

/** True when dist/ was built after the last change to any source file. */
export function buildIsCurrent(root = projectRoot) {
  if (!existsSync(stamp(root))) return false;
  const built = statSync(stamp(root)).mtimeMs;
  const sources = Math.max(
    ...sourceDirs
      .map((d) => join(root, d))
      .filter(existsSync)
      .map(newestIn),
    ...configFiles.map((f) => statSync(join(root, f)).mtimeMs),
  );
  return sources <= built;
}

/** The TypeScript compiler; undefined in an install without development dependencies. */
export function compiler() {
  try {
    return createRequire(import.meta.url).resolve('typescript/bin/tsc');
  } catch {
    return undefined;
  }
}

/** Runs tsc; answers its exit status. The stamp is written only after a build without errors. */
export function build() {
  const tsc = compiler();
  if (!tsc) {
    process.stderr.write(
      'cannot build dist/: TypeScript is not installed (npm install without --omit=dev)\n',
    );
    return 1;
  }
  const started = new Date();
  const result = spawnSync(process.execPath, [tsc, '-p', join(projectRoot, 'tsconfig.build.json')], {
    stdio: 'inherit',
  });
  if (result.status !== 0) return result.status ?? 1;
  // The MCP Apps views: one self-contained HTML page each, bundled by esbuild (through tsx).
  const views = spawnSync(
    process.execPath,
    ['--import', 'tsx', join(projectRoot, 'scripts', 'build-views.ts')],
    {
      stdio: 'inherit',
      cwd: projectRoot,
    },
  );
  if (views.status !== 0) return views.status ?? 1;
  // Stamped with the time the build began: a file saved during the build counts as a change.
  closeSync(openSync(stamp(projectRoot), 'w'));
  utimesSync(stamp(projectRoot), started, started);
  return 0;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) process.exit(build());
