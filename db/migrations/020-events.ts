import type { Knex } from 'knex';

// The outbox: one row per change event, written in the transaction of the change itself. `seq`
// orders a firm's events as they committed (appends of one firm take a lock held to commit), so a
// reader that pages by `seq` never skips an event that commits late.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('events', (t) => {
    t.bigIncrements('seq').primary();
    t.string('id', 32).notNullable().unique();
    t.string('firm_id', 32).notNullable().references('firms.id').onDelete('CASCADE');
    t.string('type', 64).notNullable();
    t.string('company_id', 32);
    t.string('actor_type', 16).notNullable();
    t.string('actor_id', 32);
    t.string('occurred_at', 32).notNullable();
    t.string('resource_type', 40).notNullable();
    t.string('resource_id', 64);
    t.text('data').notNullable();
    t.index(['firm_id', 'seq']);
    t.index(['firm_id', 'company_id', 'seq']);
    t.index(['occurred_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('events');
}
