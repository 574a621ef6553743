import type { Knex } from 'knex';
import { isPostgres } from '../dialect.ts';

/**
 * What a cached principal is made of, and which changes make it stale: a token's validity and
 * audience, a sign-in's, the user (active, role, permissions, names), the firm (feature flags) and the
 * user's list of companies. `last_used_at` is left out, since every use stamps it.
 */
const WATCHED: readonly { table: string; update: readonly string[] | 'any'; insert?: true }[] = [
  {
    table: 'access_tokens',
    update: [
      'token_hash',
      'kind',
      'audience',
      'firm_id',
      'user_id',
      'application_id',
      'grant_id',
      'resource',
      'scope',
      'expires_at',
      'revoked_at',
    ],
  },
  { table: 'mcp_grants', update: ['user_id', 'firm_id', 'resource', 'scope', 'expires_at', 'revoked_at'] },
  { table: 'users', update: 'any' },
  { table: 'firms', update: 'any' },
  { table: 'user_companies', update: 'any', insert: true },
];

const BUMP = 'update auth_version set version = version + 1 where id = 1';

// One counter for the whole database, moved in the same transaction as any change that can alter who a
// token is; every node compares it per request with the one its cached principals were read at.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('auth_version', (t) => {
    t.integer('id').primary();
    t.bigInteger('version').notNullable().defaultTo(0);
  });
  await knex('auth_version').insert({ id: 1, version: 0 });
  if (isPostgres(knex)) {
    await knex.raw(`create function auth_version_bump() returns trigger language plpgsql as $$
      begin ${BUMP}; return null; end $$`);
    // Deletes and inserts move the counter only when they touched a row (a prune that found nothing
    // to delete keeps every node's cache); an update of a watched column always does.
    await knex.raw(`create function auth_version_bump_if_rows() returns trigger language plpgsql as $$
      begin if exists (select 1 from changed_rows) then ${BUMP}; end if; return null; end $$`);
    for (const { table, update, insert } of WATCHED) {
      const of = update === 'any' ? '' : ` of ${update.join(', ')}`;
      await knex.raw(`create trigger ${table}_auth_version_update after update${of} on ${table}
        for each statement execute function auth_version_bump()`);
      await knex.raw(`create trigger ${table}_auth_version_delete after delete on ${table}
        referencing old table as changed_rows for each statement execute function auth_version_bump_if_rows()`);
      if (insert) {
        await knex.raw(`create trigger ${table}_auth_version_insert after insert on ${table}
          referencing new table as changed_rows for each statement execute function auth_version_bump_if_rows()`);
      }
    }
    return;
  }
  for (const { table, update, insert } of WATCHED) {
    const of = update === 'any' ? '' : ` of ${update.join(', ')}`;
    await knex.raw(
      `create trigger ${table}_auth_version_update after update${of} on ${table} begin ${BUMP}; end`,
    );
    await knex.raw(`create trigger ${table}_auth_version_delete after delete on ${table} begin ${BUMP}; end`);
    if (insert) {
      await knex.raw(
        `create trigger ${table}_auth_version_insert after insert on ${table} begin ${BUMP}; end`,
      );
    }
  }
}

export async function down(knex: Knex): Promise<void> {
  const pg = isPostgres(knex);
  for (const { table } of WATCHED) {
    for (const event of ['update', 'delete', 'insert']) {
      await knex.raw(`drop trigger if exists ${table}_auth_version_${event}${pg ? ` on ${table}` : ''}`);
    }
  }
  if (pg) {
    await knex.raw('drop function if exists auth_version_bump()');
    await knex.raw('drop function if exists auth_version_bump_if_rows()');
  }
  await knex.schema.dropTable('auth_version');
}
