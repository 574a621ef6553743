// Generates a large firm for the benchmark: `--companies N --months M` companies with monthly data in
// 40 categories (1000 × 60 ≈ 2.4 million metric rows) and notes, on SQLite or PostgreSQL;
// and, for npm run bench, the demo data with the bench's token.
// Usage: tsx bench/generate.ts --database-url sqlite:bench/data/bench.db --companies 1000 --months 60
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import type { Knex } from 'knex';
import { STANDARD_CATEGORIES, standardCategoryId } from '../core/categories.ts';
import { tokenHash } from '../core/secrets.ts';
import { isPostgres, migrateLatest, openDb } from '../db/knex.ts';
import { DEMO, seedDemo } from '../db/seeds/demo.ts';

interface SqliteConnection {
  prepare(sql: string): { run(params: unknown[]): unknown };
}

export const BENCH_TOKEN = 'pds_bench_token_for_load_tests_only_0000000000000000';
const T0 = '2026-01-01T00:00:00.000Z';

/** A small seeded random number generator in [0, 1), so generated data is the same on every run. */
export function mulberry32(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function monthEnd(index: number, months: number): string {
  // Months end at October 2026, the same window as the demo data.
  const d = new Date(Date.UTC(2026, 10 - months + index, 0));
  return d.toISOString().slice(0, 10);
}

async function insertRows(db: Knex, table: string, rows: Record<string, unknown>[]): Promise<void> {
  if (rows.length === 0) return;
  if (!isPostgres(db)) {
    // One prepared statement per table on the raw connection: an order of magnitude faster than
    // knex's compound inserts for millions of rows.
    const conn = (await db.client.acquireConnection()) as SqliteConnection;
    try {
      const columns = Object.keys(rows[0]!);
      const insert = conn.prepare(
        `insert into ${table} (${columns.join(', ')}) values (${columns.map(() => '?').join(', ')})`,
      );
      for (const row of rows) {
        insert.run(columns.map((c) => (typeof row[c] === 'boolean' ? (row[c] ? 1 : 0) : row[c])));
      }
    } finally {
      await db.client.releaseConnection(conn);
    }
    return;
  }
  const columns = Object.keys(rows[0]!).length;
  // SQLite compiles a multi-row insert into a compound select of at most 500 terms.
  const size = isPostgres(db) ? Math.floor(60000 / columns) : 500;
  for (let i = 0; i < rows.length; i += size) await db(table).insert(rows.slice(i, i + size));
}

/** The row of the bench's personal token (BENCH_TOKEN) for a user: any audience, read and write. */
function benchToken(id: string, firmId: string, userId: string): Record<string, unknown> {
  return {
    id,
    token_hash: tokenHash(BENCH_TOKEN),
    kind: 'personal',
    audience: 'any',
    firm_id: firmId,
    user_id: userId,
    scope: 'read write',
    created_at: T0,
    expires_at: '2999-01-01T00:00:00.000Z',
  };
}

/**
 * The demo data (db/seeds/demo.ts), as `serve` loads into an empty database, with BENCH_TOKEN for the
 * demo firm's admin user: the small pages most firms have. False when it was already there.
 */
export async function generateDemo(url: string): Promise<boolean> {
  const db = openDb(url);
  try {
    await migrateLatest(db);
    if (await db('access_tokens').where({ id: 'bench-demo-token' }).first('id')) return false;
    if (!(await db('firms').where({ slug: DEMO.firmSlug }).first('id'))) await seedDemo(db);
    const user = (await db('users').where({ email: DEMO.email }).first('id', 'firm_id')) as {
      id: string;
      firm_id: string;
    };
    await db('access_tokens').insert(benchToken('bench-demo-token', user.firm_id, user.id));
    return true;
  } finally {
    await db.destroy();
  }
}

export async function generate(url: string, companies: number, months: number): Promise<number> {
  const db = openDb(url);
  try {
    await migrateLatest(db);
    if (await db('firms').where({ slug: 'bench' }).first()) return -1;
    const random = mulberry32(42);
    const categories = STANDARD_CATEGORIES.slice(0, 40);
    await db.transaction(async (trx) => {
      await trx('firms').insert({
        id: 'bench-firm',
        slug: 'bench',
        name: 'Bench Capital',
        preferred_currency: 'USD',
        country: 'US',
        city: 'New York',
        enabled_feature_flags: '',
        created_at: T0,
      });
      await trx('users').insert({
        id: 'bench-user',
        firm_id: 'bench-firm',
        email: 'bench@example.com',
        first_name: 'Bench',
        last_name: 'User',
        password_hash: 'scrypt$disabled',
        role: 'admin',
        all_companies: true,
        can_view_documents: true,
        can_edit_cap_table: true,
        is_active: true,
        created_at: T0,
      });
      await trx('access_tokens').insert(benchToken('bench-token', 'bench-firm', 'bench-user'));
      // Batched: one insert of every month fails on SQLite above 500 rows (its compound-select limit).
      await insertRows(
        trx,
        'fx_rates',
        Array.from({ length: months }, (_, m) => ({
          id: `bfx${m}`,
          firm_id: 'bench-firm',
          from_currency: 'EUR',
          to_currency: 'USD',
          date: monthEnd(m, months),
          rate: (1.05 + random() * 0.1).toFixed(6),
        })),
      );
    });
    for (let c = 0; c < companies; c++) {
      const companyId = `bc${String(c).padStart(6, '0')}`;
      const currency = c % 5 === 0 ? 'EUR' : 'USD';
      await db.transaction(async (trx) => {
        await trx('companies').insert({
          id: companyId,
          firm_id: 'bench-firm',
          name: `Company ${String(c).padStart(6, '0')}`,
          slug: `company-${c}`,
          description: 'A company generated for the benchmark.',
          sector: ['SaaS', 'Fintech', 'Health', 'Climate'][c % 4],
          firm_sector: 'Software',
          city: ['New York', 'London', 'Berlin', 'Paris'][c % 4],
          status: 'active',
          unique_ref: `B-${c}`,
          website: `https://company-${c}.example`,
          logo_url: `https://logos.example/company-${c}.png`,
          fiscal_year_end: '12-31',
          reporting_currency: currency,
          investment_lead_id: 'bench-user',
          created_at: T0,
          updated_at: T0,
        });
        const rows: Record<string, unknown>[] = [];
        for (const category of categories) {
          const base = 10000 + random() * 1000000;
          for (let m = 0; m < months; m++) {
            const date = monthEnd(m, months);
            const money = category.kind === 'currency';
            rows.push({
              id: `${companyId}m${rows.length}`,
              firm_id: 'bench-firm',
              company_id: companyId,
              category_id: standardCategoryId(category.name),
              cadence: category.pointInTime ? 'point_in_time' : 'month',
              date,
              value:
                category.kind === 'percentage'
                  ? (random() * 0.9).toFixed(4)
                  : (base * (1 + m * 0.02) * (0.9 + random() * 0.2)).toFixed(2),
              currency: money ? currency : null,
              budget_id: null,
              detailed_source: 'upload',
              archived: false,
              deleted_at: null,
              created_at: `${date}T12:00:00.000Z`,
              updated_at: `${date}T12:00:00.000Z`,
            });
          }
        }
        await insertRows(trx, 'metric_data', rows);
        await insertRows(
          trx,
          'notes',
          Array.from({ length: 5 }, (_, n) => ({
            id: `${companyId}n${n}`,
            firm_id: 'bench-firm',
            company_id: companyId,
            author_id: 'bench-user',
            note: `Board meeting ${n + 1}: revenue on plan, hiring two engineers, cash runway reviewed.`,
            created_at: `2026-0${n + 1}-15T10:00:00.000Z`,
          })),
        );
      });
    }
    // What autovacuum does on a live database: statistics (without them PostgreSQL expects one row per
    // company and sorts a long history whole instead of incrementally, 56 ms against 3 ms a page) and the
    // visibility map (without it an index-only count visits the table for every row it counts).
    if (isPostgres(db)) await db.raw('vacuum analyze');
    const row = (await db('metric_data').count({ n: '*' }).first()) as { n: number | string };
    return Number(row.n);
  } finally {
    await db.destroy();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { values } = parseArgs({
    options: {
      'database-url': { type: 'string', default: 'sqlite:bench/data/bench.db' },
      companies: { type: 'string', default: '1000' },
      months: { type: 'string', default: '60' },
    },
  });
  const started = Date.now();
  const rows = await generate(values['database-url'], Number(values.companies), Number(values.months));
  console.log(
    rows < 0
      ? 'bench firm already present; nothing generated'
      : `generated ${rows} metric rows in ${((Date.now() - started) / 1000).toFixed(1)} s`,
  );
}
