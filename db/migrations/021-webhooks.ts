import type { Knex } from 'knex';

// Webhook endpoints and their deliveries. `cursor_seq` is how far an endpoint's fan-out has read the
// firm's outbox (events.seq); a delivery keeps the body it sends, so every retry is byte-identical.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('webhook_endpoints', (t) => {
    t.string('id', 32).primary();
    t.string('firm_id', 32).notNullable().references('firms.id').onDelete('CASCADE');
    t.text('url').notNullable();
    t.text('description');
    t.text('event_types').notNullable();
    t.text('company_ids');
    t.string('secret', 80).notNullable();
    t.string('previous_secret', 80);
    t.string('previous_secret_until', 32);
    t.boolean('enabled').notNullable().defaultTo(true);
    t.text('disabled_reason');
    t.string('disabled_at', 32);
    t.bigInteger('cursor_seq').notNullable().defaultTo(0);
    t.integer('consecutive_failures').notNullable().defaultTo(0);
    t.string('created_by', 32);
    t.string('created_at', 32).notNullable();
    t.string('updated_at', 32).notNullable();
    t.index(['firm_id']);
  });
  await knex.schema.createTable('webhook_deliveries', (t) => {
    t.string('id', 32).primary();
    t.string('endpoint_id', 32).notNullable().references('webhook_endpoints.id').onDelete('CASCADE');
    t.string('firm_id', 32).notNullable();
    t.string('event_id', 32).notNullable();
    t.string('event_type', 64).notNullable();
    t.bigInteger('event_seq');
    t.text('payload').notNullable();
    t.string('status', 16).notNullable();
    t.integer('attempts').notNullable().defaultTo(0);
    t.string('next_attempt_at', 32).notNullable();
    t.string('claim', 32);
    t.string('claimed_until', 32);
    t.string('last_attempt_at', 32);
    t.integer('last_status_code');
    t.text('last_error');
    t.integer('last_duration_ms');
    t.string('replay_of', 32);
    t.string('created_at', 32).notNullable();
    t.index(['status', 'next_attempt_at']);
    t.index(['endpoint_id', 'created_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('webhook_deliveries');
  await knex.schema.dropTable('webhook_endpoints');
}
