import { execFileSync, spawn } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import Database from 'better-sqlite3';
import { expect } from 'chai';
import { migrateLatest } from '../db/knex.ts';
import { migrationSource } from '../db/migrations/index.ts';
import { DEMO } from '../db/seeds/demo.ts';
import { asciiSources, buildIsCurrent } from '../scripts/build.mjs';
import { cliEntry } from './helpers/build.ts';
import { type ChildServer, spawnServer } from './helpers/child-server.ts';
import { dialects, type TestDb } from './helpers/db.ts';

const root = fileURLToPath(new URL('..', import.meta.url));

interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `portfolio ARGS` (the sources, or the build with TEST_COMPILED=1) in a child process. */
function portfolio(
  databaseUrl: string,
  args: string[],
  node = process.execPath,
  entry = cliEntry,
): Promise<Result> {
  const child = spawn(node, [entry, ...args], {
    cwd: root,
    env: { ...process.env, DATABASE_URL: databaseUrl, LOG_LEVEL: 'silent' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => {
    stdout += d;
  });
  child.stderr.on('data', (d) => {
    stderr += d;
  });
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

function expectOneLineFailure(r: Result, message: RegExp): void {
  expect(r.code, r.stderr).to.equal(1);
  expect(r.stdout).to.equal('');
  const lines = r.stderr.trimEnd().split('\n');
  expect(lines, r.stderr).to.have.length(1);
  expect(lines[0]).to.match(message);
}

async function demoToken(url: string): Promise<string> {
  const res = await fetch(`${url}/o/token/`, {
    method: 'POST',
    headers: {
      Authorization: `Basic ${Buffer.from(`${DEMO.clientId}:${DEMO.clientSecret}`).toString('base64')}`,
      'Content-Type': 'application/x-www-form-urlencoded',
    },
    body: 'grant_type=client_credentials',
  });
  expect(res.status).to.equal(200);
  return ((await res.json()) as { access_token: string }).access_token;
}

/** Creates companies one after another until stopped; `acked` holds the names the server confirmed. */
function keepWriting(url: string, token: string) {
  const acked: string[] = [];
  let stopped = false;
  const done = (async () => {
    for (let i = 0; !stopped; i++) {
      const name = `Backup Probe ${i}`;
      const res = await fetch(`${url}/v1/companies/`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ name }),
      });
      if (res.status !== 201) throw new Error(`write ${i} answered ${res.status}: ${await res.text()}`);
      acked.push(name);
    }
  })();
  return {
    acked,
    async stop() {
      stopped = true;
      await done;
    },
  };
}

function companyNames(file: string): Set<string> {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    return new Set((db.prepare('select name from companies').all() as { name: string }[]).map((r) => r.name));
  } finally {
    db.close();
  }
}

describe('backup and restore of a SQLite database', function () {
  this.timeout(180_000);
  let dir: string;
  // No connection of this process may stay open on the database: restore would rightly refuse it.
  let t: { url: string };
  let server: ChildServer | undefined;
  let file: string;
  const backupFile = () => join(dir, 'backup.db');

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'pds-ops-'));
    file = join(dir, 'service', 'portfolio.db');
    t = { url: `sqlite:${file}` };
  });
  after(async () => {
    await server?.kill();
    rmSync(dir, { recursive: true, force: true });
  });

  it('backs up a consistent copy, documents included, while the server keeps writing', async () => {
    // An empty database on a loopback host: the server seeds the demo data (documents among it).
    server = await spawnServer(t.url, { DOCUMENT_PARSING: 'off' }, 90_000);
    const token = await demoToken(server.url);
    const writer = keepWriting(server.url, token);
    try {
      while (writer.acked.length < 10) await new Promise((r) => setTimeout(r, 20));
      const ackedBefore = [...writer.acked];
      const r = await portfolio(t.url, ['backup', backupFile(), '--json']);
      const ackedAfter = writer.acked.length;
      expect(r.code, r.stderr).to.equal(0);
      const out = JSON.parse(r.stdout) as { file: string; bytes: number; migrations: number };
      expect(out.file).to.equal(backupFile());
      expect(out.migrations).to.equal((await migrationSource.getMigrations([])).length);
      // Writes went on while the backup ran.
      expect(ackedAfter).to.be.greaterThan(ackedBefore.length);

      const copy = new Database(backupFile(), { readonly: true, fileMustExist: true });
      try {
        expect(copy.pragma('integrity_check', { simple: true })).to.equal('ok');
        expect(copy.pragma('journal_mode', { simple: true })).to.equal('delete');
        const docs = copy.prepare('select count(*) as n from documents').get() as { n: number };
        expect(docs.n).to.be.greaterThan(0);
      } finally {
        copy.close();
      }
      const names = companyNames(backupFile());
      expect(ackedBefore.filter((n) => !names.has(n))).to.deep.equal([]);
      // The copy is one self-contained file.
      expect(existsSync(`${backupFile()}-wal`)).to.equal(false);
    } finally {
      await writer.stop();
    }
  });

  it('refuses to overwrite an existing file with a backup', async () => {
    const before = readFileSync(backupFile());
    expectOneLineFailure(await portfolio(t.url, ['backup', backupFile()]), /already exists/);
    expect(readFileSync(backupFile()).equals(before)).to.equal(true);
  });

  it('refuses to restore while a server has the database open, and leaves it as it was', async () => {
    expect(server).to.not.equal(undefined);
    const r = await portfolio(t.url, ['restore', backupFile()]);
    expectOneLineFailure(
      r,
      /^portfolio: the database .* is in use by another process \(a running server\?\); stop it/,
    );
    const res = await fetch(`${server!.url}/readyz`);
    expect(res.status).to.equal(200);
    expect(readdirNames(file)).to.deep.equal([]);
  });

  it('restores the backup into the stopped database, keeping the one it replaced', async () => {
    await server!.stop();
    server = undefined;
    const current = companyNames(file);
    const backedUp = companyNames(backupFile());
    // Writes after the backup are in the database but not in the backup.
    expect(current.size).to.be.greaterThan(backedUp.size);
    const r = await portfolio(t.url, ['restore', backupFile(), '--json']);
    expect(r.code, r.stderr).to.equal(0);
    const out = JSON.parse(r.stdout) as { database: string; replaced: string };
    expect(out.database).to.equal(file);
    expect(companyNames(file)).to.deep.equal(backedUp);
    expect(companyNames(out.replaced)).to.deep.equal(current);
    // The service runs on the restored database.
    server = await spawnServer(t.url, { DOCUMENT_PARSING: 'off' }, 90_000);
    expect((await fetch(`${server.url}/readyz`)).status).to.equal(200);
    await server.stop();
    server = undefined;
  });

  it('refuses to restore a file that is not a database of this service', async () => {
    const text = join(dir, 'notes.txt');
    writeFileSync(text, 'not a database\n'.repeat(100));
    const other = join(dir, 'other.db');
    const foreign = new Database(other);
    foreign.exec('create table t (x)');
    foreign.close();
    const before = companyNames(file);
    expectOneLineFailure(await portfolio(t.url, ['restore', text]), /notes\.txt is not a SQLite database$/);
    expectOneLineFailure(
      await portfolio(t.url, ['restore', other]),
      /other\.db is not a database of this service \(it has no migration table\)$/,
    );
    expectOneLineFailure(
      await portfolio(t.url, ['restore', join(dir, 'missing.db')]),
      /missing\.db does not exist$/,
    );
    expect(companyNames(file)).to.deep.equal(before);
  });

  it('restores into a database file that does not exist yet', async () => {
    const fresh = join(dir, 'new', 'restored.db');
    const r = await portfolio(`sqlite:${fresh}`, ['restore', backupFile()]);
    expect(r.code, r.stderr).to.equal(0);
    expect(r.stdout).to.include(`there was no database at ${fresh} before`);
    expect(companyNames(fresh)).to.deep.equal(companyNames(backupFile()));
  });
});

/** Files a restore leaves beside a database it refused to touch. */
function readdirNames(file: string): string[] {
  return readdirSync(dirname(file)).filter((n) => n.startsWith(`${basename(file)}.`));
}

for (const dialect of dialects) {
  describe(`portfolio migrate --status (${dialect.name}) @db`, function () {
    this.timeout(60_000);
    let t: TestDb;
    before(async () => {
      t = await dialect.open();
    });
    after(async () => {
      await t?.drop();
    });

    it('lists the pending migrations of an older database without applying them; migrate applies them', async () => {
      const all = (await migrationSource.getMigrations([])).map((m) => migrationSource.getMigrationName(m));
      // The database as the previous two versions left it.
      await t.db.migrate.down({ migrationSource });
      await t.db.migrate.down({ migrationSource });
      const status = await portfolio(t.url, ['migrate', '--status', '--json']);
      expect(status.code, status.stderr).to.equal(0);
      expect(JSON.parse(status.stdout)).to.deep.equal({ applied: all.slice(0, -2), pending: all.slice(-2) });
      const human = await portfolio(t.url, ['migrate', '--status']);
      expect(human.stdout).to.match(new RegExp(`${all.at(-1)}\\s+pending`));
      expect(human.stdout).to.include('2 pending');
      // Nothing was applied by asking.
      expect(
        ((await t.db('knex_migrations').pluck('name')) as string[]).sort(),
        'migrate --status applied a migration',
      ).to.deep.equal(all.slice(0, -2).sort());

      const applied = await portfolio(t.url, ['migrate', '--json']);
      expect(JSON.parse(applied.stdout)).to.deep.equal({ applied: all.slice(-2) });
      const after = await portfolio(t.url, ['migrate', '--status', '--json']);
      expect(JSON.parse(after.stdout)).to.deep.equal({ applied: all, pending: [] });
      expect((await portfolio(t.url, ['migrate', '--status'])).stdout).to.include(
        'the database is up to date',
      );
    });

    it('starts on an up-to-date database by reading what is applied, and refuses one a newer version migrated', async () => {
      await migrateLatest(t.db);
      const statements: string[] = [];
      const record = (q: { sql: string }) => statements.push(q.sql);
      t.db.on('query', record);
      try {
        expect(await migrateLatest(t.db)).to.deep.equal([]);
      } finally {
        t.db.off('query', record);
      }
      expect(statements.join('\n')).to.not.match(/knex_migrations_lock|begin|update|insert/i);
      expect(statements.length).to.be.at.most(2);

      const newer = '999_from_a_newer_version.ts';
      await t.db('knex_migrations').insert({ name: newer, batch: 999, migration_time: new Date() });
      try {
        let refused: unknown;
        await migrateLatest(t.db).catch((err: unknown) => {
          refused = err;
        });
        expect(String(refused)).to.match(new RegExp(`corrupt.*${newer}`));
      } finally {
        await t.db('knex_migrations').where({ name: newer }).delete();
      }
    });

    if (dialect.name === 'postgres') {
      it('refuses backup and restore on PostgreSQL, pointing to pg_dump and the README', async () => {
        const target = join(tmpdir(), `pds-never-${process.pid}.db`);
        for (const verb of ['backup', 'restore']) {
          const r = await portfolio(t.url, [verb, target]);
          expectOneLineFailure(
            r,
            new RegExp(
              `^portfolio: ${verb} works on SQLite databases; for PostgreSQL use pg_dump -Fc .*README`,
            ),
          );
        }
        expect(existsSync(target)).to.equal(false);
      });
    }
  });
}

/** Node binaries on this machine older than 22 (the machine's own Node is often 20). */
function oldNodes(): string[] {
  let found: string[] = [];
  try {
    found = execFileSync('which', ['-a', 'node'], { encoding: 'utf8' }).split('\n').filter(Boolean);
  } catch {}
  const old = new Map<string, string>();
  for (const node of [...found, '/usr/bin/node', '/usr/local/bin/node']) {
    if (!existsSync(node)) continue;
    try {
      const version = execFileSync(node, ['-p', 'process.versions.node'], { encoding: 'utf8' }).trim();
      if (Number(version.split('.')[0]) < 22) old.set(version, node);
    } catch {}
  }
  return [...old.values()];
}

describe('portfolio under an unsupported Node', function () {
  this.timeout(60_000);
  const nodes = oldNodes();

  for (const [label, entry] of [
    ['the compiled command (dist/cli/portfolio.js)', 'dist/cli/portfolio.js'],
    ['the bundled command (dist/bundle/portfolio.js)', 'dist/bundle/portfolio.js'],
    ['the sources through tsx (cli/portfolio.mjs)', 'cli/portfolio.mjs'],
  ] as const) {
    it(`${label} prints one line naming the Node it needs and exits 1`, async function () {
      if (nodes.length === 0) this.skip(); // no Node older than 22 on this machine
      if (!existsSync(join(root, entry))) this.skip(); // not built: npm run build
      for (const node of nodes) {
        const version = execFileSync(node, ['-p', 'process.versions.node'], { encoding: 'utf8' }).trim();
        const r = await portfolio('sqlite::memory:', ['--help'], node, entry);
        expectOneLineFailure(
          r,
          new RegExp(
            `^portfolio needs Node 22 or later \\(this is ${version.replace(/\./g, '\\.')}\\): run it through npm start ` +
              'or npx portfolio, which use the Node 24 installed with the project, or install Node 22\\+$',
          ),
        );
      }
    });
  }
});

describe('npm start', function () {
  this.timeout(180_000);

  it('tells a current build from sources changed since (file edited, added or removed) and from one without its bundle', () => {
    const project = mkdtempSync(join(tmpdir(), 'pds-build-'));
    try {
      for (const d of ['cli', 'server', 'dist/bundle', 'db/migrations'])
        mkdirSync(join(project, d), { recursive: true });
      for (const f of ['tsconfig.json', 'tsconfig.build.json', 'cli/main.ts', 'db/migrations/001.ts'])
        writeFileSync(join(project, f), '');
      const past = new Date(Date.now() - 60_000);
      for (const f of [
        'tsconfig.json',
        'tsconfig.build.json',
        'cli/main.ts',
        'db/migrations/001.ts',
        'cli',
        'server',
        'db',
        'db/migrations',
      ])
        utimesSync(join(project, f), past, past);
      expect(buildIsCurrent(project), 'no stamp yet').to.equal(false);
      writeFileSync(join(project, 'dist/.build-stamp'), '');
      expect(buildIsCurrent(project), 'a build from before the bundle').to.equal(false);
      writeFileSync(join(project, 'dist/bundle/portfolio.js'), '');
      expect(buildIsCurrent(project)).to.equal(true);
      const later = new Date(Date.now() + 10_000);
      utimesSync(join(project, 'db/migrations/001.ts'), later, later);
      expect(buildIsCurrent(project), 'an edited file').to.equal(false);
      utimesSync(join(project, 'db/migrations/001.ts'), past, past);
      expect(buildIsCurrent(project)).to.equal(true);
      rmSync(join(project, 'cli/main.ts'));
      utimesSync(join(project, 'cli'), later, later);
      expect(buildIsCurrent(project), 'a removed file').to.equal(false);
    } finally {
      rmSync(project, { recursive: true, force: true });
    }
  });

  it('writes the bundle in ASCII, escaping what esbuild leaves (comments), with the same meaning', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pds-ascii-'));
    try {
      const source =
        "export class K {\n  // a dependency's comment \u2014 with a dash\n" +
        "  static s = 'caf\u00e9 \u2026 \u{1F600}';\n  static r = /[\u00e9-\u00fc]+/u;\n}\n";
      writeFileSync(join(dir, 'chunk.js'), source);
      writeFileSync(join(dir, 'plain.js'), 'export const n = 1;\n');
      writeFileSync(join(dir, 'package.json'), '{"type":"module"}');
      asciiSources(dir);
      const written = readFileSync(join(dir, 'chunk.js'), 'utf8');
      expect(written).not.to.match(/[\u0080-\uffff]/);
      expect(written).to.include('\\u2014');
      const { K } = await import(pathToFileURL(join(dir, 'chunk.js')).href);
      expect(K.s).to.equal('caf\u00e9 \u2026 \u{1F600}');
      expect(K.r.test('\u00fcber')).to.equal(true);
      expect(readFileSync(join(dir, 'plain.js'), 'utf8')).to.equal('export const n = 1;\n');
      writeFileSync(join(dir, 'separator.js'), '// a comment\u2028export const x = 1;\n');
      expect(() => asciiSources(dir)).to.throw(/separator.js holds a line or paragraph separator/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('ships a bundle written in ASCII', function () {
    if (!buildIsCurrent()) this.skip(); // sources edited since the last build: npm run build
    const bundle = join(root, 'dist', 'bundle');
    const files = readdirSync(bundle).filter((f) => f.endsWith('.js'));
    expect(files).to.include('portfolio.js');
    const wide = files.filter((f) => /[\u0080-\uffff]/.test(readFileSync(join(bundle, f), 'utf8')));
    expect(wide, 'files with characters beyond ASCII').to.deep.equal([]);
  });

  it('serves /healthz soon after spawn on an existing build and database, without compiling', async function () {
    if (!buildIsCurrent()) this.skip(); // sources edited since the last build: npm run build
    const dir = mkdtempSync(join(tmpdir(), 'pds-start-'));
    try {
      const url = `sqlite:${join(dir, 'start.db')}`;
      expect((await portfolio(url, ['migrate'])).code).to.equal(0);
      const started = performance.now();
      const child = spawn('npm', ['start', '--silent'], {
        cwd: root,
        detached: true,
        env: { ...process.env, DATABASE_URL: url, PORT: '0', LOG_LEVEL: 'warn', DOCUMENT_PARSING: 'off' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      let err = '';
      child.stdout.on('data', (d) => {
        out += d;
      });
      child.stderr.on('data', (d) => {
        err += d;
      });
      try {
        let base: string | undefined;
        while (!base) {
          if (child.exitCode !== null) throw new Error(`npm start exited ${child.exitCode}: ${err}`);
          base = /listening on (http:\/\/\S+)/.exec(out)?.[1];
          if (!base) await new Promise((r) => setTimeout(r, 10));
        }
        expect((await fetch(`${base}/healthz`)).status).to.equal(200);
        const ms = performance.now() - started;
        expect(err).not.to.include('compiling');
        // About a second on a quiet machine (bench/RESULTS.md); compiling first takes many more.
        expect(ms).to.be.below(20_000);
      } finally {
        process.kill(-child.pid!, 'SIGTERM');
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
