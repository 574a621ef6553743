// The databases a benchmark runs on: a SQLite file in a temporary folder, or a schema of its own in the
// PostgreSQL database that --database-url, BENCH_DATABASE_URL or TEST_DATABASE_URL names.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import knexFactory from 'knex';

export type Dialect = 'SQLite' | 'PostgreSQL';

/** A database made for one run, and how to remove it afterwards. */
export interface BenchDatabase {
  url: string;
  drop(): Promise<void>;
}

/** The PostgreSQL URL a benchmark was given, if any. */
export function postgresUrlOf(given: string | undefined): string | undefined {
  return given ?? process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
}

/** The dialects to run on: SQLite always, PostgreSQL when a URL names one. */
export function dialectsFor(postgresUrl: string | undefined): Dialect[] {
  return postgresUrl ? ['SQLite', 'PostgreSQL'] : ['SQLite'];
}

/** A connection URL that works in `schema` of the database at `base`. */
export function postgresSchemaUrl(base: string, schema: string): string {
  return `${base}${base.includes('?') ? '&' : '?'}options=-c%20search_path%3D${schema}`;
}

/** A fresh, empty database named after the benchmark (`name`: letters, digits and `_` only). */
export async function throwawayDatabase(
  dialect: Dialect,
  name: string,
  postgresUrl: string | undefined,
): Promise<BenchDatabase> {
  if (dialect === 'SQLite') {
    const dir = mkdtempSync(join(tmpdir(), `bench-${name}-`));
    return { url: `sqlite:${join(dir, 'bench.db')}`, drop: async () => rmSync(dir, { recursive: true }) };
  }
  if (!postgresUrl)
    throw new Error('PostgreSQL needs --database-url, BENCH_DATABASE_URL or TEST_DATABASE_URL');
  const schema = `bench_${name}_${process.pid}`;
  const admin = knexFactory({ client: 'pg', connection: postgresUrl, pool: { min: 0, max: 1 } });
  await admin.raw(`create schema ${schema}`);
  return {
    url: postgresSchemaUrl(postgresUrl, schema),
    async drop() {
      await admin.raw(`drop schema ${schema} cascade`);
      await admin.destroy();
    },
  };
}
