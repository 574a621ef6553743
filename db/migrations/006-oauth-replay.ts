import type { Knex } from 'knex';

// A refresh token's successors, sealed with a key only the presented token yields, so a client that
// lost the response can get them again for a few seconds; and whether an authorization request named
// its redirect_uri, which the token request must then repeat (RFC 6749 §4.1.3).
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('refresh_tokens', (t) => {
    t.text('reissue');
  });
  await knex.schema.alterTable('authorization_codes', (t) => {
    t.boolean('redirect_uri_given').notNullable().defaultTo(true);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('refresh_tokens', (t) => {
    t.dropColumn('reissue');
  });
  await knex.schema.alterTable('authorization_codes', (t) => {
    t.dropColumn('redirect_uri_given');
  });
}
