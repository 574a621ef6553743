import type { Knex } from 'knex';

// Conventions: ids are opaque text; dates are 'YYYY-MM-DD' text and instants ISO 8601 UTC text, so
// both databases order them the same way; decimal values are text, never floats.

function money(t: Knex.CreateTableBuilder, prefix: string): void {
  t.text(`${prefix}_value`);
  t.string(`${prefix}_currency`, 3);
  t.text(`${prefix}_fx_rate`);
  t.boolean(`${prefix}_is_custom_rate`);
}

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('firms', (t) => {
    t.string('id', 32).primary();
    t.string('slug', 64).notNullable().unique();
    t.string('name', 255).notNullable();
    t.string('preferred_currency', 3).notNullable();
    t.string('country', 64).notNullable().defaultTo('');
    t.string('city', 255).notNullable().defaultTo('');
    t.text('enabled_feature_flags').notNullable().defaultTo('');
    t.string('created_at', 32).notNullable();
  });

  await knex.schema.createTable('users', (t) => {
    t.string('id', 32).primary();
    t.string('firm_id', 32).notNullable().references('firms.id').onDelete('CASCADE');
    t.string('email', 255).notNullable().unique();
    t.string('first_name', 150).notNullable().defaultTo('');
    t.string('last_name', 150).notNullable().defaultTo('');
    t.text('password_hash').notNullable();
    t.string('role', 16).notNullable();
    t.boolean('all_companies').notNullable().defaultTo(true);
    t.boolean('can_view_documents').notNullable().defaultTo(true);
    t.boolean('can_edit_cap_table').notNullable().defaultTo(false);
    t.boolean('is_active').notNullable().defaultTo(true);
    t.string('created_at', 32).notNullable();
    t.index(['firm_id', 'email']);
  });

  await knex.schema.createTable('funds', (t) => {
    t.string('id', 32).primary();
    t.string('firm_id', 32).notNullable().references('firms.id').onDelete('CASCADE');
    t.string('name', 255).notNullable();
    t.text('size').notNullable();
    t.integer('vintage').notNullable();
    t.string('currency', 3).notNullable();
    t.string('created_at', 32).notNullable();
    t.index(['firm_id', 'name', 'id']);
  });

  await knex.schema.createTable('companies', (t) => {
    t.string('id', 32).primary();
    t.string('firm_id', 32).notNullable().references('firms.id').onDelete('CASCADE');
    t.string('name', 255).notNullable();
    t.string('slug', 255).notNullable();
    t.text('description').notNullable().defaultTo('');
    t.string('sector', 255).notNullable().defaultTo('');
    t.string('firm_sector', 255).notNullable().defaultTo('');
    t.string('city', 255).notNullable().defaultTo('');
    t.string('status', 64).notNullable().defaultTo('');
    t.string('unique_ref', 255).notNullable().defaultTo('');
    t.string('website', 255).notNullable().defaultTo('');
    t.text('logo_url').notNullable().defaultTo('');
    t.string('fiscal_year_end', 10).notNullable().defaultTo('12-31');
    t.string('reporting_currency', 3).notNullable();
    t.string('investment_lead_id', 32).references('users.id').onDelete('SET NULL');
    t.string('created_at', 32).notNullable();
    t.string('updated_at', 32).notNullable();
    t.unique(['firm_id', 'slug']);
    t.index(['firm_id', 'name', 'id']);
  });

  await knex.schema.createTable('user_companies', (t) => {
    t.string('user_id', 32).notNullable().references('users.id').onDelete('CASCADE');
    t.string('company_id', 32).notNullable().references('companies.id').onDelete('CASCADE');
    t.primary(['user_id', 'company_id']);
  });

  await knex.schema.createTable('company_funds', (t) => {
    t.string('company_id', 32).notNullable().references('companies.id').onDelete('CASCADE');
    t.string('fund_id', 32).notNullable().references('funds.id').onDelete('CASCADE');
    t.primary(['company_id', 'fund_id']);
  });

  // Standard categories have firm_id null; a firm's custom metrics carry its firm_id.
  await knex.schema.createTable('metric_categories', (t) => {
    t.string('id', 32).primary();
    t.string('firm_id', 32).references('firms.id').onDelete('CASCADE');
    t.string('name', 255).notNullable();
    t.boolean('is_standard').notNullable();
    t.string('category_type', 16).notNullable();
    t.boolean('is_point_in_time').notNullable();
    t.boolean('is_archived').notNullable().defaultTo(false);
    t.boolean('is_multiple').notNullable().defaultTo(false);
    t.text('choices');
    t.string('created_at', 32).notNullable();
    t.unique(['firm_id', 'name']);
    t.index(['name']);
  });

  await knex.schema.createTable('budgets', (t) => {
    t.string('id', 32).primary();
    t.string('firm_id', 32).notNullable().references('firms.id').onDelete('CASCADE');
    t.string('company_id', 32).notNullable().references('companies.id').onDelete('CASCADE');
    t.string('name', 255).notNullable();
    t.string('date', 10).notNullable();
    t.string('color', 7).notNullable().defaultTo('#ffffff');
    t.text('description').notNullable().defaultTo('');
    t.string('created_at', 32).notNullable();
    t.index(['firm_id', 'date', 'id']);
    t.index(['company_id', 'date', 'id']);
  });

  await knex.schema.createTable('metric_data', (t) => {
    t.string('id', 32).primary();
    t.string('firm_id', 32).notNullable().references('firms.id').onDelete('CASCADE');
    t.string('company_id', 32).notNullable().references('companies.id').onDelete('CASCADE');
    t.string('category_id', 32).notNullable().references('metric_categories.id');
    t.string('cadence', 16).notNullable();
    t.string('date', 10).notNullable();
    t.text('value').notNullable();
    t.string('currency', 3);
    t.string('budget_id', 32).references('budgets.id').onDelete('CASCADE');
    t.string('detailed_source', 255).notNullable().defaultTo('');
    t.boolean('archived').notNullable().defaultTo(false);
    t.string('deleted_at', 32);
    t.string('created_at', 32).notNullable();
    t.string('updated_at', 32).notNullable();
    t.index(['company_id', 'date', 'category_id', 'id'], 'metric_data_company_date');
    t.index(['company_id', 'category_id', 'date'], 'metric_data_company_category');
    t.index(['company_id', 'created_at', 'id'], 'metric_data_company_created');
    t.index(['company_id', 'updated_at'], 'metric_data_company_updated');
    t.index(['budget_id', 'date'], 'metric_data_budget');
  });

  await knex.schema.createTable('metric_comments', (t) => {
    t.string('id', 32).primary();
    t.string('datum_id', 32).notNullable().references('metric_data.id').onDelete('CASCADE');
    t.text('content').notNullable();
    t.string('updated_by', 255).notNullable();
    t.string('updated_at', 32).notNullable();
    t.integer('seq').notNullable();
    t.index(['datum_id', 'seq']);
  });

  await knex.schema.createTable('metric_history', (t) => {
    t.string('id', 32).primary();
    t.string('datum_id', 32).notNullable().references('metric_data.id').onDelete('CASCADE');
    t.text('old_value');
    t.text('new_value');
    t.string('old_currency', 3);
    t.string('new_currency', 3);
    t.integer('comments_added').notNullable().defaultTo(0);
    t.string('changed_by', 32).notNullable();
    t.string('changed_at', 32).notNullable();
    t.index(['datum_id', 'changed_at']);
  });

  await knex.schema.createTable('fx_rates', (t) => {
    t.string('id', 32).primary();
    t.string('firm_id', 32).notNullable().references('firms.id').onDelete('CASCADE');
    t.string('from_currency', 3).notNullable();
    t.string('to_currency', 3).notNullable();
    t.string('date', 10).notNullable();
    t.text('rate').notNullable();
    t.unique(['firm_id', 'from_currency', 'to_currency', 'date']);
  });

  await knex.schema.createTable('document_files', (t) => {
    t.string('id', 32).primary();
    t.string('filename', 255).notNullable();
    t.string('content_type', 127).notNullable();
    t.integer('size').notNullable();
    t.binary('content').notNullable();
  });

  await knex.schema.createTable('information_requests', (t) => {
    t.string('id', 32).primary();
    t.string('firm_id', 32).notNullable().references('firms.id').onDelete('CASCADE');
    t.string('name', 255).notNullable();
    t.string('due_date', 10).notNullable();
    t.string('period_start_date', 10).notNullable();
    t.string('period_end_date', 10).notNullable();
    t.string('period', 64).notNullable();
    t.string('status', 32).notNullable();
    t.string('created_at', 32).notNullable();
    t.index(['firm_id', 'due_date', 'id']);
  });

  await knex.schema.createTable('information_request_documents', (t) => {
    t.string('id', 32).primary();
    t.string('request_id', 32).notNullable().references('information_requests.id').onDelete('CASCADE');
    t.string('name', 255).notNullable();
    t.boolean('optional').notNullable().defaultTo(false);
    t.integer('position').notNullable();
    t.index(['request_id', 'position']);
  });

  await knex.schema.createTable('information_request_metrics', (t) => {
    t.string('id', 32).primary();
    t.string('request_id', 32).notNullable().references('information_requests.id').onDelete('CASCADE');
    t.string('name', 255).notNullable();
    t.boolean('optional').notNullable().defaultTo(false);
    t.integer('position').notNullable();
    t.index(['request_id', 'position']);
  });

  await knex.schema.createTable('information_reports', (t) => {
    t.string('id', 32).primary();
    t.string('firm_id', 32).notNullable().references('firms.id').onDelete('CASCADE');
    t.string('company_id', 32).notNullable().references('companies.id').onDelete('CASCADE');
    t.string('information_request_id', 32)
      .notNullable()
      .references('information_requests.id')
      .onDelete('CASCADE');
    t.string('submitted_at', 32);
    t.string('status', 32).notNullable();
    t.string('created_at', 32).notNullable();
    t.index(['firm_id', 'submitted_at', 'id']);
    t.index(['company_id', 'submitted_at']);
    t.index(['information_request_id', 'submitted_at']);
  });

  await knex.schema.createTable('information_report_documents', (t) => {
    t.string('id', 32).primary();
    t.string('report_id', 32).notNullable().references('information_reports.id').onDelete('CASCADE');
    t.string('requested_document', 255).notNullable();
    t.string('status', 32).notNullable();
    t.integer('position').notNullable();
    t.index(['report_id', 'position']);
  });

  await knex.schema.createTable('information_report_metrics', (t) => {
    t.string('id', 32).primary();
    t.string('report_id', 32).notNullable().references('information_reports.id').onDelete('CASCADE');
    t.string('name', 255).notNullable();
    t.string('date', 10).notNullable();
    t.string('status', 32).notNullable();
    t.string('time_period', 32).notNullable();
    t.integer('position').notNullable();
    t.index(['report_id', 'position']);
  });

  await knex.schema.createTable('documents', (t) => {
    t.string('id', 32).primary();
    t.string('firm_id', 32).notNullable().references('firms.id').onDelete('CASCADE');
    t.string('company_id', 32).notNullable().references('companies.id').onDelete('CASCADE');
    t.string('information_request_id', 32).references('information_requests.id').onDelete('SET NULL');
    t.string('file_id', 32).notNullable().references('document_files.id');
    t.string('name', 255).notNullable();
    t.string('parse_state', 32).notNullable();
    t.string('parsed_at', 32);
    t.string('uploaded_at', 32).notNullable();
    t.string('submitted_date', 10).notNullable();
    t.string('source', 32).notNullable();
    t.index(['firm_id', 'uploaded_at', 'id']);
    t.index(['company_id', 'uploaded_at', 'id']);
  });

  await knex.schema.createTable('notes', (t) => {
    t.string('id', 32).primary();
    t.string('firm_id', 32).notNullable().references('firms.id').onDelete('CASCADE');
    t.string('company_id', 32).notNullable().references('companies.id').onDelete('CASCADE');
    t.string('author_id', 32).notNullable().references('users.id');
    t.text('note').notNullable();
    t.string('created_at', 32).notNullable();
    t.index(['company_id', 'created_at', 'id']);
  });

  await knex.schema.createTable('custom_columns', (t) => {
    t.string('id', 32).primary();
    t.string('firm_id', 32).notNullable().references('firms.id').onDelete('CASCADE');
    t.string('name', 255).notNullable();
    t.string('type', 16).notNullable();
    t.string('created_at', 32).notNullable();
    t.unique(['firm_id', 'name']);
  });

  await knex.schema.createTable('custom_column_options', (t) => {
    t.string('id', 32).primary();
    t.string('column_id', 32).notNullable().references('custom_columns.id').onDelete('CASCADE');
    t.string('value', 255).notNullable();
    t.string('color', 7).notNullable();
    t.integer('position').notNullable();
    t.index(['column_id', 'position']);
  });

  // value_text for text columns; option_ids (JSON array of option ids) for select and multi_select.
  await knex.schema.createTable('custom_column_values', (t) => {
    t.string('id', 32).primary();
    t.string('column_id', 32).notNullable().references('custom_columns.id').onDelete('CASCADE');
    t.string('company_id', 32).notNullable().references('companies.id').onDelete('CASCADE');
    t.text('value_text');
    t.text('option_ids');
    t.unique(['company_id', 'column_id']);
  });

  await knex.schema.createTable('financings', (t) => {
    t.string('id', 32).primary();
    t.string('firm_id', 32).notNullable().references('firms.id').onDelete('CASCADE');
    t.string('company_id', 32).notNullable().references('companies.id').onDelete('CASCADE');
    t.string('name', 255).notNullable();
    t.string('closing_date', 10).notNullable();
    money(t, 'pre_money');
    money(t, 'round_size');
    // Converted amounts are stored with the round so sorting by size needs no FX join.
    t.text('round_size_converted_value');
    t.text('fully_diluted_shares');
    t.boolean('is_crypto').notNullable().defaultTo(false);
    t.text('liquidation_multiple');
    t.text('cap_multiple');
    t.string('seniority_position', 32);
    t.string('participation_type', 32);
    t.string('created_at', 32).notNullable();
    t.index(['company_id', 'closing_date', 'id']);
    t.index(['firm_id', 'closing_date', 'id']);
  });

  await knex.schema.createTable('financing_co_investors', (t) => {
    t.string('id', 32).primary();
    t.string('financing_id', 32).notNullable().references('financings.id').onDelete('CASCADE');
    t.string('name', 255).notNullable();
    t.boolean('is_lead').notNullable().defaultTo(false);
    t.integer('position').notNullable();
    t.index(['financing_id', 'position']);
    t.index(['name']);
  });

  await knex.schema.createTable('financing_pari_passu', (t) => {
    t.string('financing_id', 32).notNullable().references('financings.id').onDelete('CASCADE');
    t.string('other_financing_id', 32).notNullable().references('financings.id').onDelete('CASCADE');
    t.integer('position').notNullable();
    t.primary(['financing_id', 'other_financing_id']);
  });

  await knex.schema.createTable('share_classes', (t) => {
    t.string('id', 32).primary();
    t.string('firm_id', 32).notNullable().references('firms.id').onDelete('CASCADE');
    t.string('company_id', 32).notNullable().references('companies.id').onDelete('CASCADE');
    t.string('financing_id', 32).notNullable().references('financings.id').onDelete('CASCADE');
    t.string('purchase_type', 16).notNullable();
    t.string('type', 16).notNullable();
    t.string('name', 255).notNullable();
    money(t, 'price_per_share');
    t.boolean('include_in_fair_value');
    t.string('created_at', 32).notNullable();
    t.index(['company_id', 'id']);
  });

  // One row per security of any kind; `details` holds the kind-specific fields as JSON whose
  // amounts are decimal strings and money values {value, currency, fx_rate, is_custom_rate}.
  await knex.schema.createTable('securities', (t) => {
    t.string('id', 32).primary();
    t.string('firm_id', 32).notNullable().references('firms.id').onDelete('CASCADE');
    t.string('company_id', 32).notNullable().references('companies.id').onDelete('CASCADE');
    t.string('fund_id', 32).notNullable().references('funds.id').onDelete('CASCADE');
    t.string('financing_id', 32).references('financings.id').onDelete('SET NULL');
    t.string('share_class_id', 32).references('share_classes.id').onDelete('SET NULL');
    t.string('type', 32).notNullable();
    t.string('issue_date', 10).notNullable();
    t.text('details').notNullable();
    t.string('created_at', 32).notNullable();
    t.index(['company_id', 'issue_date', 'id']);
    t.index(['fund_id']);
  });

  await knex.schema.createTable('transactions', (t) => {
    t.string('id', 32).primary();
    t.string('firm_id', 32).notNullable().references('firms.id').onDelete('CASCADE');
    t.string('company_id', 32).notNullable().references('companies.id').onDelete('CASCADE');
    t.string('input_security_id', 32).references('securities.id').onDelete('SET NULL');
    t.string('output_security_id', 32).references('securities.id').onDelete('SET NULL');
    t.string('date', 10).notNullable();
    t.string('event', 16).notNullable();
    t.text('shares');
    money(t, 'investment_amount');
    money(t, 'proceeds');
    t.string('created_at', 32).notNullable();
    t.index(['company_id', 'date', 'id']);
  });

  await knex.schema.createTable('oauth_applications', (t) => {
    t.string('id', 32).primary();
    t.string('firm_id', 32).notNullable().references('firms.id').onDelete('CASCADE');
    t.string('user_id', 32).notNullable().references('users.id').onDelete('CASCADE');
    t.string('name', 255).notNullable();
    t.string('client_id', 64).notNullable().unique();
    t.text('client_secret_hash').notNullable();
    t.string('created_at', 32).notNullable();
    t.string('revoked_at', 32);
    t.index(['firm_id', 'created_at']);
  });

  // MCP clients: dynamically registered, or an https client_id whose metadata document was fetched.
  await knex.schema.createTable('mcp_clients', (t) => {
    t.string('client_id', 2048).primary();
    t.text('client_secret_hash');
    t.text('metadata').notNullable();
    t.boolean('is_metadata_document').notNullable().defaultTo(false);
    t.string('created_at', 32).notNullable();
    t.string('fetched_at', 32);
  });

  // One row per MCP sign-in: every token issued from it dies with it, and at most 30 days after it.
  await knex.schema.createTable('mcp_grants', (t) => {
    t.string('id', 32).primary();
    t.string('client_id', 2048).notNullable();
    t.string('user_id', 32).notNullable().references('users.id').onDelete('CASCADE');
    t.string('firm_id', 32).notNullable().references('firms.id').onDelete('CASCADE');
    t.text('resource').notNullable();
    t.string('scope', 255).notNullable().defaultTo('');
    t.string('created_at', 32).notNullable();
    t.string('expires_at', 32).notNullable();
    t.string('last_used_at', 32);
    t.string('revoked_at', 32);
    t.index(['user_id', 'created_at']);
  });

  await knex.schema.createTable('authorization_codes', (t) => {
    t.string('code_hash', 64).primary();
    t.string('client_id', 2048).notNullable();
    t.string('user_id', 32).notNullable().references('users.id').onDelete('CASCADE');
    t.text('redirect_uri').notNullable();
    t.string('code_challenge', 128).notNullable();
    t.text('resource').notNullable();
    t.string('scope', 255).notNullable().defaultTo('');
    t.string('expires_at', 32).notNullable();
    t.string('used_at', 32);
    t.string('grant_id', 32);
  });

  // Every bearer token: client credentials (audience rest), MCP sign-in (audience mcp) and
  // personal access tokens (audience any). Only the SHA-256 of the token is stored.
  await knex.schema.createTable('access_tokens', (t) => {
    t.string('id', 32).primary();
    t.string('token_hash', 64).notNullable().unique();
    t.string('kind', 24).notNullable();
    t.string('audience', 16).notNullable();
    t.string('firm_id', 32).notNullable().references('firms.id').onDelete('CASCADE');
    t.string('user_id', 32).notNullable().references('users.id').onDelete('CASCADE');
    t.string('application_id', 32).references('oauth_applications.id').onDelete('CASCADE');
    t.string('grant_id', 32).references('mcp_grants.id').onDelete('CASCADE');
    t.string('name', 255);
    t.text('resource');
    t.string('scope', 255).notNullable();
    t.string('created_at', 32).notNullable();
    t.string('expires_at', 32).notNullable();
    t.string('last_used_at', 32);
    t.string('revoked_at', 32);
    t.index(['user_id', 'kind']);
    t.index(['grant_id']);
  });

  await knex.schema.createTable('refresh_tokens', (t) => {
    t.string('token_hash', 64).primary();
    t.string('grant_id', 32).notNullable().references('mcp_grants.id').onDelete('CASCADE');
    t.string('created_at', 32).notNullable();
    t.string('used_at', 32);
    t.index(['grant_id']);
  });

  await knex.schema.createTable('web_sessions', (t) => {
    t.string('id_hash', 64).primary();
    t.string('user_id', 32).notNullable().references('users.id').onDelete('CASCADE');
    t.string('csrf_token', 64).notNullable();
    t.string('created_at', 32).notNullable();
    t.string('expires_at', 32).notNullable();
  });

  await knex.schema.createTable('idempotency_keys', (t) => {
    t.string('principal', 64).notNullable();
    t.string('key', 255).notNullable();
    t.string('request_hash', 64).notNullable();
    t.integer('status_code');
    t.text('response_body');
    t.string('created_at', 32).notNullable();
    t.primary(['principal', 'key']);
    t.index(['created_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  const tables = [
    'idempotency_keys',
    'web_sessions',
    'refresh_tokens',
    'access_tokens',
    'authorization_codes',
    'mcp_grants',
    'mcp_clients',
    'oauth_applications',
    'transactions',
    'securities',
    'share_classes',
    'financing_pari_passu',
    'financing_co_investors',
    'financings',
    'custom_column_values',
    'custom_column_options',
    'custom_columns',
    'notes',
    'documents',
    'information_report_metrics',
    'information_report_documents',
    'information_reports',
    'information_request_metrics',
    'information_request_documents',
    'information_requests',
    'document_files',
    'fx_rates',
    'metric_history',
    'metric_comments',
    'metric_data',
    'budgets',
    'metric_categories',
    'company_funds',
    'user_companies',
    'companies',
    'funds',
    'users',
    'firms',
  ];
  for (const table of tables) await knex.schema.dropTableIfExists(table);
}
