import type { Knex } from 'knex';

export function isPostgres(db: Knex): boolean {
  return db.client.dialect === 'postgresql';
}
