import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { removeDemoData } from '../db/demo.ts';
import { migrateLatest, openDb } from '../db/knex.ts';
import { seedDemo } from '../db/seeds/demo.ts';
import { dialects } from './helpers/db.ts';

const BIN = fileURLToPath(new URL('../cli/portfolio.mjs', import.meta.url));

interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
}

function start(url: string, args: string[], env: Record<string, string> = {}): ChildProcess {
  return spawn(process.execPath, [BIN, ...args], {
    env: {
      ...process.env,
      DATABASE_URL: url,
      LOG_LEVEL: 'silent',
      PUBLIC_URL: '',
      HOST: '',
      PORT: '',
      ALLOW_DEMO_CREDENTIALS: '',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** Runs a command to its end; a server is stopped with SIGTERM once it has printed its banner. */
function run(url: string, args: string[], env: Record<string, string> = {}): Promise<Result> {
  const child = start(url, args, env);
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (d) => {
    stdout += d;
    if (args[0] === 'serve' && stdout.includes('\n')) child.kill('SIGTERM');
  });
  child.stderr?.on('data', (d) => {
    stderr += d;
  });
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

const PUBLIC = { HOST: '0.0.0.0', PORT: '0' };

describe('demo credentials on a public address', function () {
  this.timeout(60_000);

  async function seededDatabase(): Promise<string> {
    const url = `sqlite:${join(mkdtempSync(join(tmpdir(), 'pds-demo-')), 'demo.db')}`;
    const db = openDb(url);
    try {
      await migrateLatest(db);
      await seedDemo(db);
    } finally {
      await db.destroy();
    }
    return url;
  }

  it('refuses a non-loopback HOST while any seeded firm or user is left, naming them and "portfolio demo remove"', async () => {
    const url = await seededDatabase();
    // What the old advice led to: the demo firm and the demo admin removed by hand, northwind left.
    const db = openDb(url);
    try {
      await db('firms').where({ slug: 'demo' }).delete();
      expect(await db('users').where({ email: 'demo@example.com' })).to.have.length(0);
    } finally {
      await db.destroy();
    }
    const refused = await run(url, ['serve', '--json'], PUBLIC);
    expect(refused.code, refused.stderr).to.equal(1);
    expect(refused.stdout).to.equal('');
    expect(refused.stderr.trimEnd()).to.equal(
      'portfolio: refusing to start: HOST 0.0.0.0 is not a loopback address and demo data with credentials ' +
        'written in the source is present (firm northwind, user admin@northwind.example); remove it with ' +
        '"portfolio demo remove", or set ALLOW_DEMO_CREDENTIALS=1 to serve it anyway',
    );
  });

  it('"portfolio demo remove" removes every seeded firm with what it owns and keeps the operator\'s own firm', async () => {
    const url = await seededDatabase();
    const own = await run(url, [
      'firms',
      'create',
      '--name',
      'Own Capital',
      '--slug',
      'own',
      '--currency',
      'USD',
    ]);
    expect(own.code, own.stderr).to.equal(0);
    const removed = await run(url, ['demo', 'remove', '--json']);
    expect(removed.code, removed.stderr).to.equal(0);
    expect(JSON.parse(removed.stdout)).to.include({ firm: 2 });
    const db = openDb(url);
    try {
      expect((await db('firms').select('slug')).map((r) => r.slug)).to.deep.equal(['own']);
      expect(await db('users')).to.have.length(0);
      expect(await db('oauth_applications')).to.have.length(0);
      expect(await db('metric_data')).to.have.length(0);
      expect(await db('demo_marks')).to.have.length(0);
    } finally {
      await db.destroy();
    }
    const served = await run(url, ['serve', '--json'], PUBLIC);
    expect(served.stderr).to.equal('');
    expect(JSON.parse(served.stdout.split('\n')[0]!)).to.have.property('url');
  });

  it('serves the demo data on a public HOST when ALLOW_DEMO_CREDENTIALS=1 says so', async () => {
    const url = await seededDatabase();
    const served = await run(url, ['serve', '--json'], { ...PUBLIC, ALLOW_DEMO_CREDENTIALS: '1' });
    expect(served.stderr).to.equal('');
    expect(JSON.parse(served.stdout.split('\n')[0]!)).to.have.property('url');
  });
});

for (const dialect of dialects) {
  describe(`demo data removal (${dialect.name}) @db`, function () {
    this.timeout(60_000);

    it('removes all demo-marked data in one transaction and leaves nothing of the seed', async () => {
      const t = await dialect.open();
      try {
        await seedDemo(t.db);
        const removed = await removeDemoData(t.db);
        expect(removed.firm).to.equal(2);
        for (const table of [
          'firms',
          'users',
          'oauth_applications',
          'companies',
          'metric_data',
          'demo_marks',
        ]) {
          expect(await t.db(table), table).to.have.length(0);
        }
      } finally {
        await t.drop();
      }
    });
  });
}
