import type { Knex } from 'knex';

// The outbox of outbound mail: one row per message, from the moment the write that caused it commits
// until it is sent (or fails for good, or is held for the operator to read when no SMTP is set). A
// sending node claims a row with a lease, as the webhook deliveries are claimed. `dedupe_key` is
// unique, so a message queued twice (by two nodes running the same reminder pass) is one row. `link`
// holds the founder link the bodies carry, until sending scrubs it from them.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('outbound_mail', (t) => {
    t.string('id', 32).primary();
    t.string('firm_id', 32).notNullable().references('firms.id').onDelete('CASCADE');
    t.string('kind', 16).notNullable();
    t.string('to_address', 254).notNullable();
    t.string('to_name', 255);
    t.text('subject').notNullable();
    t.text('text_body').notNullable();
    t.text('html_body').notNullable();
    t.text('link');
    t.string('status', 16).notNullable();
    t.integer('attempts').notNullable().defaultTo(0);
    t.string('next_attempt_at', 32).notNullable();
    t.string('claim', 32);
    t.string('claimed_until', 32);
    t.string('last_attempt_at', 32);
    t.text('last_error');
    t.string('sent_at', 32);
    t.string('message_id', 255);
    t.string('dedupe_key', 255).notNullable().unique();
    t.string('report_id', 32);
    t.string('request_id', 32);
    t.string('created_at', 32).notNullable();
    t.string('updated_at', 32).notNullable();
    t.index(['status', 'next_attempt_at']);
    t.index(['firm_id', 'created_at']);
    t.index(['report_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('outbound_mail');
}
