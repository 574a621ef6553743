import type { Knex } from 'knex';

// Alert rules (a condition on a portfolio figure), the alerts they raise (one open alert per rule and
// company at a time: `open_key` is set only while open, and unique), and the evaluator's cursor into
// each firm's events.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('alert_rules', (t) => {
    t.string('id', 32).primary();
    t.string('firm_id', 32).notNullable().references('firms.id').onDelete('CASCADE');
    t.string('name', 255).notNullable();
    t.string('figure', 64).notNullable();
    t.string('op', 8).notNullable();
    t.string('value', 64).notNullable();
    t.string('fund_id', 32).references('funds.id').onDelete('CASCADE');
    // A JSON array of company ids, or null for every company (of the fund, when fund_id is set).
    t.text('company_ids');
    t.string('created_by', 32);
    t.string('created_at', 32).notNullable();
    t.string('updated_at', 32).notNullable();
    t.index(['firm_id', 'created_at']);
  });
  await knex.schema.createTable('alerts', (t) => {
    t.string('id', 32).primary();
    t.string('firm_id', 32).notNullable().references('firms.id').onDelete('CASCADE');
    t.string('rule_id', 32).notNullable().references('alert_rules.id').onDelete('CASCADE');
    t.string('company_id', 32).notNullable().references('companies.id').onDelete('CASCADE');
    t.string('status', 8).notNullable();
    t.string('open_key', 70).unique();
    t.string('figure', 64).notNullable();
    t.string('op', 8).notNullable();
    t.string('threshold', 64).notNullable();
    t.string('value', 64).notNullable();
    t.string('current_value', 64);
    t.string('since', 32).notNullable();
    t.string('cleared_at', 32);
    t.index(['firm_id', 'status', 'since']);
    t.index(['rule_id', 'company_id']);
  });
  await knex.schema.createTable('alert_cursors', (t) => {
    t.string('firm_id', 32).primary().references('firms.id').onDelete('CASCADE');
    t.bigInteger('after_seq').notNullable().defaultTo(0);
    t.string('daily_at', 32);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('alert_cursors');
  await knex.schema.dropTable('alerts');
  await knex.schema.dropTable('alert_rules');
}
