import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import { standardCategoryId } from '../../core/categories.ts';
import type { User } from '../../core/principal.ts';
import { newId } from '../../db/ids.ts';
import type { Repos } from '../../db/repos/index.ts';
import type { Route } from '../../rest/adapter.ts';
import { buildFixture, createApp, type Fixture, type FixtureUser, issueToken } from './fixture.ts';

const T0 = '2026-01-01T00:00:00.000Z';

/** One object of every kind, all belonging to one company (firm-level kinds belong to its firm). */
export interface Side {
  firmId: string;
  company: string;
  companySlug: string;
  companyName: string;
  datum: string;
  customCategory: string;
  customCategoryName: string;
  budget: string;
  budgetName: string;
  document: string;
  documentName: string;
  note: string;
  noteText: string;
  financing: string;
  financingName: string;
  coInvestor: string;
  shareClass: string;
  shareClassName: string;
  security: string;
  transaction: string;
  informationRequest: string;
  informationRequestName: string;
  report: string;
  /** A contact of the company (who answers its information requests). */
  contact: string;
  contactName: string;
  customColumn: string;
  customColumnName: string;
  customColumnValue: string;
  customColumnText: string;
  fund: string;
  fundName: string;
  userEmail: string;
  webhook: string;
  webhookUrl: string;
  webhookDelivery: string;
  /** A KPI alert rule of the firm over this company and (firm A) the other company: open alerts on both. */
  alertRule: string;
  alertRuleName: string;
  /** A KPI alert rule over this company only, with an open alert on it. */
  companyAlertRule: string;
  companyAlertRuleName: string;
}

/** The roles of firm A a reliability suite calls with. */
export type RoleName = 'admin' | 'editor' | 'viewer' | 'restricted' | 'noDocuments' | 'capTable';

export interface World {
  fx: Fixture;
  roles: Record<RoleName, FixtureUser>;
  /** Acme (firm A): visible to every role of firm A. */
  own: Side;
  /** Gamma (firm A): hidden from the restricted user only. */
  hidden: Side;
  /** Zeta (firm B): hidden from everyone in firm A. */
  foreign: Side;
  /** The alert rules and alerts of firm A as built: restoreOwn puts them back after a call changed them. */
  ownAlerts: { rules: Record<string, unknown>[]; alerts: Record<string, unknown>[] };
  /** Firm A's information request, reports and contacts as built, table by table, for restoreOwn. */
  ownInformation: [string, Record<string, unknown>[]][];
}

async function makeUser(
  repos: Repos,
  firmId: string,
  email: string,
  extra: Partial<User>,
): Promise<FixtureUser> {
  const user: User = {
    id: newId(),
    firm_id: firmId,
    email,
    first_name: email.split('@')[0]!,
    last_name: 'Tester',
    password_hash: 'not-a-real-hash',
    role: 'editor',
    all_companies: true,
    can_view_documents: true,
    can_edit_cap_table: false,
    is_active: true,
    created_at: T0,
    ...extra,
  };
  await repos.users.create(user);
  const app = await createApp(repos, user);
  const rest = await issueToken(repos, user, {
    kind: 'client_credentials',
    audience: 'rest',
    applicationId: app.id,
  });
  return { user, rest, pat: await issueToken(repos, user) };
}

interface FirmObjects {
  customCategory: string;
  customCategoryName: string;
  informationRequest: string;
  informationRequestName: string;
  customColumn: string;
  customColumnName: string;
  fund: string;
  fundName: string;
  userEmail: string;
  webhook: string;
  webhookUrl: string;
  webhookDelivery: string;
}

/** Firm-level objects: a custom metric, an information request, a custom column and a fund. */
async function firmObjects(
  db: Knex,
  repos: Repos,
  firmId: string,
  label: string,
  fund: { id: string; name: string } | undefined,
  userEmail: string,
): Promise<FirmObjects> {
  const customCategory = `cat_${newId()}`;
  const customCategoryName = `${label} KPI`;
  await db('metric_categories').insert({
    id: customCategory,
    firm_id: firmId,
    name: customCategoryName,
    is_standard: false,
    category_type: 'number',
    is_point_in_time: true,
    is_archived: false,
    is_multiple: false,
    choices: null,
    created_at: T0,
  });
  const informationRequest = newId();
  const informationRequestName = `${label} quarterly request`;
  await repos.information.createRequest(
    {
      id: informationRequest,
      firm_id: firmId,
      name: informationRequestName,
      due_date: '2026-02-15',
      period_start_date: '2025-10-01',
      period_end_date: '2025-12-31',
      period: 'quarter',
      // Sent: a request that takes answers, which every write of the loop but sending accepts.
      status: 'sent',
      created_at: T0,
      updated_at: T0,
      sent_at: T0,
    },
    [{ id: newId(), name: `${label} balance sheet`, optional: false, position: 0 }],
    [{ id: newId(), name: `${label} revenue`, optional: false, position: 0 }],
  );
  const customColumn = newId();
  const customColumnName = `${label} board seat`;
  await repos.customColumns.createColumn({
    id: customColumn,
    firm_id: firmId,
    name: customColumnName,
    type: 'text',
    created_at: T0,
  });
  let fundRef = fund;
  if (!fundRef) {
    fundRef = { id: newId(), name: `${label} Fund I` };
    await db('funds').insert({
      id: fundRef.id,
      firm_id: firmId,
      name: fundRef.name,
      size: '50000000.00',
      vintage: 2021,
      currency: 'EUR',
      created_at: T0,
    });
  }
  const webhookUrl = `https://hooks.example.com/${label.toLowerCase()}-probe`;
  const hook = await repos.webhooks.createEndpoint({
    firmId,
    url: webhookUrl,
    description: `${label} hook`,
    eventTypes: ['*'],
    companyIds: null,
    secret: 'whsec_cHJvYmUtc2VjcmV0LXByb2JlLXNlY3JldC1wcm9iZQ==',
    createdBy: null,
    now: T0,
  });
  // Disabled, so no dispatcher ever sends the probe deliveries.
  await repos.webhooks.updateEndpoint(firmId, hook.id, { enabled: false }, T0);
  const delivery = await repos.webhooks.enqueue({
    endpointId: hook.id,
    firmId,
    eventId: newId(),
    eventType: 'webhook.test',
    eventSeq: null,
    payload: '{}',
    replayOf: null,
    now: T0,
  });
  return {
    webhook: hook.id,
    webhookUrl,
    webhookDelivery: delivery.id,
    customCategory,
    customCategoryName,
    informationRequest,
    informationRequestName,
    customColumn,
    customColumnName,
    fund: fundRef.id,
    fundName: fundRef.name,
    userEmail,
  };
}

/** Company-level objects of every kind for one company, named after `label` so a leak is easy to spot. */
async function companyObjects(
  db: Knex,
  repos: Repos,
  firm: FirmObjects & { firmId: string; authorId: string; currency: string },
  company: { id: string; slug: string; name: string },
  label: string,
): Promise<Side> {
  const money = (value: string) => ({ value, currency: firm.currency, fx_rate: null, is_custom_rate: null });
  const datum = newId();
  await db('metric_data').insert({
    id: datum,
    firm_id: firm.firmId,
    company_id: company.id,
    category_id: standardCategoryId('revenue'),
    cadence: 'month',
    date: '2026-01-31',
    value: '1000.00',
    currency: firm.currency,
    budget_id: null,
    detailed_source: `${label} ledger`,
    archived: false,
    deleted_at: null,
    created_at: T0,
    updated_at: T0,
  });
  await db('metric_data').insert({
    id: newId(),
    firm_id: firm.firmId,
    company_id: company.id,
    category_id: firm.customCategory,
    cadence: 'point_in_time',
    date: '2026-01-31',
    value: '7',
    currency: null,
    budget_id: null,
    detailed_source: `${label} ledger`,
    archived: false,
    deleted_at: null,
    created_at: T0,
    updated_at: T0,
  });
  const budget = newId();
  const budgetName = `${label} plan`;
  await repos.budgets.create({
    id: budget,
    firm_id: firm.firmId,
    company_id: company.id,
    name: budgetName,
    date: '2026-01-01',
    color: '#336699',
    description: `${label} budget`,
    created_at: T0,
  });
  const document = newId();
  const documentName = `${label} board deck.pdf`;
  const fileId = newId();
  const content = Buffer.from(`%PDF ${label}`);
  await repos.documents.create(
    {
      id: document,
      firm_id: firm.firmId,
      company_id: company.id,
      information_request_id: firm.informationRequest,
      file_id: fileId,
      name: documentName,
      parse_state: 'completed',
      parsed_at: '2026-01-11T00:00:00.000Z',
      uploaded_at: '2026-01-10T09:00:00.000Z',
      submitted_date: '2026-01-10',
      source: 'upload',
    },
    { id: fileId, filename: documentName, content_type: 'application/pdf', size: content.length, content },
  );
  const note = newId();
  const noteText = `${label} note: the board met`;
  // The deck's text holds the note's words, so a search of either finds this company's objects.
  const deckText = `${documentName}: ${noteText}`;
  await db('document_texts').insert({
    document_id: document,
    text: deckText,
    format: 'pdf',
    source_pages: 1,
    char_count: deckText.length,
    created_at: '2026-01-11T00:00:00.000Z',
  });
  await repos.notes.create({
    id: note,
    firm_id: firm.firmId,
    company_id: company.id,
    author_id: firm.authorId,
    note: noteText,
    created_at: T0,
  });
  const financing = newId();
  const financingName = `${label} Series A`;
  const coInvestor = `${label} Angels`;
  await repos.capTable.addFinancings(firm.firmId, [
    {
      id: financing,
      company_id: company.id,
      name: financingName,
      closing_date: '2025-06-30',
      pre_money: money('10000000'),
      round_size: money('2000000'),
      round_size_converted_value: firm.currency === 'USD' ? '2000000' : null,
      fully_diluted_shares: '1000000',
      is_crypto: false,
      liquidation_multiple: '1',
      cap_multiple: null,
      seniority_position: 'SENIOR_TO_ALL',
      participation_type: 'NON_PARTICIPATING',
      created_at: T0,
      co_investors: [{ name: coInvestor, is_lead: true }],
      pari_passu_ids: [],
    },
  ]);
  const shareClass = newId();
  const shareClassName = `${label} Preferred A`;
  await db('share_classes').insert({
    id: shareClass,
    firm_id: firm.firmId,
    company_id: company.id,
    financing_id: financing,
    purchase_type: 'primary',
    type: 'preferred',
    name: shareClassName,
    price_per_share_value: '2.00',
    price_per_share_currency: firm.currency,
    price_per_share_fx_rate: null,
    price_per_share_is_custom_rate: null,
    include_in_fair_value: true,
    created_at: T0,
  });
  const security = newId();
  await db('securities').insert({
    id: security,
    firm_id: firm.firmId,
    company_id: company.id,
    fund_id: firm.fund,
    financing_id: financing,
    share_class_id: shareClass,
    type: 'certificate',
    issue_date: '2025-06-30',
    details: JSON.stringify({ investment_amount: money('500000'), shares: '250000' }),
    created_at: T0,
  });
  const transaction = newId();
  await db('transactions').insert({
    id: transaction,
    firm_id: firm.firmId,
    company_id: company.id,
    input_security_id: security,
    output_security_id: null,
    date: '2025-12-31',
    event: 'sale',
    shares: '1000',
    investment_amount_value: '2000',
    investment_amount_currency: firm.currency,
    investment_amount_fx_rate: null,
    investment_amount_is_custom_rate: null,
    proceeds_value: '5000',
    proceeds_currency: firm.currency,
    proceeds_fx_rate: null,
    proceeds_is_custom_rate: null,
    created_at: T0,
  });
  const report = newId();
  await repos.information.createReport(
    {
      id: report,
      firm_id: firm.firmId,
      company_id: company.id,
      information_request_id: firm.informationRequest,
      submitted_at: '2026-01-30T10:00:00.000Z',
      status: 'completed',
      created_at: T0,
    },
    [{ id: newId(), requested_document: `${label} balance sheet`, status: 'completed', position: 0 }],
    [
      {
        id: newId(),
        name: `${label} revenue`,
        date: '2025-12-31',
        status: 'completed',
        time_period: 'quarter',
        position: 0,
      },
    ],
  );
  await db('information_request_companies').insert({
    request_id: firm.informationRequest,
    company_id: company.id,
  });
  const contact = newId();
  const contactName = `${label} founder`;
  await db('company_contacts').insert({
    id: contact,
    firm_id: firm.firmId,
    company_id: company.id,
    name: contactName,
    email: `founder@${company.slug}.example`,
    created_by: null,
    created_at: T0,
    updated_at: T0,
  });
  const customColumnValue = newId();
  const customColumnText = `${label} has a board seat`;
  await repos.customColumns.setValue({
    id: customColumnValue,
    column_id: firm.customColumn,
    company_id: company.id,
    value_text: customColumnText,
  });
  const companyAlertRuleName = `${label} burn watch`;
  const companyAlertRule = await alertRule(repos, firm.firmId, companyAlertRuleName, [company.id]);
  return {
    ...firm,
    alertRule: '',
    alertRuleName: '',
    companyAlertRule,
    companyAlertRuleName,
    company: company.id,
    companySlug: company.slug,
    companyName: company.name,
    datum,
    budget,
    budgetName,
    document,
    documentName,
    note,
    noteText,
    financing,
    financingName,
    coInvestor,
    shareClass,
    shareClassName,
    security,
    transaction,
    report,
    contact,
    contactName,
    customColumnValue,
    customColumnText,
  };
}

/** A rule `net_burn_avg_3m gt 1` over `companyIds`, with an open alert on each of them. */
async function alertRule(repos: Repos, firmId: string, name: string, companyIds: string[]): Promise<string> {
  const id = newId();
  await repos.alerts.insertRule({
    id,
    firm_id: firmId,
    name,
    figure: 'net_burn_avg_3m',
    op: 'gt',
    value: '1',
    fund_id: null,
    company_ids: companyIds,
    created_by: null,
    created_at: T0,
    updated_at: T0,
  });
  for (const companyId of companyIds) {
    await repos.alerts.open({
      id: newId(),
      firm_id: firmId,
      rule_id: id,
      company_id: companyId,
      figure: 'net_burn_avg_3m',
      op: 'gt',
      threshold: '1',
      value: '25000',
      current_value: '25000',
      since: T0,
    });
  }
  return id;
}

/**
 * The fixture plus two roles (an editor without documents, an editor with the cap-table flag) and one
 * object of every kind for Acme, Gamma (firm A) and Zeta (firm B). Firm B's and Gamma's names carry
 * the markers `Bravo-secret` and `Gamma-hidden` so a leak shows up in any response text.
 */
export async function buildWorld(db: Knex): Promise<World> {
  const fx = await buildFixture(db);
  const { repos } = fx;
  const noDocuments = await makeUser(repos, fx.firmA.id, 'nodocs@alpha.test', { can_view_documents: false });
  const capTable = await makeUser(repos, fx.firmA.id, 'captable@alpha.test', { can_edit_cap_table: true });
  const firmA = {
    ...(await firmObjects(
      db,
      repos,
      fx.firmA.id,
      'Alpha',
      { id: fx.fundA, name: 'Alpha Fund I' },
      'admin@alpha.test',
    )),
    firmId: fx.firmA.id,
    authorId: fx.admin.user.id,
    currency: 'USD',
  };
  const firmB = {
    ...(await firmObjects(db, repos, fx.firmB.id, 'Bravo-secret', undefined, fx.other.user.email)),
    firmId: fx.firmB.id,
    authorId: fx.other.user.id,
    currency: 'EUR',
  };
  const own = await companyObjects(db, repos, firmA, fx.companies.acme, 'Acme-own');
  const hidden = await companyObjects(db, repos, firmA, fx.companies.gamma, 'Gamma-hidden');
  const foreign = await companyObjects(db, repos, firmB, fx.companies.zeta, 'Bravo-secret');
  // Firm A's rule covers Acme and Gamma: the user restricted to Acme sees it, but never Gamma in it.
  const ruleA = { alertRuleName: 'Alpha runway watch', companies: [own.company, hidden.company] };
  const alertA = await alertRule(repos, firmA.firmId, ruleA.alertRuleName, ruleA.companies);
  for (const side of [own, hidden])
    Object.assign(side, { alertRule: alertA, alertRuleName: ruleA.alertRuleName });
  foreign.alertRuleName = 'Bravo-secret runway watch';
  foreign.alertRule = await alertRule(repos, firmB.firmId, foreign.alertRuleName, [foreign.company]);
  return {
    fx,
    roles: {
      admin: fx.admin,
      editor: fx.editor,
      viewer: fx.viewer,
      restricted: fx.restricted,
      noDocuments,
      capTable,
    },
    own,
    hidden,
    foreign,
    ownAlerts: {
      rules: await db('alert_rules').where('firm_id', firmA.firmId),
      alerts: await db('alerts').where('firm_id', firmA.firmId),
    },
    ownInformation: await informationOf(db, firmA.firmId),
  };
}

/** The tables of a firm's information requests and contacts, parents first. */
async function informationOf(db: Knex, firmId: string): Promise<[string, Record<string, unknown>[]][]> {
  const requests = db('information_requests').where('firm_id', firmId).select('id');
  const reports = db('information_reports').where('firm_id', firmId).select('id');
  return [
    ['information_requests', await db('information_requests').where('firm_id', firmId)],
    [
      'information_request_companies',
      await db('information_request_companies').whereIn('request_id', requests),
    ],
    [
      'information_request_documents',
      await db('information_request_documents').whereIn('request_id', requests),
    ],
    ['information_request_metrics', await db('information_request_metrics').whereIn('request_id', requests)],
    ['information_reports', await db('information_reports').where('firm_id', firmId)],
    ['information_report_documents', await db('information_report_documents').whereIn('report_id', reports)],
    ['information_report_metrics', await db('information_report_metrics').whereIn('report_id', reports)],
    ['company_contacts', await db('company_contacts').where('firm_id', firmId)],
  ];
}

/**
 * Puts the caller's own objects back the way buildWorld made them, so every call meets the same world:
 * the own datum undeleted, firm A's alert rules and alerts as built (a call may change or delete them;
 * rules a call created stay).
 */
export async function restoreOwn(db: Knex, w: World): Promise<void> {
  await db('metric_data').where({ id: w.own.datum }).update({ deleted_at: null });
  // Requests, reports, contacts and links as built (deleting them removes what hangs off them).
  await db.transaction(async (trx) => {
    await trx('information_requests').where('firm_id', w.fx.firmA.id).delete();
    await trx('company_contacts').where('firm_id', w.fx.firmA.id).delete();
    for (const [table, rows] of w.ownInformation) if (rows.length > 0) await trx(table).insert(rows);
    await trx('documents')
      .whereIn('id', [w.own.document, w.hidden.document])
      .update({ information_request_id: w.own.informationRequest });
  });
  const ids = w.ownAlerts.rules.map((r) => r.id as string);
  await db.transaction(async (trx) => {
    await trx('alert_rules').whereIn('id', ids).delete();
    await trx('alert_rules').insert(w.ownAlerts.rules);
    await trx('alerts').insert(w.ownAlerts.alerts);
  });
}

/** Every id and name of a side that must not appear in a response of someone who cannot see it. */
export function markers(side: Side, level: 'company' | 'firm'): string[] {
  const company = [
    side.company,
    side.companyName,
    side.datum,
    side.budget,
    side.budgetName,
    side.document,
    side.documentName,
    side.note,
    side.noteText,
    side.financing,
    side.financingName,
    side.coInvestor,
    side.shareClass,
    side.shareClassName,
    side.security,
    side.transaction,
    side.report,
    side.contact,
    side.contactName,
    side.customColumnValue,
    side.customColumnText,
    side.companyAlertRule,
    side.companyAlertRuleName,
  ];
  if (level === 'company') return company;
  return [
    ...company,
    side.firmId,
    side.customCategory,
    side.customCategoryName,
    side.informationRequest,
    side.informationRequestName,
    side.customColumn,
    side.customColumnName,
    side.fund,
    side.fundName,
    side.userEmail,
    side.webhook,
    side.webhookUrl,
    side.webhookDelivery,
    side.alertRule,
    side.alertRuleName,
    'Bravo Capital',
  ];
}

/** The tables a write changes; a rejected write must leave every one of them as it was. */
export const WRITE_TABLES = [
  'metric_data',
  'metric_comments',
  'metric_history',
  'financings',
  'financing_co_investors',
  'financing_pari_passu',
  'share_classes',
  'securities',
  'transactions',
  'companies',
  'documents',
  'document_files',
  'company_logos',
  'fair_value_overrides',
  'ownership_overrides',
  'post_money_valuation_overrides',
] as const;

/** Row counts and a hash of the contents of every write table. */
export async function writeChecksum(db: Knex): Promise<string> {
  const hash = createHash('sha256');
  for (const table of WRITE_TABLES) {
    const rows = (await db(table).select('*')).map((row) =>
      JSON.stringify(row, (_k, v) => (typeof v === 'bigint' ? String(v) : v)),
    );
    hash.update(`${table}:${rows.length}:`);
    for (const row of rows.sort()) hash.update(row);
  }
  return hash.digest('hex');
}

/** The path, query string and JSON body of a REST request that gives `route`'s tool `input`. */
export function restRequest(
  route: Route,
  input: Record<string, unknown>,
): { method: string; path: string; body?: unknown } {
  const rest = { ...input };
  const path = route.path.replace(/:(\w+)/g, (_m, name: string) => {
    const field = route.rename?.[name] ?? name;
    const value = rest[field];
    delete rest[field];
    return encodeURIComponent(String(value ?? ''));
  });
  if (route.upload) return { method: route.method, path, body: formData(rest) };
  if (route.method !== 'GET') {
    const body = route.body && typeof route.body === 'object' ? rest[route.body.field] : rest;
    return { method: route.method, path, body };
  }
  const back = new Map(Object.entries(route.rename ?? {}).map(([q, f]) => [f, q]));
  const params = new URLSearchParams();
  for (const [field, value] of Object.entries(rest)) {
    if (value === undefined) continue;
    const name = back.get(field) ?? field;
    for (const v of Array.isArray(value) ? value : [value]) params.append(name, String(v));
  }
  const query = params.toString();
  return { method: 'GET', path: query ? `${path}?${query}` : path };
}

/** A multipart form of a tool input: an uploaded file (`{filename, bytes}`) as a file part, the rest as text fields. */
export function formData(input: Record<string, unknown>): FormData {
  const form = new FormData();
  for (const [name, value] of Object.entries(input)) {
    if (value === undefined) continue;
    const file = value as { filename?: unknown; bytes?: unknown };
    if (file && typeof file === 'object' && file.bytes instanceof Uint8Array) {
      form.append(name, new Blob([new Uint8Array(file.bytes)]), String(file.filename));
    } else for (const v of Array.isArray(value) ? value : [value]) form.append(name, String(v));
  }
  return form;
}

/** A raw JSON-RPC `tools/call` over the stateless MCP endpoint (no client-side validation in the way). */
export async function mcpCall(
  baseUrl: string,
  token: string,
  name: string,
  args: unknown,
  id: number | string = 1,
): Promise<{ status: number; contentType: string; text: string; body: McpResponse | undefined }> {
  const res = await fetch(`${baseUrl}/mcp`, {
    method: 'POST',
    headers: {
      Authorization: `Bearer ${token}`,
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      'MCP-Protocol-Version': '2025-06-18',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } }),
  });
  const text = await res.text();
  let body: McpResponse | undefined;
  try {
    body = JSON.parse(text) as McpResponse;
  } catch {
    body = undefined;
  }
  return { status: res.status, contentType: res.headers.get('content-type') ?? '', text, body };
}

export interface McpResponse {
  jsonrpc: '2.0';
  id: number | string | null;
  result?: {
    isError?: boolean;
    content?: { type: string; text?: string }[];
    structuredContent?: Record<string, unknown>;
  };
  error?: { code: number; message: string };
}

const ID_KEYS = [
  'firmId',
  'company',
  'datum',
  'budget',
  'document',
  'note',
  'financing',
  'shareClass',
  'security',
  'transaction',
  'informationRequest',
  'report',
  'contact',
  'customColumn',
  'customColumnValue',
  'fund',
  'alertRule',
  'companyAlertRule',
] as const;

/**
 * A side whose ids and names exist nowhere, shaped like `template` (fresh ids of the same form, names
 * with the label swapped for one of the same length): what a caller gets for it is what "not found"
 * looks like, down to the "did you mean" suggestions.
 */
export function unknownSide(template: Side): Side {
  const rename = (text: string) =>
    text
      .replace(/Bravo-secret|Gamma-hidden|Acme-own/g, (m) => 'Nobody-there-xyz'.slice(0, m.length))
      .replace(/Zeta Zero|Gamma Grid|Acme Analytics/g, (m) => 'Nowhere Nothing Co'.slice(0, m.length))
      .replace(/zeta-zero|gamma-grid|acme-analytics/g, (m) => 'nowhere-nothing-co'.slice(0, m.length))
      .replace(/@(bravo|alpha)\.test/, '@nobod.test');
  const side = Object.fromEntries(
    Object.entries(template).map(([k, v]) => [k, rename(String(v))]),
  ) as unknown as Side;
  for (const key of ID_KEYS) side[key] = newId();
  side.customCategory = `cat_${newId()}`;
  return side;
}

let roundCounter = 0;

/** A valid financing round for a company (a unique name each call), with optional overrides. */
export function validRound(companyId: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  roundCounter += 1;
  return {
    company_id: companyId,
    name: `Probe round ${roundCounter}`,
    pre_money_valuation: { value: '8000000', currency: 'USD' },
    round_size: { value: '1500000.50', currency: 'USD' },
    fully_diluted_shares: '1000000',
    closing_date: '2025-09-30',
    co_investors: [{ name: `Probe investor ${roundCounter}`, is_lead: true }],
    ...extra,
  };
}

/**
 * One item that fits both create_notes and update_custom_column_values (each ignores the other's
 * fields); without the note it probes only the column, and create_notes refuses it alike either way.
 */
function probeItem(companyId: string, columnId: string, withNote = true): Record<string, unknown> {
  roundCounter += 1;
  return {
    company_id: companyId,
    ...(withNote ? { note: `Probe note ${roundCounter}` } : {}),
    custom_column_id: columnId,
    value: `Probe value ${roundCounter}`,
  };
}

/**
 * An input field that refers to an object of some kind, and how to fill it from a side. `level` says
 * whether the object belongs to a company (hidden from a user without access to it) or to the firm.
 * `token` is the text a response may echo back for it (replaced before responses are compared).
 */
export interface ReferenceField {
  kind: string;
  level: 'company' | 'firm';
  value(side: Side, own: Side): unknown;
  token(side: Side): string;
}

const ref = (kind: string, level: 'company' | 'firm', key: keyof Side): ReferenceField => ({
  kind,
  level,
  value: (s) => s[key],
  token: (s) => s[key],
});
/** A list field: the caller's own object together with the probed one, so a mix cannot leak either. */
const refList = (kind: string, level: 'company' | 'firm', key: keyof Side): ReferenceField => ({
  kind,
  level,
  value: (s, own) => (s[key] === own[key] ? [own[key]] : [own[key], s[key]]),
  token: (s) => s[key],
});

/**
 * Every input field name of the tools that refers to an object, by name: a new tool with these field
 * names is covered by the suites without a change; a required field missing here fails them loudly.
 */
export const REFERENCE_FIELDS: Record<string, ReferenceField[]> = {
  company_id: [ref('company', 'company', 'company')],
  company_ids: [refList('company', 'company', 'company')],
  ids: [refList('company', 'company', 'company')],
  company_slug: [ref('company', 'company', 'companySlug')],
  name: [
    ref('company name', 'company', 'companyName'),
    ref('information request name', 'firm', 'informationRequestName'),
  ],
  name_contains: [ref('company name', 'company', 'companyName')],
  datum_id: [ref('datum', 'company', 'datum')],
  budget_id: [ref('budget', 'company', 'budget')],
  financing_ids: [refList('financing', 'company', 'financing')],
  share_class_ids: [refList('share class', 'company', 'shareClass')],
  security_ids: [refList('security', 'company', 'security')],
  input_security_id: [ref('security', 'company', 'security')],
  output_security_id: [ref('security', 'company', 'security')],
  transaction_ids: [refList('transaction', 'company', 'transaction')],
  fund_id: [ref('fund', 'firm', 'fund')],
  fund_ids: [refList('fund', 'firm', 'fund')],
  information_request_id: [ref('information request', 'firm', 'informationRequest')],
  information_report_id: [ref('information report', 'company', 'report')],
  contact_id: [ref('contact', 'company', 'contact')],
  category_id: [ref('custom metric', 'firm', 'customCategory')],
  category: [ref('custom metric name', 'firm', 'customCategoryName')],
  category_name: [ref('custom metric name', 'firm', 'customCategoryName')],
  custom_metric: [ref('custom metric name', 'firm', 'customCategoryName')],
  email: [ref('user', 'firm', 'userEmail')],
  webhook_id: [ref('webhook endpoint', 'firm', 'webhook')],
  delivery_id: [ref('webhook delivery', 'firm', 'webhookDelivery')],
  rule_id: [
    ref('alert rule', 'firm', 'alertRule'),
    ref('alert rule of a company', 'company', 'companyAlertRule'),
  ],
  document_id: [ref('document', 'company', 'document')],
  query: [ref('note text', 'company', 'noteText')],
  co_investors: [
    {
      kind: 'co-investor',
      level: 'company',
      value: (s) => [{ name: s.coInvestor }],
      token: (s) => s.coInvestor,
    },
  ],
  items: [
    {
      kind: 'company',
      level: 'company',
      // One item every items-taking write accepts: a metric point, a note and a custom column value.
      value: (s, own) => [{ ...probeItem(s.company, own.customColumn), ...validPoint(s.company) }],
      token: (s) => s.company,
    },
    {
      kind: 'budget',
      level: 'company',
      value: (s, own) => [validPoint(own.company, { is_budget_metric: true, budget_id: s.budget })],
      token: (s) => s.budget,
    },
    {
      kind: 'custom metric name',
      level: 'firm',
      value: (s, own) => [
        validPoint(own.company, {
          category: s.customCategoryName,
          metric_cadence: 'point_in_time',
          currency: null,
        }),
      ],
      token: (s) => s.customCategoryName,
    },
    {
      kind: 'custom column',
      level: 'firm',
      value: (s, own) => [probeItem(own.company, s.customColumn, false)],
      token: (s) => s.customColumn,
    },
  ],
  financing_rounds: [
    { kind: 'company', level: 'company', value: (s) => [validRound(s.company)], token: (s) => s.company },
    {
      kind: 'financing',
      level: 'company',
      value: (s, own) => [
        validRound(own.company, { seniority_position: 'PARI_PASSU', pari_passu_rounds: [s.financing] }),
      ],
      token: (s) => s.financing,
    },
  ],
  share_classes: [
    {
      kind: 'company',
      level: 'company',
      value: (s, own) => [probeShareClass(s.company, own.financing)],
      token: (s) => s.company,
    },
    {
      kind: 'financing',
      level: 'company',
      value: (s, own) => [probeShareClass(own.company, s.financing)],
      token: (s) => s.financing,
    },
  ],
  certificates: [
    {
      kind: 'company',
      level: 'company',
      value: (s, own) => [probeCertificate(s.company, own.fund, own.shareClass)],
      token: (s) => s.company,
    },
    {
      kind: 'share class',
      level: 'company',
      value: (s, own) => [probeCertificate(own.company, own.fund, s.shareClass)],
      token: (s) => s.shareClass,
    },
    {
      kind: 'fund',
      level: 'firm',
      value: (s, own) => [probeCertificate(own.company, s.fund, own.shareClass)],
      token: (s) => s.fund,
    },
  ],
  sales: [
    {
      kind: 'company',
      level: 'company',
      value: (s, own) => [probeSale(s.company, own.security)],
      token: (s) => s.company,
    },
    {
      kind: 'security',
      level: 'company',
      value: (s, own) => [probeSale(own.company, s.security)],
      token: (s) => s.security,
    },
  ],
  fair_values: [
    {
      kind: 'company',
      level: 'company',
      value: (s, own) => [
        { date: '2025-12-31', company_id: s.company, fund_id: own.fund, fair_value: usd('1') },
      ],
      token: (s) => s.company,
    },
    {
      kind: 'fund',
      level: 'firm',
      value: (s, own) => [
        { date: '2025-12-31', company_id: own.company, fund_id: s.fund, fair_value: usd('1') },
      ],
      token: (s) => s.fund,
    },
  ],
};

/** A valid metric data point of a company for create_metrics, with optional overrides. */
export function validPoint(companyId: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    company_id: companyId,
    category: 'revenue',
    metric_cadence: 'month',
    date: '2025-09-30',
    value: '1000',
    currency: 'USD',
    ...extra,
  };
}

/** Fields a valid call needs besides references (a change for update_metric and update_company). */
function usd(value: string) {
  return { value, currency: 'USD' };
}

/** A valid share class of a company's round (a unique name each call). */
function probeShareClass(companyId: string, financingId: string): Record<string, unknown> {
  roundCounter += 1;
  return {
    company_id: companyId,
    financing_id: financingId,
    purchase_type: 'primary',
    type: 'preferred',
    name: `Probe class ${roundCounter}`,
    price_per_share: usd('3.00'),
  };
}

function probeCertificate(companyId: string, fundId: string, shareClassId: string): Record<string, unknown> {
  return {
    company_id: companyId,
    fund_id: fundId,
    issue_date: '2025-07-01',
    investment_amount: usd('1000'),
    shares: '500',
    share_class_id: shareClassId,
    financing_id: null,
  };
}

/** A sale of one share of a certificate. */
function probeSale(companyId: string, securityId: string): Record<string, unknown> {
  return {
    company_id: companyId,
    date: '2025-12-31',
    security_id: securityId,
    cash_received: usd('3'),
    shares_sold: '1',
  };
}

/**
 * Fields a valid call needs besides references (a change for update_metric), given the field's schema;
 * undefined leaves the field out.
 */
const EXTRA_FIELDS: Record<string, (schema: unknown) => unknown> = {
  comments: () => [{ content: `reliability probe ${++roundCounter}` }],
  // An uploaded file: a PNG, which both the document and the logo upload accept.
  file: () => ({
    filename: `probe-${++roundCounter}.png`,
    content_type: 'image/png',
    bytes: new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0]),
  }),
  firm_sector: () => `Probe sector ${++roundCounter}`,
  // A public address literal: a host name is resolved at registration, and tests may run without DNS.
  url: () => `https://93.184.215.14/probe-${++roundCounter}`,
  // An alert rule's condition (create_alert_rule needs one; update_alert_rule changes it).
  figure: () => 'net_burn_avg_3m',
  op: () => 'gt',
  // A new information request's period (a change leaves it out: a sent request keeps its period).
  period: (schema) => (isOptional(schema) ? undefined : '2026-Q1'),
  period_start_date: (schema) => (isOptional(schema) ? undefined : '2026-01-01'),
  period_end_date: (schema) => (isOptional(schema) ? undefined : '2026-03-31'),
  due_date: (schema) => (isOptional(schema) ? undefined : '2026-04-30'),
  // Only where a number fits (update_metric's value is text, and its change is the comment).
  value: (schema) => (accepts(schema, 2) ? 2 : undefined),
  // The firm's spreadsheet review setting, left at its default.
  auto_confirm: () => false,
};

/** Optional reference fields a base call fills anyway, because some tools need one of them. */
const ANCHORS = ['company_id', 'certificates', 'sales', 'fair_values'];

/** Whether a tool input field takes a list (optional, default and nullable wrappers looked through). */
export function isListField(schema: unknown): boolean {
  let s = schema as { _zod: { def: { type: string; innerType?: unknown } } };
  while (
    s._zod.def.innerType &&
    ['optional', 'default', 'nullable', 'prefault', 'readonly', 'catch'].includes(s._zod.def.type)
  ) {
    s = s._zod.def.innerType as typeof s;
  }
  return s._zod.def.type === 'array';
}

type ZodLike = { _zod: { def: { type: string; innerType?: unknown; element?: unknown; shape?: object } } };

function unwrapped(schema: unknown): ZodLike {
  let s = schema as ZodLike;
  while (s._zod.def.innerType && s._zod.def.type !== 'array') s = s._zod.def.innerType as ZodLike;
  return s;
}

/**
 * A reference value in the form the field takes: a single value goes into a list field as a list of
 * one, and a list of objects keeps only the fields its items have (MCP refuses unknown fields).
 */
export function fitField(schema: unknown, value: unknown): unknown {
  const listed = isListField(schema) && !Array.isArray(value) ? [value] : value;
  const element = unwrapped(schema)._zod.def.element;
  const shape = element ? unwrapped(element)._zod.def.shape : undefined;
  if (!shape || !Array.isArray(listed)) return listed;
  return listed.map((item) =>
    item && typeof item === 'object'
      ? Object.fromEntries(Object.entries(item).filter(([key]) => key in shape))
      : item,
  );
}

function accepts(schema: unknown, value: unknown): boolean {
  return (schema as { safeParse(v: unknown): { success: boolean } }).safeParse(value).success;
}

function isOptional(schema: unknown): boolean {
  return accepts(schema, undefined);
}

/**
 * A valid input for a tool over the caller's own objects: every required field, plus the company
 * anchor and the change fields when the tool has them. `oneOf` is a REST route's `requireOneOf`:
 * the route needs the first of them even where the tool does not. Throws for a required field
 * nobody knows.
 */
export function baseInput(
  tool: { name: string; input: { shape: Record<string, unknown> } },
  own: Side,
  oneOf: readonly string[] = [],
) {
  const input: Record<string, unknown> = {};
  const routeNeeds = oneOf.find((field) => field in tool.input.shape);
  for (const [field, schema] of Object.entries(tool.input.shape)) {
    const known = REFERENCE_FIELDS[field]?.[0];
    const wanted =
      !isOptional(schema) || ANCHORS.includes(field) || field === routeNeeds || field in EXTRA_FIELDS;
    if (!wanted) continue;
    const extra = EXTRA_FIELDS[field]?.(schema);
    if (known) input[field] = fitField(schema, known.value(own, own));
    else if (extra !== undefined) input[field] = extra;
    else if (!isOptional(schema)) {
      throw new Error(
        `${tool.name}.${field} is required but test/helpers/world.ts has no value for it: add it to REFERENCE_FIELDS`,
      );
    }
  }
  return input;
}
