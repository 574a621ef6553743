#!/usr/bin/env node
// `npm run build`: compiles the sources into dist/ and stamps the build, so that `npm start` can tell
// in a few milliseconds, without loading TypeScript, whether the sources changed since.
import { spawnSync } from 'node:child_process';
import {
  closeSync,
  existsSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const projectRoot = fileURLToPath(new URL('..', import.meta.url));
const stamp = (root) => join(root, 'dist', '.build-stamp');
/** What the build reads: every folder of sources the server and the command line import, and the two configurations. */
const sourceDirs = [
  'cli',
  'server',
  'rest',
  'auth',
  'analytics',
  'mcp',
  'tools',
  'services',
  'db',
  'core',
  'parsing',
  'views',
  'mail',
  'webhooks',
  'alerts',
];
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

/** True when dist/ was built, bundle included, after the last change to any source file. */
export function buildIsCurrent(root = projectRoot) {
  if (!existsSync(stamp(root)) || !existsSync(join(root, 'dist', 'bundle', 'portfolio.js'))) return false;
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

/**
 * Packages that stay outside the bundle: native drivers, packages that find their own files at run
 * time (pino's transports start worker threads by module path, swagger-ui-dist is served from its
 * folder, OpenTelemetry's tracing registers a module loader hook; its API, which prom-client uses, is
 * inside) and the drivers knex names but that are not installed.
 */
const external = [
  'better-sqlite3',
  'pg',
  'pg-native',
  'pg-query-stream',
  'pino',
  'pino-pretty',
  'thread-stream',
  'swagger-ui-dist',
  'unpdf',
  'ioredis',
  '@opentelemetry/sdk-*',
  '@opentelemetry/exporter-*',
  '@opentelemetry/instrumentation*',
  '@opentelemetry/resources',
  'mysql',
  'mysql2',
  'mariadb',
  'mariadb/*',
  'oracledb',
  'tedious',
  'sqlite3',
];

/**
 * The compiled `portfolio` command and the document-parsing child as a few files in dist/bundle/, with
 * the JavaScript packages they use inside: a start opens about a hundred files instead of twelve hundred.
 * Lazily loaded parts (the MCP server, the import command, tracing) stay separate chunks, loaded when used.
 * dist/bundle/ sits one folder below dist/ like the compiled modules, so their relative paths hold.
 */
function bundle() {
  const esbuild = createRequire(import.meta.url)('esbuild');
  const outdir = join(projectRoot, 'dist', 'bundle');
  rmSync(outdir, { recursive: true, force: true });
  try {
    esbuild.buildSync({
      entryPoints: ['cli/portfolio.js', 'parsing/parse-child.js'].map((f) => join(projectRoot, 'dist', f)),
      bundle: true,
      format: 'esm',
      splitting: true,
      platform: 'node',
      target: 'node22',
      outdir,
      entryNames: '[name]',
      chunkNames: '[name]-[hash]',
      external,
      // The CommonJS packages inside require Node's own modules.
      banner: {
        js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
      },
      logLevel: 'warning',
    });
  } catch {
    return 1;
  }
  try {
    asciiSources(outdir);
  } catch (err) {
    process.stderr.write(`${err.message}\n`);
    return 1;
  }
  return 0;
}

/**
 * Writes the JavaScript files of `dir` in ASCII. esbuild escapes strings, templates, regular
 * expressions and names itself, but keeps the comments before class members as written (a dash in a
 * dependency's comment). V8 keeps a script's source for as long as the script lives, and a source with
 * one character beyond Latin-1 is kept at two bytes a character: the bundle's five largest chunks took
 * 8.6 MB of heap. A `\uXXXX` escape stands for the same character everywhere except in a line comment,
 * where a line or paragraph separator ends the comment and its escape would not: a file with one is
 * refused.
 */
export function asciiSources(dir) {
  for (const name of readdirSync(dir)) {
    if (!name.endsWith('.js')) continue;
    const path = join(dir, name);
    const text = readFileSync(path, 'utf8');
    if (!/[\u0080-\uffff]/.test(text)) continue;
    if (/[\u2028\u2029]/.test(text))
      throw new Error(
        `${path} holds a line or paragraph separator (U+2028, U+2029): cannot write it in ASCII`,
      );
    const unicodeEscape = (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
    writeFileSync(path, text.replace(/[\u0080-\uffff]/g, unicodeEscape));
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
  const bundled = bundle();
  if (bundled !== 0) return bundled;
  // Stamped with the time the build began: a file saved during the build counts as a change.
  closeSync(openSync(stamp(projectRoot), 'w'));
  utimesSync(stamp(projectRoot), started, started);
  return 0;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) process.exit(build());
