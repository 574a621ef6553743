import type { Knex } from 'knex';

// The collection loop: requests a firm drafts, sends, reminds and closes; the companies each asks;
// what each item asks for (a metric category with its time period, a document with a description);
// what a company's report holds (draft and submitted values, the datum or document they became);
// the founders who answer (company contacts) and the private links they answer through (stored
// only as SHA-256). Columns added to tables that hold rows are nullable or defaulted, so existing
// rows stay valid; the updates below fill them in where the old rows tell.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('information_requests', (t) => {
    t.string('created_by', 32);
    t.string('updated_at', 32);
    t.string('sent_at', 32);
    t.string('closed_at', 32);
    // A JSON array of days relative to the due date (-3: three days before, 0: on it, 7: after).
    t.string('reminder_days', 255);
    t.string('copied_from', 32);
    t.text('message').notNullable().defaultTo('');
    t.index(['firm_id', 'status', 'due_date']);
  });
  await knex.schema.createTable('information_request_companies', (t) => {
    t.string('request_id', 32).notNullable().references('information_requests.id').onDelete('CASCADE');
    t.string('company_id', 32).notNullable().references('companies.id').onDelete('CASCADE');
    t.primary(['request_id', 'company_id']);
    t.index(['company_id']);
  });
  await knex.schema.alterTable('information_request_metrics', (t) => {
    t.string('category_id', 32);
    t.string('time_period', 16);
    t.text('description').notNullable().defaultTo('');
  });
  await knex.schema.alterTable('information_request_documents', (t) => {
    t.text('description').notNullable().defaultTo('');
  });
  await knex.schema.alterTable('information_reports', (t) => {
    t.string('updated_at', 32);
    t.string('reminded_at', 32);
    // When the report was announced late (information_report.late), once.
    t.string('late_at', 32);
    t.index(['information_request_id', 'status']);
  });
  await knex.schema.alterTable('information_report_metrics', (t) => {
    t.string('request_metric_id', 32);
    t.string('category_id', 32);
    t.boolean('optional').notNullable().defaultTo(false);
    t.text('value');
    t.string('currency', 3);
    // The metric datum the submitted value was written to.
    t.string('datum_id', 32);
    t.string('updated_at', 32);
  });
  await knex.schema.alterTable('information_report_documents', (t) => {
    t.string('request_document_id', 32);
    t.boolean('optional').notNullable().defaultTo(false);
    t.string('document_id', 32);
    t.string('file_sha256', 64);
    t.string('updated_at', 32);
  });
  await knex.schema.createTable('company_contacts', (t) => {
    t.string('id', 32).primary();
    t.string('firm_id', 32).notNullable().references('firms.id').onDelete('CASCADE');
    t.string('company_id', 32).notNullable().references('companies.id').onDelete('CASCADE');
    t.string('name', 255).notNullable();
    t.string('email', 254).notNullable();
    t.string('created_by', 32);
    t.string('created_at', 32).notNullable();
    t.string('updated_at', 32).notNullable();
    t.unique(['company_id', 'email']);
    t.index(['company_id', 'name', 'id']);
  });
  await knex.schema.createTable('information_report_links', (t) => {
    t.string('id', 32).primary();
    t.string('firm_id', 32).notNullable().references('firms.id').onDelete('CASCADE');
    t.string('report_id', 32).notNullable().references('information_reports.id').onDelete('CASCADE');
    t.string('contact_id', 32).notNullable().references('company_contacts.id').onDelete('CASCADE');
    t.string('token_hash', 64).notNullable().unique();
    t.string('created_at', 32).notNullable();
    t.string('expires_at', 32).notNullable();
    t.string('revoked_at', 32);
    t.string('last_used_at', 32);
    t.index(['report_id', 'created_at']);
    t.index(['contact_id']);
  });
  await migrateRows(knex);
}

/** Fills the new columns of the rows that exist (the demo's requests and reports, or a firm's own). */
async function migrateRows(knex: Knex): Promise<void> {
  // Requests were 'open' or 'closed'; an open request is one that was sent.
  await knex('information_requests')
    .whereNotIn('status', ['draft', 'sent', 'closed'])
    .update({ status: 'sent' });
  await knex('information_requests').update({ updated_at: knex.ref('created_at') });
  await knex('information_requests')
    .whereIn('status', ['sent', 'closed'])
    .update({ sent_at: knex.ref('created_at') });
  await knex('information_requests')
    .where('status', 'closed')
    .update({ closed_at: knex.ref('created_at') });
  await knex.raw(
    `insert into information_request_companies (request_id, company_id)
     select distinct information_request_id, company_id from information_reports`,
  );
  // A metric asked for by name: the standard category of that name, else the firm's custom metric.
  await knex.raw(`update information_request_metrics set category_id = coalesce(
    (select c.id from metric_categories c where c.firm_id is null and c.name = information_request_metrics.name),
    (select c.id from metric_categories c join information_requests r on r.firm_id = c.firm_id
      where r.id = information_request_metrics.request_id and c.name = information_request_metrics.name))`);
  await knex.raw(`update information_request_metrics set time_period = case
    when coalesce((select c.is_point_in_time from metric_categories c
      where c.id = information_request_metrics.category_id), false) then 'point_in_time'
    when (select r.period from information_requests r where r.id = information_request_metrics.request_id)
      in ('month', 'quarter', 'year')
      then (select r.period from information_requests r where r.id = information_request_metrics.request_id)
    else 'quarter' end`);
  await knex.raw(`update information_reports set status = replace(lower(trim(status)), '_', '-'),
    updated_at = coalesce(submitted_at, created_at)`);
  await knex.raw(`update information_report_metrics set request_metric_id = (
    select m.id from information_request_metrics m join information_reports r on r.information_request_id = m.request_id
    where r.id = information_report_metrics.report_id and m.name = information_report_metrics.name
    order by m.position, m.id limit 1)`);
  await knex.raw(`update information_report_metrics set
    category_id = (select m.category_id from information_request_metrics m where m.id = information_report_metrics.request_metric_id),
    optional = coalesce((select m.optional from information_request_metrics m where m.id = information_report_metrics.request_metric_id), optional),
    time_period = coalesce((select m.time_period from information_request_metrics m where m.id = information_report_metrics.request_metric_id), time_period)`);
  await knex.raw(`update information_report_documents set request_document_id = (
    select d.id from information_request_documents d join information_reports r on r.information_request_id = d.request_id
    where r.id = information_report_documents.report_id and d.name = information_report_documents.requested_document
    order by d.position, d.id limit 1)`);
  await knex.raw(`update information_report_documents set optional = coalesce(
    (select d.optional from information_request_documents d where d.id = information_report_documents.request_document_id),
    optional)`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('information_report_links');
  await knex.schema.dropTable('company_contacts');
  await knex.schema.alterTable('information_report_documents', (t) => {
    for (const c of ['request_document_id', 'optional', 'document_id', 'file_sha256', 'updated_at'])
      t.dropColumn(c);
  });
  await knex.schema.alterTable('information_report_metrics', (t) => {
    for (const c of [
      'request_metric_id',
      'category_id',
      'optional',
      'value',
      'currency',
      'datum_id',
      'updated_at',
    ])
      t.dropColumn(c);
  });
  await knex.schema.alterTable('information_reports', (t) => {
    t.dropIndex(['information_request_id', 'status']);
    for (const c of ['updated_at', 'reminded_at', 'late_at']) t.dropColumn(c);
  });
  await knex.schema.alterTable('information_request_documents', (t) => t.dropColumn('description'));
  await knex.schema.alterTable('information_request_metrics', (t) => {
    for (const c of ['category_id', 'time_period', 'description']) t.dropColumn(c);
  });
  await knex.schema.dropTable('information_request_companies');
  await knex('information_requests').where('status', 'sent').update({ status: 'open' });
  await knex('information_requests').where('status', 'draft').delete();
  await knex.schema.alterTable('information_requests', (t) => {
    t.dropIndex(['firm_id', 'status', 'due_date']);
    for (const c of [
      'created_by',
      'updated_at',
      'sent_at',
      'closed_at',
      'reminder_days',
      'copied_from',
      'message',
    ])
      t.dropColumn(c);
  });
}
