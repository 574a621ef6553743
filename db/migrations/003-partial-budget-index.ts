import type { Knex } from 'knex';

// The budget index serves only budget rows. As a full index it also matched `budget_id is null`,
// and SQLite's planner, without statistics, chose it for actual-metric queries and scanned every row
// of the firm instead of one company's.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('metric_data', (t) => {
    t.dropIndex(['budget_id', 'date'], 'metric_data_budget');
  });
  await knex.schema.alterTable('metric_data', (t) => {
    t.index(['budget_id', 'date'], 'metric_data_budget', { predicate: knex.whereNotNull('budget_id') });
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('metric_data', (t) => {
    t.dropIndex(['budget_id', 'date'], 'metric_data_budget');
  });
  await knex.schema.alterTable('metric_data', (t) => {
    t.index(['budget_id', 'date'], 'metric_data_budget');
  });
}
