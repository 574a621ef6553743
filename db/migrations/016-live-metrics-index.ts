import type { Knex } from 'knex';

// The live data of one company (not deleted, not a budget's) in date order: the metrics page counts
// from this index alone (cadence included, for the fiscal-calendar filter), and reads its page in date
// order without sorting the company's whole history.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('metric_data', (t) => {
    t.index(['company_id', 'firm_id', 'date', 'cadence'], 'metric_data_live', {
      predicate: knex.whereNull('budget_id').whereNull('deleted_at'),
    });
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('metric_data', (t) => {
    t.dropIndex(['company_id', 'firm_id', 'date', 'cadence'], 'metric_data_live');
  });
}
