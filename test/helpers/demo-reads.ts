import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Knex } from 'knex';
import { createRepos } from '../../db/repos/index.ts';
import { DEMO } from '../../db/seeds/demo.ts';
import { issueToken } from './fixture.ts';

/** Ids of the demo firm that typical calls need. */
export interface DemoIds {
  token: string;
  firmId: string;
  companyId: string;
  documentId: string;
  /** A spreadsheet's document: the one with the most proposed figures, else the first document. */
  spreadsheetId: string;
  fundId: string;
}

/** A token of the demo user and the ids an assistant would have found by its first calls. */
export async function demoIds(db: Knex): Promise<DemoIds> {
  const repos = createRepos(db);
  const user = (await repos.users.getByEmail(DEMO.email))!;
  const company = await db('companies').where('firm_id', user.firm_id).orderBy('name').first('id');
  const document = await db('documents').where('firm_id', user.firm_id).orderBy('uploaded_at').first('id');
  const fund = await db('funds').where('firm_id', user.firm_id).orderBy('name').first('id');
  const spreadsheet = await db('extraction_proposals')
    .where('firm_id', user.firm_id)
    .groupBy('document_id')
    .orderByRaw('count(*) desc')
    .first('document_id');
  return {
    token: await issueToken(repos, user),
    firmId: user.firm_id,
    companyId: company.id,
    documentId: document.id,
    spreadsheetId: spreadsheet?.document_id ?? document.id,
    fundId: fund.id,
  };
}

/** The input an assistant would typically pass to each read tool, at default page sizes. */
export function typicalInputs(ids: DemoIds): Record<string, Record<string, unknown>> {
  const company = { company_id: ids.companyId };
  return {
    list_companies: {},
    get_company: company,
    search_companies: {},
    get_company_metrics: { company_ids: [ids.companyId] },
    get_company_recent_metrics: company,
    get_metrics_options: {},
    list_budgets: {},
    get_budget_variance: {},
    list_documents: {},
    get_document_content: { document_id: ids.documentId },
    list_document_proposals: { document_id: ids.spreadsheetId },
    search_documents: { query: 'revenue' },
    list_notes: {},
    search_notes: { query: 'board' },
    get_custom_columns: {},
    get_custom_column_options: {},
    list_information_requests: {},
    list_information_reports: {},
    list_funds: {},
    list_users: {},
    whoami: {},
    get_company_performance: company,
    get_company_financial_summary: company,
    get_company_notes_summary: company,
    get_excel_plugin_guide: {},
    get_portfolio_overview: {},
    screen_companies: {},
    get_share_classes: {},
    get_financing_events: {},
    get_transactions: {},
    get_securities: {},
    get_investment_metrics: {},
    get_fund_performance: { fund_id: ids.fundId },
    list_alerts: {},
    list_changes: {},
    list_company_contacts: company,
  };
}

/**
 * The typical input of every read tool named, from typicalInputs. Throws naming each read tool that has
 * no typical input there, and each entry there that is no read tool, so a new read tool cannot slip by.
 */
export function typicalInputsOf(
  ids: DemoIds,
  readTools: readonly string[],
): Record<string, Record<string, unknown>> {
  const inputs = typicalInputs(ids);
  const missing = readTools.filter((name) => !Object.hasOwn(inputs, name));
  if (missing.length > 0)
    throw new Error(
      `${missing.join(', ')}: a read tool with no typical input; add one to typicalInputs in test/helpers/demo-reads.ts`,
    );
  const stale = Object.keys(inputs).filter((name) => !readTools.includes(name));
  if (stale.length > 0)
    throw new Error(
      `typicalInputs in test/helpers/demo-reads.ts names ${stale.join(', ')}, which is no read tool`,
    );
  return inputs;
}

/** The characters of a tool result's text content, what a model reads. */
export function resultChars(result: Awaited<ReturnType<Client['callTool']>>): number {
  return (result.content as { type: string; text?: string }[]).reduce((n, c) => n + (c.text?.length ?? 0), 0);
}
