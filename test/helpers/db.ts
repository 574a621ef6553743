import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import knexFactory, { type Knex } from 'knex';
import { migrateLatest, openDb } from '../../db/knex.ts';

export const postgresUrl = process.env.TEST_DATABASE_URL;

export interface TestDb {
  db: Knex;
  /** A DATABASE_URL that reaches the same data from another process. */
  url: string;
  dialect: 'sqlite' | 'postgres';
  drop(): Promise<void>;
}

/** A fresh, migrated SQLite file in a temporary directory. */
export async function sqliteTestDb(): Promise<TestDb> {
  const file = join(mkdtempSync(join(tmpdir(), 'pds-')), 'test.db');
  const url = `sqlite:${file}`;
  const db = openDb(url);
  await migrateLatest(db);
  return { db, url, dialect: 'sqlite', drop: () => db.destroy() };
}

/** A fresh, migrated schema of its own in the PostgreSQL database of TEST_DATABASE_URL. */
export async function postgresTestDb(): Promise<TestDb> {
  if (!postgresUrl) throw new Error('TEST_DATABASE_URL is not set');
  const schema = `t_${randomBytes(6).toString('hex')}`;
  const admin = knexFactory({ client: 'pg', connection: postgresUrl, pool: { min: 0, max: 1 } });
  await admin.raw(`create schema ${schema}`);
  const url = `${postgresUrl}${postgresUrl.includes('?') ? '&' : '?'}options=-c%20search_path%3D${schema}`;
  const db = openDb(url);
  await migrateLatest(db);
  return {
    db,
    url,
    dialect: 'postgres',
    async drop() {
      await db.destroy();
      await admin.raw(`drop schema ${schema} cascade`);
      await admin.destroy();
    },
  };
}

/** The databases a suite should run on: SQLite always, PostgreSQL when TEST_DATABASE_URL is set. */
export const dialects: { name: 'sqlite' | 'postgres'; open: () => Promise<TestDb> }[] = [
  { name: 'sqlite', open: sqliteTestDb },
  ...(postgresUrl ? [{ name: 'postgres' as const, open: postgresTestDb }] : []),
];
