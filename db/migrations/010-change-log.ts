import type { Knex } from 'knex';

// Who changed what and when, for every write through the API other than a metric datum's value
// (metric_history keeps those): one row per created, changed or deleted record.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('change_log', (t) => {
    t.string('id', 32).primary();
    t.string('firm_id', 32).notNullable().references('firms.id').onDelete('CASCADE');
    t.string('entity', 40).notNullable();
    t.string('entity_id', 64).notNullable();
    t.string('action', 16).notNullable();
    t.string('changed_by', 32);
    t.string('changed_at', 32).notNullable();
    t.text('changes');
    t.index(['firm_id', 'entity', 'entity_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('change_log');
}
