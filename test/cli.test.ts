import { type ChildProcess, execFile, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect } from 'chai';
import type { Knex } from 'knex';
import { commands, main } from '../cli/main.ts';
import { systemClock } from '../core/clock.ts';
import { tokenHash, verifySecret } from '../core/secrets.ts';
import { newId } from '../db/ids.ts';
import { openDb } from '../db/knex.ts';
import { createRepos } from '../db/repos/index.ts';
import { DEMO } from '../db/seeds/demo.ts';
import { verifyFounderLink } from '../services/founder-links.ts';

const BIN = fileURLToPath(new URL('../cli/portfolio.mjs', import.meta.url));
const T0 = '2026-01-01T00:00:00.000Z';
const execFileAsync = promisify(execFile);

function hasCurl(): boolean {
  try {
    execFileSync('curl', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
}

function start(args: string[], env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, [BIN, ...args], {
    env: {
      ...process.env,
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

function finish(child: ChildProcess): Promise<Result> {
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (d) => {
    stdout += d;
  });
  child.stderr?.on('data', (d) => {
    stderr += d;
  });
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Runs `portfolio ARGS` against one database and waits for it to exit. */
function cli(databaseUrl: string, args: string[], env: Record<string, string> = {}): Promise<Result> {
  return finish(start(args, { DATABASE_URL: databaseUrl, ...env }));
}

/** The one-line failure contract: exit 1, `portfolio: …` alone on stderr, nothing on stdout. */
function expectFailure(r: Result, message: string | RegExp): void {
  expect(r.code, r.stderr).to.equal(1);
  expect(r.stdout).to.equal('');
  const lines = r.stderr.trimEnd().split('\n');
  expect(lines, r.stderr).to.have.length(1);
  if (typeof message === 'string') expect(lines[0]).to.equal(`portfolio: ${message}`);
  else expect(lines[0]).to.match(message);
}

function expectUsageError(r: Result, message: RegExp): void {
  expect(r.code, r.stderr).to.equal(2);
  expect(r.stdout).to.equal('');
  const [first, second, ...more] = r.stderr.trimEnd().split('\n');
  expect(first).to.match(message);
  expect(second).to.match(/^usage: portfolio /);
  expect(more).to.deep.equal([]);
}

function json<T = Record<string, unknown>>(r: Result): T {
  expect(r.code, r.stderr).to.equal(0);
  return JSON.parse(r.stdout) as T;
}

async function withDb<T>(url: string, fn: (db: Knex) => Promise<T>): Promise<T> {
  const db = openDb(url);
  try {
    return await fn(db);
  } finally {
    await db.destroy();
  }
}

/** Row counts of every table of the database. */
function rowCounts(url: string): Promise<Record<string, number>> {
  return withDb(url, async (db) => {
    const tables = (await db('sqlite_master')
      .where({ type: 'table' })
      .whereNot('name', 'like', 'sqlite_%')
      .orderBy('name')
      .pluck('name')) as string[];
    const counts: Record<string, number> = {};
    for (const name of tables) {
      const row = (await db(name).count({ n: '*' }).first()) as { n: number | string };
      counts[name] = Number(row.n);
    }
    return counts;
  });
}

/** Runs `portfolio ARGS` in this process, for the many cases that never reach the database. */
async function inProcess(databaseUrl: string, args: string[]): Promise<Result> {
  let stdout = '';
  let stderr = '';
  const code = await main(args, {
    out: (text) => {
      stdout += text;
    },
    err: (text) => {
      stderr += text;
    },
    env: { DATABASE_URL: databaseUrl, LOG_LEVEL: 'silent' },
  });
  return { code, stdout, stderr };
}

/** Help text with its line wrapping undone. */
function unwrapped(text: string): string {
  return text.replace(/\s+/g, ' ');
}

interface Serving {
  child: ChildProcess;
  result: Promise<Result>;
  banner: string;
  url: string;
}

/** Starts `portfolio serve` and waits for its banner. */
async function serve(databaseUrl: string, env: Record<string, string> = {}): Promise<Serving> {
  const child = start(['serve'], { DATABASE_URL: databaseUrl, PORT: '0', ...env });
  const result = finish(child);
  let seen = '';
  const banner = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no banner within 40 s: ${seen}`)), 40000);
    child.stdout?.on('data', (d) => {
      seen += d;
      if (seen.includes('Stop with')) {
        clearTimeout(timer);
        resolve(seen);
      }
    });
    void result.then((r) => {
      clearTimeout(timer);
      reject(new Error(`serve exited ${r.code} before its banner: ${r.stderr}`));
    });
  });
  const url = /listening on (http:\/\/\S+)/.exec(banner)?.[1];
  expect(url, banner).to.be.a('string');
  return { child, result, banner, url: url! };
}

async function stop(s: Serving): Promise<Result> {
  s.child.kill('SIGTERM');
  return s.result;
}

describe('portfolio command line', function () {
  this.timeout(60000);
  let dir: string;
  let accountsUrl: string;
  let demoUrl: string;

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'pds-cli-'));
    // A directory that does not exist yet: the CLI creates it.
    accountsUrl = `sqlite:${join(dir, 'data', 'accounts.db')}`;
    demoUrl = `sqlite:${join(dir, 'demo.db')}`;
  });
  after(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  describe('usage', () => {
    it('answers bad usage with exit 2, the problem and a usage line, without touching the database', async () => {
      const unused = `sqlite:${join(dir, 'never', 'unused.db')}`;
      const [unknownCommand, unknownSub, unknownFlag, missingFlag, missingValue, badCurrency, noCommand] =
        await Promise.all([
          cli(unused, ['frobnicate']),
          cli(unused, ['firms', 'delete']),
          cli(unused, ['firms', 'list', '--colour']),
          cli(unused, ['firms', 'create', '--name', 'X', '--slug', 'x']),
          cli(unused, ['users', 'list', '--firm']),
          cli(unused, ['firms', 'create', '--name', 'X', '--slug', 'x', '--currency', 'XYZ']),
          cli(unused, []),
        ]);
      expectUsageError(unknownCommand, /^portfolio: unknown command "frobnicate"$/);
      expectUsageError(unknownSub, /^portfolio: unknown command "firms delete"$/);
      expectUsageError(unknownFlag, /^portfolio: unknown option --colour$/);
      expectUsageError(missingFlag, /^portfolio: missing required option --currency$/);
      expectUsageError(missingValue, /^portfolio: option --firm needs a value$/);
      expectUsageError(badCurrency, /^portfolio: --currency must be one of AED, AUD, .* \(got XYZ\)$/);
      expectUsageError(noCommand, /^portfolio: no command given$/);
      expect(existsSync(join(dir, 'never'))).to.equal(false);
    });

    it('prints the command list for --help and exits 0', async () => {
      const r = await cli(accountsUrl, ['--help']);
      expect(r.code).to.equal(0);
      for (const name of [
        'migrate',
        'seed',
        'serve',
        'firms create',
        'users create',
        'apps revoke',
        'tokens create',
      ]) {
        expect(r.stdout).to.include(`  ${name} `);
      }
    });
  });

  describe('help', () => {
    it('"portfolio <command> --help" describes every option and argument of each command, and exits 0', async () => {
      const unused = `sqlite:${join(dir, 'never', 'unused.db')}`;
      for (const command of commands) {
        const r = await inProcess(unused, [...command.name.split(' '), '--help']);
        expect(r.code, command.name).to.equal(0);
        expect(r.stderr).to.equal('');
        expect(r.stdout).to.match(new RegExp(`^Usage: portfolio ${command.name} `));
        const text = unwrapped(r.stdout);
        expect(text).to.include(command.summary);
        for (const [name, spec] of Object.entries(command.options)) {
          expect(r.stdout, `${command.name} --${name}`).to.match(new RegExp(`^  --${name}( <[^>]+>)? `, 'm'));
          expect(text, `${command.name} --${name}`).to.include(spec.description);
        }
        for (const [name, description] of Object.entries(command.arguments ?? {})) {
          expect(r.stdout, `${command.name} ${name}`).to.match(new RegExp(`^  ${name} `, 'm'));
          expect(text).to.include(description);
        }
        expect(r.stdout).to.match(/^ {2}--json /m);
        expect(r.stdout).to.match(/^ {2}-h, --help /m);
      }
      expect(existsSync(join(dir, 'never'))).to.equal(false);
    });

    it('lists the subcommands of a group under "portfolio <group> --help" and "portfolio help <group>"', async () => {
      const unused = `sqlite:${join(dir, 'never', 'unused.db')}`;
      for (const argv of [
        ['users', '--help'],
        ['help', 'users'],
      ]) {
        const r = await inProcess(unused, argv);
        expect(r.code).to.equal(0);
        expect(r.stdout).to.match(/^Usage: portfolio users /);
        expect(r.stdout).to.match(/^ {2}create .* create a user of a firm$/m);
        expect(r.stdout).to.match(/^ {2}list .* list a firm's users$/m);
      }
    });

    it('answers -h and "portfolio help" with the same command list as --help', async () => {
      const unused = `sqlite:${join(dir, 'never', 'unused.db')}`;
      const [long, short, word] = await Promise.all(
        [['--help'], ['-h'], ['help']].map((argv) => inProcess(unused, argv)),
      );
      expect(long.code).to.equal(0);
      for (const command of commands) expect(long.stdout).to.include(`  ${command.name} `);
      expect(long.stdout).to.include('Exit status: 0 success, 1 failure (one line on stderr), 2 bad usage.');
      expect(short).to.deep.equal(long);
      expect(word).to.deep.equal(long);
    });

    it("refuses an unknown option on every command with exit 2 and the command's usage line", async () => {
      const unused = `sqlite:${join(dir, 'never', 'unused.db')}`;
      for (const command of commands) {
        const r = await inProcess(unused, [...command.name.split(' '), '--frobnicate']);
        expectUsageError(r, /^portfolio: unknown option --frobnicate$/);
        expect(r.stderr.split('\n')[1]).to.match(
          new RegExp(`^usage: portfolio ${command.name} .*\\[--json\\]$`),
        );
      }
      expect(existsSync(join(dir, 'never'))).to.equal(false);
    });
  });

  describe('accounts', () => {
    let companyIds: Record<'alpha' | 'beta', string>;

    it('creates the database directory and migrates once', async () => {
      const first = json<{ applied: string[] }>(await cli(accountsUrl, ['migrate', '--json']));
      expect(first.applied.length).to.be.greaterThan(0);
      const second = json<{ applied: string[] }>(await cli(accountsUrl, ['migrate', '--json']));
      expect(second.applied).to.deep.equal([]);

      // Companies cannot be created from the command line: add two for the access lists.
      companyIds = { alpha: newId(), beta: newId() };
      await withDb(accountsUrl, async (db) => {
        const repos = createRepos(db);
        const firm = { id: newId(), slug: 'acme', name: 'Acme Capital' };
        await repos.firms.create({
          ...firm,
          preferred_currency: 'USD',
          country: '',
          city: '',
          enabled_feature_flags: '',
          created_at: T0,
        });
        for (const slug of ['alpha', 'beta'] as const) {
          await repos.companies.create({
            id: companyIds[slug],
            firm_id: firm.id,
            name: slug,
            slug,
            description: '',
            sector: '',
            firm_sector: '',
            city: '',
            status: 'active',
            unique_ref: slug,
            website: '',
            logo_url: '',
            fiscal_year_end: '12-31',
            reporting_currency: 'USD',
            investment_lead_id: null,
            created_at: T0,
            updated_at: T0,
          });
        }
      });
    });

    it('creates a firm, upper-casing its currency, and prints it as JSON', async () => {
      const firm = json(
        await cli(accountsUrl, [
          'firms',
          'create',
          '--name',
          'Brindle Partners',
          '--slug',
          'brindle',
          '--currency',
          'eur',
          '--json',
        ]),
      );
      expect(firm).to.include({ slug: 'brindle', name: 'Brindle Partners', preferred_currency: 'EUR' });
      expect(firm.id).to.be.a('string');
      const list = json<{ slug: string }[]>(await cli(accountsUrl, ['firms', 'list', '--json']));
      expect(list.map((f) => f.slug)).to.deep.equal(['acme', 'brindle']);
    });

    it('refuses a duplicate firm slug with one line', async () => {
      const r = await cli(accountsUrl, [
        'firms',
        'create',
        '--name',
        'Other',
        '--slug',
        'brindle',
        '--currency',
        'USD',
      ]);
      expectFailure(r, 'a firm with slug brindle already exists');
    });

    it('creates users with their role defaults, company lists and flags', async () => {
      const admin = json(
        await cli(accountsUrl, [
          'users',
          'create',
          '--firm',
          'acme',
          '--email',
          'Ada@Acme.test',
          '--password',
          'correct horse battery',
          '--role',
          'admin',
          '--first-name',
          'Ada',
          '--last-name',
          'Lovelace',
          '--json',
        ]),
      );
      expect(admin).to.include({
        email: 'ada@acme.test',
        role: 'admin',
        first_name: 'Ada',
        last_name: 'Lovelace',
        all_companies: true,
        can_view_documents: true,
        can_edit_cap_table: true,
      });
      expect(admin).not.to.have.property('password_hash');

      const viewer = json(
        await cli(accountsUrl, [
          'users',
          'create',
          '--firm',
          'acme',
          '--email',
          'vic@acme.test',
          '--password',
          'another good one',
          '--role',
          'viewer',
          '--companies',
          'beta,alpha',
          '--no-documents',
          '--json',
        ]),
      );
      expect(viewer).to.deep.include({
        role: 'viewer',
        all_companies: false,
        companies: ['alpha', 'beta'],
        can_view_documents: false,
        can_edit_cap_table: false,
      });

      const editor = json(
        await cli(accountsUrl, [
          'users',
          'create',
          '--firm',
          'acme',
          '--email',
          'ed@acme.test',
          '--password',
          'editing all day',
          '--role',
          'editor',
          '--cap-table',
          '--json',
        ]),
      );
      expect(editor).to.include({
        role: 'editor',
        all_companies: true,
        can_view_documents: true,
        can_edit_cap_table: true,
      });

      await withDb(accountsUrl, async (db) => {
        const stored = await db('users').where({ email: 'vic@acme.test' }).first();
        expect(stored.password_hash).to.match(/^scrypt\$/);
        expect(await verifySecret('another good one', stored.password_hash)).to.equal(true);
        const access = await db('user_companies')
          .where({ user_id: stored.id })
          .orderBy('company_id')
          .pluck('company_id');
        expect(access).to.deep.equal([companyIds.alpha, companyIds.beta].sort());
      });

      const list = json<{ email: string }[]>(
        await cli(accountsUrl, ['users', 'list', '--firm', 'acme', '--json']),
      );
      expect(list.map((u) => u.email)).to.deep.equal(['ada@acme.test', 'ed@acme.test', 'vic@acme.test']);
    });

    it('refuses a bad user with one line naming the problem (a bad role is bad usage: exit 2)', async () => {
      const base = [
        'users',
        'create',
        '--firm',
        'acme',
        '--password',
        'long enough password',
        '--role',
        'viewer',
      ];
      const [duplicate, weak, unknownFirm, unknownCompany, badEmail, badRole] = await Promise.all([
        cli(accountsUrl, [...base, '--email', 'ADA@acme.test']),
        cli(accountsUrl, [
          'users',
          'create',
          '--firm',
          'acme',
          '--email',
          'w@acme.test',
          '--password',
          'short',
          '--role',
          'viewer',
        ]),
        cli(accountsUrl, [
          'users',
          'create',
          '--firm',
          'nope',
          '--email',
          'n@acme.test',
          '--password',
          'long enough password',
          '--role',
          'viewer',
        ]),
        cli(accountsUrl, [...base, '--email', 'c@acme.test', '--companies', 'alpha,gamma']),
        cli(accountsUrl, [...base, '--email', 'not-an-email']),
        cli(accountsUrl, [
          'users',
          'create',
          '--firm',
          'acme',
          '--email',
          'r@acme.test',
          '--password',
          'long enough password',
          '--role',
          'owner',
        ]),
      ]);
      expectFailure(duplicate, 'a user with email ada@acme.test already exists');
      expectFailure(weak, 'password must be at least 10 characters');
      expectFailure(unknownFirm, 'no firm with slug nope');
      expectFailure(unknownCompany, 'no company with slug gamma in firm acme');
      expectFailure(badEmail, 'not-an-email is not an email address');
      expectUsageError(badRole, /^portfolio: --role must be one of admin, editor, viewer \(got owner\)$/);
      const users = await withDb(accountsUrl, (db) => db('users').count({ n: '*' }).first());
      expect(Number(users?.n)).to.equal(3);
    });

    it('creates an application whose secret is stored only as a hash, and revokes it with its tokens', async () => {
      const created = json<{ client_id: string; client_secret: string }>(
        await cli(accountsUrl, [
          'apps',
          'create',
          '--firm',
          'acme',
          '--user',
          'ed@acme.test',
          '--name',
          'Reporting',
          '--json',
        ]),
      );
      expect(Object.keys(created)).to.deep.equal(['client_id', 'client_secret']);
      expect(created.client_secret.length).to.be.greaterThan(40);

      const tokenId = newId();
      await withDb(accountsUrl, async (db) => {
        const app = await db('oauth_applications').where({ client_id: created.client_id }).first();
        expect(app).to.include({ name: 'Reporting', revoked_at: null });
        expect(JSON.stringify(app)).not.to.include(created.client_secret);
        expect(app.client_secret_hash).to.match(/^scrypt\$/);
        expect(await verifySecret(created.client_secret, app.client_secret_hash)).to.equal(true);
        // A token issued to the application, which revoking the application must revoke too.
        await db('access_tokens').insert({
          id: tokenId,
          token_hash: tokenHash('issued'),
          kind: 'client_credentials',
          audience: 'rest',
          firm_id: app.firm_id,
          user_id: app.user_id,
          application_id: app.id,
          scope: 'read write',
          created_at: T0,
          expires_at: '2999-01-01T00:00:00.000Z',
        });
      });

      const list = json<{ client_id: string; user_email: string; revoked_at: string | null }[]>(
        await cli(accountsUrl, ['apps', 'list', '--firm', 'acme', '--json']),
      );
      expect(list).to.have.length(1);
      expect(list[0]).to.include({
        client_id: created.client_id,
        user_email: 'ed@acme.test',
        revoked_at: null,
      });

      const [wrongFirm, unknownUser] = await Promise.all([
        cli(accountsUrl, ['apps', 'create', '--firm', 'brindle', '--user', 'ed@acme.test', '--name', 'X']),
        cli(accountsUrl, ['apps', 'create', '--firm', 'acme', '--user', 'nobody@acme.test', '--name', 'X']),
      ]);
      expectFailure(wrongFirm, 'user ed@acme.test is not a member of firm brindle');
      expectFailure(unknownUser, 'no user with email nobody@acme.test');

      const revoked = await cli(accountsUrl, ['apps', 'revoke', created.client_id]);
      expect(revoked.code, revoked.stderr).to.equal(0);
      expect(revoked.stdout).to.include(`revoked application ${created.client_id}`);
      await withDb(accountsUrl, async (db) => {
        const app = await db('oauth_applications').where({ client_id: created.client_id }).first();
        expect(app.revoked_at).to.be.a('string');
        const token = await db('access_tokens').where({ id: tokenId }).first();
        expect(token.revoked_at).to.equal(app.revoked_at);
      });
      const [again, unknown, missing] = await Promise.all([
        cli(accountsUrl, ['apps', 'revoke', created.client_id]),
        cli(accountsUrl, ['apps', 'revoke', 'no-such-client']),
        cli(accountsUrl, ['apps', 'revoke']),
      ]);
      expectFailure(again, /^portfolio: application \S+ was already revoked at /);
      expectFailure(unknown, 'no application with client id no-such-client');
      expectUsageError(missing, /^portfolio: missing CLIENT_ID$/);
    });

    it('creates a personal access token stored only as its SHA-256, lists and revokes it', async () => {
      const before = Date.now();
      const created = json<{ token: string; expires_at: string; id: string }>(
        await cli(accountsUrl, [
          'tokens',
          'create',
          '--user',
          'vic@acme.test',
          '--days',
          '7',
          '--name',
          'laptop',
          '--json',
        ]),
      );
      expect(Object.keys(created)).to.deep.equal(['token', 'expires_at', 'id']);
      const lifetime = Date.parse(created.expires_at) - before;
      expect(lifetime).to.be.within(7 * 86400000 - 60000, 7 * 86400000 + 60000);

      await withDb(accountsUrl, async (db) => {
        const row = await db('access_tokens').where({ id: created.id }).first();
        expect(row).to.include({
          token_hash: tokenHash(created.token),
          kind: 'personal',
          audience: 'any',
          scope: 'read write',
          name: 'laptop',
          expires_at: created.expires_at,
          revoked_at: null,
        });
        expect(JSON.stringify(row)).not.to.include(created.token);
      });

      const listed = json<{ id: string; name: string }[]>(
        await cli(accountsUrl, ['tokens', 'list', '--user', 'vic@acme.test', '--json']),
      );
      expect(listed.map((t) => [t.id, t.name])).to.deep.equal([[created.id, 'laptop']]);

      const [tooLong, defaultDays] = await Promise.all([
        cli(accountsUrl, ['tokens', 'create', '--user', 'vic@acme.test', '--days', '31']),
        cli(accountsUrl, ['tokens', 'create', '--user', 'vic@acme.test']),
      ]);
      expectUsageError(tooLong, /^portfolio: --days must be a whole number from 1 to 30 \(got 31\)$/);
      expect(defaultDays.code, defaultDays.stderr).to.equal(0);
      expect(defaultDays.stdout).to.match(/^token: +pds_pat_/m);

      const revoked = await cli(accountsUrl, ['tokens', 'revoke', created.id, '--json']);
      expect(json(revoked)).to.deep.equal({ id: created.id, revoked: true });
      await withDb(accountsUrl, async (db) => {
        const row = await db('access_tokens').where({ id: created.id }).first();
        expect(row.revoked_at).to.be.a('string');
      });
      const [again, unknown] = await Promise.all([
        cli(accountsUrl, ['tokens', 'revoke', created.id]),
        cli(accountsUrl, ['tokens', 'revoke', 'nope']),
      ]);
      expectFailure(again, /^portfolio: token \S+ was already revoked at /);
      expectFailure(unknown, 'no personal access token with id nope');
    });

    it('revokes a token whose id begins with a dash (from before ids were alphanumeric) after --', async () => {
      const legacyId = '-legacy_Token_Id';
      await withDb(accountsUrl, async (db) => {
        const user = await db('users').where({ email: 'vic@acme.test' }).first();
        await db('access_tokens').insert({
          id: legacyId,
          token_hash: tokenHash('legacy'),
          kind: 'personal',
          audience: 'any',
          firm_id: user.firm_id,
          user_id: user.id,
          scope: 'read write',
          name: 'legacy',
          created_at: T0,
          expires_at: '2999-01-01T00:00:00.000Z',
        });
      });
      // Without `--` a word that begins with a dash is an option, as with every other command line.
      expectUsageError(
        await cli(accountsUrl, ['tokens', 'revoke', legacyId]),
        /^portfolio: unknown option -legacy_Token_Id$/,
      );
      const revoked = await cli(accountsUrl, ['tokens', 'revoke', '--json', '--', legacyId]);
      expect(json(revoked)).to.deep.equal({ id: legacyId, revoked: true });
    });
  });

  describe('demo data and serve', () => {
    it('seeds the demo data once; a second seed --demo refuses with exit 1', async () => {
      const usage = await cli(demoUrl, ['seed']);
      expectUsageError(usage, /^portfolio: seed needs --demo$/);
      const counts = json<Record<string, number>>(await cli(demoUrl, ['seed', '--demo', '--json']));
      expect(Object.keys(counts).length).to.be.greaterThan(0);
      const before = await rowCounts(demoUrl);
      expect(before.firms).to.be.at.least(2);
      expectFailure(
        await cli(demoUrl, ['seed', '--demo']),
        'the database already has data; seed --demo runs only on an empty database',
      );
      expect(await rowCounts(demoUrl)).to.deep.equal(before);
    });

    it('refuses to serve the demo credentials on a non-loopback host', async () => {
      const r = await cli(demoUrl, ['serve'], { HOST: '0.0.0.0', PORT: '0' });
      expectFailure(
        r,
        /^portfolio: refusing to start: HOST 0\.0\.0\.0 is not a loopback address and demo data .*"portfolio demo remove".* ALLOW_DEMO_CREDENTIALS=1 to serve it anyway$/,
      );
    });

    it('serves with a banner, answers /healthz, stops on SIGTERM with exit 0, and adds no rows', async () => {
      const before = await rowCounts(demoUrl);
      // Parsing the demo documents writes their text (test/document-parsing.test.ts covers it), and the
      // reminder pass announces the demo's late reports (test/information-reminders.test.ts).
      const quiet = { DOCUMENT_PARSING: 'off', REMINDERS: 'off' };
      const running = await serve(demoUrl, quiet);
      expect(running.url).to.match(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(running.url).not.to.match(/:0$/);
      for (const path of ['/v1/', '/mcp', '/docs', '/healthz'])
        expect(running.banner).to.include(`${running.url}${path}`);
      expect(running.banner).to.include(`${DEMO.email} / ${DEMO.password}`);
      expect(running.banner).to.include(`${DEMO.clientId} / ${DEMO.clientSecret}`);
      expect(running.banner).to.include(`curl -s -u ${DEMO.clientId}:${DEMO.clientSecret}`);
      // A founder link of the demo's open request, at the address the server is on; the founder page
      // itself is tested on its own, so here the link is checked as the page checks it.
      const founderLink = /Founder link {2}(\S+)/.exec(running.banner)?.[1];
      expect(founderLink, running.banner).to.match(/^http:\/\/127\.0\.0\.1:\d+\/respond\/frl_[\w-]{43}$/);
      expect(founderLink!.startsWith(`${running.url}/respond/`)).to.equal(true);
      const session = await withDb(demoUrl, (db) =>
        verifyFounderLink(
          { repos: createRepos(db), clock: systemClock },
          founderLink!.split('/respond/')[1]!,
          {
            touch: false,
          },
        ),
      );
      expect(session.firm.slug).to.equal(DEMO.firmSlug);

      const health = await fetch(`${running.url}/healthz`);
      expect(health.status).to.equal(200);
      expect(await health.json()).to.deep.equal({ status: 'ok' });

      // The demo client credentials of the banner work.
      const tokenRes = await fetch(`${running.url}/o/token/`, {
        method: 'POST',
        headers: {
          Authorization: `Basic ${Buffer.from(`${DEMO.clientId}:${DEMO.clientSecret}`).toString('base64')}`,
          'Content-Type': 'application/x-www-form-urlencoded',
        },
        body: 'grant_type=client_credentials',
      });
      expect(tokenRes.status).to.equal(200);
      const { access_token } = (await tokenRes.json()) as { access_token: string };
      const companies = await fetch(`${running.url}/v1/companies/`, {
        headers: { Authorization: `Bearer ${access_token}` },
      });
      expect(companies.status).to.equal(200);
      expect(((await companies.json()) as { count: number }).count).to.be.greaterThan(0);
      let tokensAsked = 1;

      // And the banner's command line does the same, pasted as is.
      const pasted = running.banner.split('\n').find((l) => l.trim().startsWith('TOKEN=$('));
      expect(pasted, running.banner).to.be.a('string');
      if (hasCurl()) {
        const { stdout } = await execFileAsync('sh', ['-c', pasted!.trim()]);
        expect((JSON.parse(stdout) as { count: number }).count).to.be.greaterThan(0);
        tokensAsked += 1;
      }

      const exited = await stop(running);
      expect(exited.code, exited.stderr).to.equal(0);
      const after = await rowCounts(demoUrl);
      // Only the tokens the test asked for are new.
      expect({ ...after, access_tokens: after.access_tokens! - tokensAsked }).to.deep.equal(before);

      const again = await serve(demoUrl, quiet);
      expect((await stop(again)).code).to.equal(0);
      expect(await rowCounts(demoUrl)).to.deep.equal(after);
    });

    it('seeds an empty database on a loopback host with the demo and its open request, and prints a founder link at its address', async () => {
      const freshUrl = `sqlite:${join(dir, 'fresh.db')}`;
      const running = await serve(freshUrl, { DOCUMENT_PARSING: 'off', REMINDERS: 'off' });
      expect(running.banner).to.include('The database was empty: loaded the demo data.');
      const founderLink = /Founder link {2}(\S+)/.exec(running.banner)?.[1];
      expect(founderLink, running.banner).to.match(new RegExp(`^${running.url}/respond/frl_[\\w-]{43}$`));
      // It opens the founder's page of one demo company.
      const opened = await fetch(founderLink!);
      expect(opened.status).to.equal(200);
      expect(await opened.text()).to.include('Demo Ventures');
      expect((await stop(running)).code).to.equal(0);
      const mailed = await withDb(freshUrl, (db) =>
        db('outbound_mail').where({ kind: 'request' }).pluck('link'),
      );
      expect(mailed.length).to.be.greaterThan(0);
      // The mail itself points at the address the server was on.
      expect(mailed.every((l: string) => l.startsWith(`${running.url}/respond/`))).to.equal(true);
    });

    it('serves an empty database on a public host without loading the demo credentials', async () => {
      const emptyUrl = `sqlite:${join(dir, 'empty.db')}`;
      const running = await serve(emptyUrl, { HOST: '0.0.0.0' });
      expect(running.banner).to.include('no demo data was loaded');
      expect(running.banner).not.to.include(DEMO.password);
      expect((await stop(running)).code).to.equal(0);
      const counts = await rowCounts(emptyUrl);
      expect(counts.firms).to.equal(0);
      expect(counts.users).to.equal(0);
    });
  });
});
