// `portfolio import`: resolves a parsed bundle against one firm's data, reports every problem, and
// only when there is none writes everything in one transaction.
import type { Knex } from 'knex';
import {
  CustomMetricNames,
  FLOW_CADENCES,
  isMonetary,
  isNumericKind,
  nearestName,
  parseChoices,
} from '../core/categories.ts';
import { endOfMonth } from '../core/clock.ts';
import { convertDecimal, decimalDigitsProblem, isDecimal } from '../core/decimal.ts';
import type { Firm } from '../core/principal.ts';
import { newId } from '../db/ids.ts';
import type { FinancingRecord, NewFinancing, StoredMoney } from '../db/repos/cap-table.ts';
import { rateKey } from '../db/repos/fx-rates.ts';
import { createRepos, type Repos } from '../db/repos/index.ts';
import { datumKey, type NewDatum, type ValueChange } from '../db/repos/metric-writes.ts';
import { bool, chunk } from '../db/repos/util.ts';
import { capTableRecord } from './cap-table.ts';
import { type Recorder, record, SYSTEM_ACTOR } from './changes.ts';
import { recordCompany } from './companies.ts';
import { MetricEventSummary } from './metric-events.ts';
import { recordNotes } from './notes.ts';

/** One thing wrong with the input, located as the user can find it (`line 7`, `metrics[3]`). */
export interface ImportProblem {
  /** Position in the file, for sorting problems into file order. */
  order: number;
  where: string;
  message: string;
}

/** The input had problems; nothing was written. */
export class ImportRejected extends Error {
  constructor(readonly problems: ImportProblem[]) {
    super(`${problems.length} problem(s) in the import; nothing was written`);
    this.name = 'ImportRejected';
  }
}

interface Located {
  where: string;
  order: number;
}

export const COMPANY_FIELDS = [
  'name',
  'description',
  'sector',
  'firm_sector',
  'city',
  'status',
  'unique_ref',
  'website',
  'logo_url',
  'fiscal_year_end',
  'reporting_currency',
] as const;
export type CompanyField = (typeof COMPANY_FIELDS)[number];

export interface ImportCompany extends Located {
  slug: string;
  /** Only the fields the input gave; the others keep their stored (or default) values. */
  fields: Partial<Record<CompanyField, string>>;
}

export interface ImportBudget extends Located {
  company_slug: string;
  name: string;
  date: string;
  color?: string;
  description?: string;
}

export interface ImportMetric extends Located {
  company_slug: string;
  /** A standard category, a custom metric's name, or `custom` with `custom_metric`. */
  category: string;
  custom_metric?: string;
  date: string;
  cadence: string;
  value: string;
  currency: string | null;
  /** Name of a budget of the same company, for budget metrics. */
  budget?: string;
}

export interface ImportNote extends Located {
  company_slug: string;
  /** E-mail address of the author, a user of the firm. */
  email: string;
  note: string;
  created_at?: string;
}

export interface ImportMoney {
  value: string | null;
  currency: string | null;
  /** A rate given by the user (stored as custom); otherwise the firm's rate at the closing date. */
  fx_rate: string | null;
}

export interface ImportFinancing extends Located {
  company_slug: string;
  name: string;
  closing_date: string;
  pre_money_valuation: ImportMoney | null;
  round_size: ImportMoney | null;
  fully_diluted_shares: string | null;
  co_investors: { name: string; is_lead: boolean }[];
  is_crypto: boolean;
  liquidation_multiple: string | null;
  cap_multiple: string | null;
  seniority_position: string | null;
  participation_type: string | null;
  /** Other rounds of the same company, by id or by name (a round of this import may be named). */
  pari_passu_rounds: string[];
}

export interface ImportData {
  companies: ImportCompany[];
  budgets: ImportBudget[];
  metrics: ImportMetric[];
  notes: ImportNote[];
  financings: ImportFinancing[];
}

export interface ImportCounts {
  created: number;
  updated: number;
  skipped: number;
}

export interface ImportOptions {
  /** The instant stamped on created and updated rows. */
  now: string;
  /** Problems already found while parsing; they are reported together with the ones found here. */
  problems?: ImportProblem[];
  onProgress?: (done: number, total: number) => void;
}

/** Who changed a metric in metric_history when the change came from an import. */
export const IMPORT_AUTHOR = 'import';

/** ` (did you mean x?)` when a candidate is close enough to be a likely typo, else nothing. */
function suggestion(input: string, candidates: Iterable<string>): string {
  const best = nearestName(input, candidates);
  return best && best.distance <= Math.max(2, Math.floor(input.length / 3))
    ? ` (did you mean ${best.name}?)`
    : '';
}

/** A stored company, with the columns an import may set. */
type CompanyRow = { id: string; slug: string; reporting_currency: string } & Partial<
  Record<CompanyField, string | null>
>;

interface CompanyRecord {
  id: string;
  slug: string;
  reporting_currency: string;
  stored?: CompanyRow;
}

interface BudgetRow {
  id: string;
  company_id: string;
  name: string;
  date: string;
  color: string | null;
  description: string | null;
}

interface CategoryRow {
  id: string;
  name: string;
  is_standard: unknown;
  category_type: string;
  is_point_in_time: unknown;
  choices: string | null;
}

interface Category {
  id: string;
  name: string;
  is_standard: boolean;
  category_type: string;
  is_point_in_time: boolean;
  choices: string[];
}

/** What the checks resolved, ready to write. */
interface Plan {
  companies: { item: ImportCompany; record: CompanyRecord }[];
  budgets: { item: ImportBudget; id: string; companyId: string; existing?: BudgetRow }[];
  metrics: { item: ImportMetric; companyId: string; category: Category; budgetId: string | null }[];
  notes: { item: ImportNote; companyId: string; authorId: string }[];
  financings: {
    item: ImportFinancing;
    id: string;
    companyId: string;
    existing: boolean;
    pariPassu: string[];
  }[];
}

/** What every step of the checks shares. */
interface Checks {
  db: Knex;
  firm: Firm;
  plan: Plan;
  problem(item: Located, message: string): void;
  /** The newest date actual (non-budget) data may have: the end of the current month. */
  latest: string;
  /** The item's company, or undefined after reporting its unknown slug. */
  companyOf(item: Located & { company_slug: string }): CompanyRecord | undefined;
}

/** Companies by slug, the stored ones and the ones this import creates. */
async function checkCompanies(
  checks: Omit<Checks, 'companyOf'>,
  items: ImportCompany[],
): Promise<Map<string, CompanyRecord>> {
  const { db, firm, plan, problem } = checks;
  const stored = (await db('companies')
    .where({ firm_id: firm.id })
    .select('id', 'slug', ...COMPANY_FIELDS)) as CompanyRow[];
  const companies = new Map<string, CompanyRecord>(
    stored.map((c) => [
      c.slug,
      { id: c.id, slug: c.slug, reporting_currency: c.reporting_currency, stored: c },
    ]),
  );
  const first = new Map<string, ImportCompany>();
  for (const item of items) {
    const earlier = first.get(item.slug);
    if (earlier) {
      problem(item, `slug "${item.slug}" appears twice (first at ${earlier.where})`);
      continue;
    }
    first.set(item.slug, item);
    const existing = companies.get(item.slug);
    if (!existing && !item.fields.name) {
      problem(item, `name is required to create the company "${item.slug}"`);
      continue;
    }
    const record = existing ?? {
      id: newId(),
      slug: item.slug,
      reporting_currency: item.fields.reporting_currency ?? firm.preferred_currency,
    };
    companies.set(item.slug, record);
    plan.companies.push({ item, record });
  }
  return companies;
}

/** Budgets, one per company and name; returns the budget ids by `company id|name`. */
async function checkBudgets(checks: Checks, items: ImportBudget[]): Promise<Map<string, string>> {
  const { db, firm, plan } = checks;
  const stored = (await db('budgets')
    .where({ firm_id: firm.id })
    .select('id', 'company_id', 'name', 'date', 'color', 'description')) as BudgetRow[];
  const budgets = new Map(stored.map((b) => [`${b.company_id}|${b.name}`, b.id]));
  const storedById = new Map(stored.map((b) => [b.id, b]));
  for (const { item, companyId, key } of namedOncePerCompany(checks, items, 'budget')) {
    const id = budgets.get(key) ?? newId();
    budgets.set(key, id);
    plan.budgets.push({ item, id, companyId, existing: storedById.get(id) });
  }
  return budgets;
}

/**
 * The items of a kind named once per company, each with its company and its `company id|name` key; an
 * item of an unknown company is left out, and so is a repeat, reported with where the first one is.
 */
function namedOncePerCompany<T extends Located & { company_slug: string; name: string }>(
  checks: Checks,
  items: T[],
  kind: string,
): { item: T; companyId: string; key: string }[] {
  const first = new Map<string, T>();
  const named: { item: T; companyId: string; key: string }[] = [];
  for (const item of items) {
    const owner = checks.companyOf(item);
    if (!owner) continue;
    const key = `${owner.id}|${item.name}`;
    const earlier = first.get(key);
    if (earlier) {
      checks.problem(
        item,
        `${kind} "${item.name}" of ${item.company_slug} appears twice (first at ${earlier.where})`,
      );
      continue;
    }
    first.set(key, item);
    named.push({ item, companyId: owner.id, key });
  }
  return named;
}

/** The firm's metric categories: standard ones by name, custom ones by their names. */
async function loadCategories(db: Knex, firm: Firm) {
  const rows = (await db('metric_categories')
    .where((w) => w.whereNull('firm_id').orWhere('firm_id', firm.id))
    .select('id', 'name', 'is_standard', 'category_type', 'is_point_in_time', 'choices')) as CategoryRow[];
  const standard = new Map<string, Category>();
  const custom = new CustomMetricNames<Category>();
  for (const row of rows) {
    const category: Category = {
      id: row.id,
      name: row.name,
      is_standard: bool(row.is_standard),
      category_type: row.category_type,
      is_point_in_time: bool(row.is_point_in_time),
      choices: parseChoices(row.choices),
    };
    if (category.is_standard) standard.set(category.name, category);
    else custom.add(category);
  }
  return { standard, custom, names: [...standard.keys(), ...custom.names()] };
}
type Categories = Awaited<ReturnType<typeof loadCategories>>;

/** A metric's category: a standard name (any case), a custom metric's name, or `custom` with `custom_metric`. */
function categoryOf(checks: Checks, categories: Categories, item: ImportMetric): Category | undefined {
  const { firm, problem } = checks;
  const { standard, custom } = categories;
  if (item.category === 'custom') {
    if (!item.custom_metric) {
      problem(item, 'custom_metric is required when category is custom: give the custom metric name');
      return undefined;
    }
    const found = custom.find(item.custom_metric);
    if (!found) {
      problem(
        item,
        `custom_metric "${item.custom_metric}" is not a custom metric of firm ${firm.slug}${suggestion(item.custom_metric, custom.names())}`,
      );
    }
    return found;
  }
  const found =
    standard.get(item.category) ?? standard.get(item.category.toLowerCase()) ?? custom.find(item.category);
  if (!found) {
    problem(item, `category "${item.category}" is unknown${suggestion(item.category, categories.names)}`);
  }
  return found;
}

/** The cadence, value and currency a metric's category asks for. */
function checkMetricValue(checks: Checks, item: ImportMetric, category: Category): void {
  const { problem } = checks;
  const label = category.is_standard ? category.name : `the custom metric ${category.name}`;
  const cadences: readonly string[] = category.is_point_in_time ? ['point_in_time'] : FLOW_CADENCES;
  if (!cadences.includes(item.cadence)) {
    problem(item, `cadence "${item.cadence}" does not fit ${label}: use ${cadences.join(', ')}`);
  }
  if (category.category_type === 'select' && !category.choices.includes(item.value)) {
    problem(item, `value "${item.value}" is not a choice of ${label}: ${category.choices.join(', ')}`);
  } else if (
    isNumericKind(category.category_type) &&
    !(isDecimal(item.value) && item.value === item.value.trim())
  ) {
    problem(item, `value "${item.value}" is not a decimal number (such as 1234.56), as ${label} needs`);
  } else if (isNumericKind(category.category_type) && decimalDigitsProblem(item.value)) {
    problem(item, `value ${decimalDigitsProblem(item.value)}`);
  }
  if (isMonetary(category.category_type) && !item.currency) {
    problem(item, `currency is required for ${label} (an amount of money)`);
  }
}

/** Metrics: a known category, a fitting value, and one datum per key. */
async function checkMetrics(
  checks: Checks,
  items: ImportMetric[],
  budgets: Map<string, string>,
): Promise<void> {
  const { problem, plan } = checks;
  const categories = await loadCategories(checks.db, checks.firm);
  const first = new Map<string, ImportMetric>();
  for (const item of items) {
    const owner = checks.companyOf(item);
    const category = categoryOf(checks, categories, item);
    let budgetId: string | null = null;
    if (owner && item.budget) {
      budgetId = budgets.get(`${owner.id}|${item.budget}`) ?? null;
      if (!budgetId) problem(item, `budget "${item.budget}" is not a budget of ${item.company_slug}`);
    }
    if (!item.budget && item.date > checks.latest) {
      problem(
        item,
        `date ${item.date} is after ${checks.latest}, the end of the current month: actual data cannot be dated in the future (budget data can)`,
      );
    }
    if (!category) continue;
    checkMetricValue(checks, item, category);
    if (!owner || (item.budget && !budgetId)) continue;
    const key = datumKey({
      company_id: owner.id,
      category_id: category.id,
      date: item.date,
      cadence: item.cadence,
      budget_id: budgetId,
    });
    const earlier = first.get(key);
    if (earlier) {
      problem(item, `the same metric (company, category, date, cadence, budget) as ${earlier.where}`);
      continue;
    }
    first.set(key, item);
    plan.metrics.push({ item, companyId: owner.id, category, budgetId });
  }
}

/** Notes: the author is a user of the firm. */
async function checkNotes(checks: Checks, items: ImportNote[]): Promise<void> {
  const { db, firm, problem, plan } = checks;
  const users = (await db('users').where({ firm_id: firm.id }).select('id', 'email')) as {
    id: string;
    email: string;
  }[];
  const userByEmail = new Map(users.map((u) => [u.email.toLowerCase(), u.id]));
  for (const item of items) {
    const owner = checks.companyOf(item);
    const authorId = userByEmail.get(item.email.toLowerCase());
    if (!authorId) problem(item, `email "${item.email}" is not a user of firm ${firm.slug}`);
    if (owner && authorId) plan.notes.push({ item, companyId: owner.id, authorId });
  }
}

/** Financings: one per company and name; pari passu rounds by id or name within the same company. */
async function checkFinancings(checks: Checks, items: ImportFinancing[]): Promise<void> {
  const { db, firm, problem, plan } = checks;
  const stored = (await db('financings').where({ firm_id: firm.id }).select('id', 'company_id', 'name')) as {
    id: string;
    company_id: string;
    name: string;
  }[];
  const byName = new Map(stored.map((f) => [`${f.company_id}|${f.name}`, f.id]));
  const companyOfRound = new Map(stored.map((f) => [f.id, f.company_id]));
  const storedIds = new Set(stored.map((f) => f.id));
  const pending: { item: ImportFinancing; id: string; companyId: string; existing: boolean }[] = [];
  for (const { item, companyId, key } of namedOncePerCompany(checks, items, 'financing')) {
    const storedId = byName.get(key);
    const id = storedId ?? newId();
    byName.set(key, id);
    companyOfRound.set(id, companyId);
    pending.push({ item, id, companyId, existing: storedId !== undefined });
  }
  // Resolved once every round is named, so a round may refer to one further down the import.
  for (const round of pending) {
    const pariPassu: string[] = [];
    for (const ref of round.item.pari_passu_rounds) {
      const named = byName.get(`${round.companyId}|${ref}`);
      const byId = storedIds.has(ref) && companyOfRound.get(ref) === round.companyId ? ref : undefined;
      const other = named ?? byId;
      if (!other || other === round.id) {
        problem(
          round.item,
          `pari_passu_rounds: "${ref}" is not another financing of ${round.item.company_slug} (give its id or name)`,
        );
        continue;
      }
      if (!pariPassu.includes(other)) pariPassu.push(other);
    }
    plan.financings.push({ ...round, pariPassu });
  }
}

async function check(
  db: Knex,
  firm: Firm,
  data: ImportData,
  problems: ImportProblem[],
  now: string,
): Promise<Plan> {
  const problem = (item: Located, message: string) => {
    problems.push({ order: item.order, where: item.where, message });
  };
  const plan: Plan = { companies: [], budgets: [], metrics: [], notes: [], financings: [] };
  const latest = endOfMonth(new Date(now));
  const companies = await checkCompanies({ db, firm, plan, problem, latest }, data.companies);
  const checks: Checks = {
    db,
    firm,
    plan,
    problem,
    latest,
    companyOf(item) {
      const found = companies.get(item.company_slug);
      if (!found) {
        problem(
          item,
          `company_slug "${item.company_slug}" is not a company of firm ${firm.slug}${suggestion(item.company_slug, companies.keys())}`,
        );
      }
      return found;
    },
  };
  const budgets = await checkBudgets(checks, data.budgets);
  await checkMetrics(checks, data.metrics, budgets);
  await checkNotes(checks, data.notes);
  await checkFinancings(checks, data.financings);
  return plan;
}

/** Both sides compared as text; null and undefined alike. */
function same(a: unknown, b: unknown): boolean {
  return (a ?? null) === null ? (b ?? null) === null : String(a) === String(b ?? '');
}

/** Counts each outcome and reports progress as items are written. */
type Tally = (outcome: keyof ImportCounts, items?: number) => void;

async function writeCompanies(
  trx: Knex.Transaction,
  recorder: Recorder,
  companies: Plan['companies'],
  tally: Tally,
): Promise<void> {
  const now = recorder.at;
  for (const { item, record } of companies) {
    if (!record.stored) {
      const row = {
        ...item.fields,
        id: record.id,
        firm_id: recorder.firmId,
        slug: item.slug,
        reporting_currency: record.reporting_currency,
        created_at: now,
        updated_at: now,
      };
      await trx('companies').insert(row);
      const { id: _id, firm_id: _firm, created_at: _c, updated_at: _u, ...written } = row;
      await recordCompany(recorder, row, 'create', written);
      tally('created');
      continue;
    }
    const stored = record.stored;
    const changed = Object.entries(item.fields).filter(([k, v]) => !same(stored[k as CompanyField], v));
    if (changed.length === 0) {
      tally('skipped');
      continue;
    }
    await trx('companies')
      .where({ id: record.id })
      .update({ ...Object.fromEntries(changed), updated_at: now });
    const log = Object.fromEntries(
      changed.map(([k, to]) => [k, { from: stored[k as CompanyField] ?? null, to }]),
    );
    await recordCompany(
      recorder,
      { ...stored, ...Object.fromEntries(changed), updated_at: now },
      'update',
      log,
    );
    tally('updated');
  }
}

/** The change-log row and event of a budget written by the import. */
function budgetRecorded(
  row: Pick<BudgetRow, 'id' | 'company_id'> & Partial<BudgetRow>,
  action: 'create' | 'update',
  changes: Record<string, unknown>,
) {
  return {
    change: { entity: 'budgets', entityId: row.id, action, changes },
    event: {
      type: action === 'create' ? 'budget.created' : 'budget.updated',
      companyId: row.company_id,
      resourceType: 'budget',
      resourceId: row.id,
      data: { ...row },
    },
  };
}

async function writeBudgets(
  trx: Knex.Transaction,
  recorder: Recorder,
  budgets: Plan['budgets'],
  tally: Tally,
): Promise<void> {
  for (const { item, id, companyId, existing } of budgets) {
    const fields = {
      date: item.date,
      ...(item.color !== undefined ? { color: item.color } : {}),
      ...(item.description !== undefined ? { description: item.description } : {}),
    };
    if (!existing) {
      const row = { id, company_id: companyId, name: item.name, ...fields };
      await trx('budgets').insert({ ...row, firm_id: recorder.firmId, created_at: recorder.at });
      await record(
        recorder,
        budgetRecorded(row, 'create', { name: item.name, company_id: companyId, ...fields }),
      );
      tally('created');
    } else if (Object.entries(fields).some(([k, v]) => !same(existing[k as keyof BudgetRow], v))) {
      await trx('budgets').where({ id }).update(fields);
      await record(recorder, budgetRecorded({ ...existing, ...fields }, 'update', fields));
      tally('updated');
    } else tally('skipped');
  }
}

/** Metrics written per slice, so that progress moves while a large import writes. */
const METRIC_SLICE = 1000;

/**
 * Matches each metric to the live datum of the same key: none creates one, another value or
 * currency replaces it (kept in metric_history), the same value and currency skips it.
 */
async function writeMetrics(
  repos: Repos,
  recorder: Recorder,
  metrics: Plan['metrics'],
  tally: Tally,
): Promise<void> {
  const firm = { id: recorder.firmId };
  const now = recorder.at;
  const summary = new MetricEventSummary();
  const live = await repos.metricWrites.liveData(
    firm.id,
    metrics.map((m) => m.companyId),
    metrics.map((m) => m.category.id),
  );
  for (const slice of chunk(metrics, METRIC_SLICE)) {
    const inserts: NewDatum[] = [];
    const changes: ValueChange[] = [];
    for (const { item, companyId, category, budgetId } of slice) {
      const datum = {
        company_id: companyId,
        category_id: category.id,
        date: item.date,
        cadence: item.cadence,
        budget_id: budgetId,
      };
      const current = live.get(datumKey(datum));
      const { cadence, date, value, currency } = item;
      if (!current) {
        const id = newId();
        inserts.push({ ...datum, id, value, currency, detailed_source: 'import' });
        summary.add({
          type: 'metric.created',
          companyId,
          category,
          cadence,
          date,
          budgetId,
          id,
          value,
          currency,
        });
      } else if (current.value !== value || (current.currency ?? null) !== currency) {
        const id = current.id;
        summary.add({
          type: 'metric.updated',
          companyId,
          category,
          cadence,
          date,
          budgetId,
          id,
          value,
          currency,
        });
        changes.push({
          id: current.id,
          old_value: current.value,
          old_currency: current.currency,
          value: item.value,
          currency: item.currency,
        });
      }
    }
    await repos.metricWrites.insertData(firm.id, inserts, now);
    await repos.metricWrites.replaceValues(changes, IMPORT_AUTHOR, now);
    tally('created', inserts.length);
    tally('updated', changes.length);
    tally('skipped', slice.length - inserts.length - changes.length);
  }
  // One event per company, category, cadence and budget of the import, however many points it wrote.
  await record(recorder, ...summary.recorded());
}

/** Notes have no key of their own: the same author, company and text (and time, when given) is the same note. */
async function writeNotes(
  trx: Knex.Transaction,
  recorder: Recorder,
  notes: Plan['notes'],
  tally: Tally,
): Promise<void> {
  const { repos, firmId } = recorder;
  for (const { item, companyId, authorId } of notes) {
    const match = trx('notes').where({ company_id: companyId, author_id: authorId, note: item.note });
    if (item.created_at) match.where({ created_at: item.created_at });
    if (await match.first('id')) {
      tally('skipped');
      continue;
    }
    const note = {
      id: newId(),
      firm_id: firmId,
      company_id: companyId,
      author_id: authorId,
      note: item.note,
      created_at: item.created_at ?? recorder.at,
    };
    await repos.notes.create(note);
    await recordNotes(recorder, [note]);
    tally('created');
  }
}

/** An amount as stored: a rate given by the user is custom, otherwise the firm's rate at `date`. */
async function storedMoney(
  repos: Repos,
  firm: Firm,
  money: ImportMoney | null,
  date: string,
): Promise<StoredMoney> {
  if (!money) return { value: null, currency: null, fx_rate: null, is_custom_rate: null };
  const custom = money.fx_rate !== null;
  let rate = money.fx_rate;
  if (!custom && money.currency) {
    rate =
      money.currency === firm.preferred_currency
        ? '1'
        : ((
            await repos.capTable.latestRates(firm.id, firm.preferred_currency, [
              { currency: money.currency, date },
            ])
          ).get(rateKey(money.currency, date)) ?? null);
  }
  return {
    value: money.value,
    currency: money.currency,
    fx_rate: rate,
    is_custom_rate: money.currency ? custom : null,
  };
}

async function financingToWrite(
  repos: Repos,
  firm: Firm,
  round: Plan['financings'][number],
  now: string,
): Promise<NewFinancing> {
  const { item } = round;
  const preMoney = await storedMoney(repos, firm, item.pre_money_valuation, item.closing_date);
  const roundSize = await storedMoney(repos, firm, item.round_size, item.closing_date);
  return {
    id: round.id,
    company_id: round.companyId,
    name: item.name,
    closing_date: item.closing_date,
    pre_money: preMoney,
    round_size: roundSize,
    round_size_converted_value:
      roundSize.value === null || roundSize.fx_rate === null
        ? null
        : convertDecimal(roundSize.value, roundSize.fx_rate),
    fully_diluted_shares: item.fully_diluted_shares,
    is_crypto: item.is_crypto,
    liquidation_multiple: item.liquidation_multiple,
    cap_multiple: item.cap_multiple,
    seniority_position: item.seniority_position,
    participation_type: item.participation_type,
    created_at: now,
    co_investors: item.co_investors.map((c) => ({ name: c.name, is_lead: c.is_lead })),
    pari_passu_ids: round.pariPassu,
  };
}

function sameMoney(a: StoredMoney, b: StoredMoney): boolean {
  return (
    same(a.value, b.value) &&
    same(a.currency, b.currency) &&
    same(a.fx_rate, b.fx_rate) &&
    same(a.is_custom_rate, b.is_custom_rate)
  );
}

/** Whether writing `next` would leave the stored round as it is. */
function sameFinancing(stored: FinancingRecord, next: NewFinancing): boolean {
  return (
    same(stored.name, next.name) &&
    same(stored.closing_date, next.closing_date) &&
    sameMoney(stored.pre_money, next.pre_money) &&
    sameMoney(stored.round_size, next.round_size) &&
    same(stored.round_size_converted_value, next.round_size_converted_value) &&
    same(stored.fully_diluted_shares, next.fully_diluted_shares) &&
    stored.is_crypto === next.is_crypto &&
    same(stored.liquidation_multiple, next.liquidation_multiple) &&
    same(stored.cap_multiple, next.cap_multiple) &&
    same(stored.seniority_position, next.seniority_position) &&
    same(stored.participation_type, next.participation_type) &&
    JSON.stringify(stored.co_investors) === JSON.stringify(next.co_investors) &&
    JSON.stringify(stored.pari_passu_rounds.map((r) => r.id)) === JSON.stringify(next.pari_passu_ids)
  );
}

/** New rounds are inserted before stored ones are rewritten: a rewritten round may link to a new one. */
async function writeFinancings(
  recorder: Recorder,
  firm: Firm,
  financings: Plan['financings'],
  tally: Tally,
): Promise<void> {
  const { repos, at: now } = recorder;
  const scope = { firmId: firm.id, companyIds: null };
  const stored = new Map<string, FinancingRecord>();
  for (const ids of chunk(
    financings.filter((f) => f.existing).map((f) => f.id),
    500,
  )) {
    for (const f of await repos.capTable.financingsById(scope, ids)) stored.set(f.id, f);
  }
  const inserts: NewFinancing[] = [];
  const replacements: NewFinancing[] = [];
  for (const round of financings) {
    const next = await financingToWrite(repos, firm, round, now);
    const current = stored.get(round.id);
    if (!current) inserts.push(next);
    else if (!sameFinancing(current, next)) replacements.push(next);
  }
  await repos.capTable.insertFinancings(firm.id, inserts);
  await repos.capTable.replaceFinancings(replacements);
  await record(
    recorder,
    ...inserts.map((f) => capTableRecord('financings', 'financing_round.created', f)),
    ...replacements.map((f) => capTableRecord('financings', 'financing_round.updated', f, 'update')),
  );
  tally('created', inserts.length);
  tally('updated', replacements.length);
  tally('skipped', financings.length - inserts.length - replacements.length);
}

async function write(
  trx: Knex.Transaction,
  firm: Firm,
  plan: Plan,
  options: ImportOptions,
): Promise<ImportCounts> {
  const repos = createRepos(trx);
  const counts: ImportCounts = { created: 0, updated: 0, skipped: 0 };
  const total =
    plan.companies.length +
    plan.budgets.length +
    plan.metrics.length +
    plan.notes.length +
    plan.financings.length;
  let done = 0;
  const tally: Tally = (outcome, items = 1) => {
    if (items === 0) return;
    counts[outcome] += items;
    done += items;
    options.onProgress?.(done, total);
  };
  // The importer writes as the service itself: its change-log rows and events name no user.
  const recorder: Recorder = { repos, firmId: firm.id, actor: SYSTEM_ACTOR, at: options.now };
  await writeCompanies(trx, recorder, plan.companies, tally);
  await writeBudgets(trx, recorder, plan.budgets, tally);
  await writeMetrics(repos, recorder, plan.metrics, tally);
  await writeNotes(trx, recorder, plan.notes, tally);
  await writeFinancings(recorder, firm, plan.financings, tally);
  return counts;
}

/**
 * Checks every item against the firm's data (companies, categories, budgets, users, financings)
 * and, only when neither parsing nor these checks found a problem, writes everything in one
 * transaction. Metrics are matched on company, category, date, cadence and budget: a match with
 * the same value and currency is skipped, another value or currency updates it, no match creates one.
 */
export async function importData(
  db: Knex,
  firm: Firm,
  data: ImportData,
  options: ImportOptions,
): Promise<ImportCounts> {
  const problems = [...(options.problems ?? [])];
  const plan = await check(db, firm, data, problems, options.now);
  if (problems.length > 0) {
    throw new ImportRejected([...problems].sort((a, b) => a.order - b.order));
  }
  return db.transaction((trx) => write(trx, firm, plan, options));
}
