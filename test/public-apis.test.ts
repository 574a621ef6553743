import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';

// Product code uses the public APIs of knex, pg, better-sqlite3 and the MCP SDK only: a private member
// can change in any release, with every test of the pinned versions still green.

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
/** Top-level folders that are not product code. */
const NOT_PRODUCT = new Set(['test', 'bench', 'scripts', 'docs', 'dist', 'node_modules']);

/** Private members and generated code, each with what it is. */
const PRIVATE: readonly [RegExp, string][] = [
  [/\b_query\s*\(/, "knex's Client#_query"],
  [/\bpositionBindings\b/, "knex's Client#positionBindings"],
  [/\.(acquire|release)Connection\s*\(/, "knex's Client#acquireConnection / releaseConnection"],
  [/\btransacting\b/, "knex's Client#transacting"],
  [/\bclient\.(config|pool|connectionSettings)\b/, "knex's Client#config / pool"],
  [/\b_formatBindings\b/, "knex's Client#_formatBindings"],
  [/\b(parsedStatements|submittedNamedStatements)\b/, "pg's Connection#parsedStatements"],
  [/\bnew Function\s*\(/, 'code generated at run time'],
  [/\b_(requestHandlers|transport|onrequest|responseHandlers)\b/, "the MCP SDK's Protocol internals"],
  [/['"]@modelcontextprotocol\/sdk\/dist\//, "the MCP SDK's files by path"],
  [/['"]pg\/lib\//, "pg's files by path"],
  [/['"]knex\/lib\//, "knex's files by path"],
];

/**
 * Known exceptions, each a file and the one pattern it may still use. db/sqlite-client.ts makes every
 * SQLite transaction BEGIN IMMEDIATE by extending knex's dialect classes, which knex publishes no other
 * way to reach.
 */
const KNOWN: readonly [string, string][] = [
  ['db/sqlite-client.ts', "knex's files by path"],
  ['db/knex-internals.d.ts', "knex's files by path"],
];

function sources(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sources(path);
    return /\.(ts|mts|mjs|js)$/.test(e.name) ? [path] : [];
  });
}

const productFiles = readdirSync(root, { withFileTypes: true })
  .filter((e) => e.isDirectory() && !e.name.startsWith('.') && !NOT_PRODUCT.has(e.name))
  .flatMap((e) => sources(e.name));

/** Where a text names a private member: `file:line what`. */
function offences(file: string, text: string): string[] {
  return text
    .split('\n')
    .flatMap((line, i) =>
      PRIVATE.filter(
        ([pattern, what]) => pattern.test(line) && !KNOWN.some(([f, w]) => f === file && w === what),
      ).map(([, what]) => `${file}:${i + 1} ${what}`),
    );
}

describe('public APIs of dependencies only', () => {
  it('finds no private member of knex, pg or the MCP SDK, nor generated code, in product code', () => {
    expect(productFiles.length).to.be.greaterThan(100);
    const found = productFiles.flatMap((file) => offences(file, readFileSync(join(root, file), 'utf8')));
    expect(found).to.deep.equal([]);
  });

  it('would catch each private member it lists', () => {
    const samples = [
      'await client._query(conn, obj);',
      'const text = client.positionBindings(sql);',
      'const conn = await trx.client.acquireConnection();',
      'if (client.transacting) return;',
      'const cache = db.client.config.countCache;',
      'delete conn.connection.parsedStatements[name];',
      "const build = new Function('v', 'return v');",
      "import PgDialect from 'knex/lib/dialects/postgres/index.js';",
    ];
    for (const sample of samples) expect(offences('db/example.ts', sample), sample).to.have.length(1);
    // A public option whose name begins the same is not one.
    expect(offences('db/example.ts', 'acquireConnectionTimeout: 5000,')).to.deep.equal([]);
  });
});
