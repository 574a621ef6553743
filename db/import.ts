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
import { convertDecimal, isDecimal } from '../core/decimal.ts';
import type { Firm } from '../core/principal.ts';
import { newId } from './ids.ts';
import { type StoredMoney, writeMoney } from './repos/cap-table.ts';
import { latestRates, rateKey } from './repos/fx-rates.ts';
import { bool, chunk } from './repos/util.ts';

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

interface CompanyRecord {
  id: string;
  slug: string;
  reporting_currency: string;
  stored?: Record<string, unknown>;
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
  budgets: { item: ImportBudget; id: string; companyId: string; existing?: Record<string, unknown> }[];
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

async function check(db: Knex, firm: Firm, data: ImportData, problems: ImportProblem[]): Promise<Plan> {
  const problem = (item: Located, message: string) =>
    problems.push({ order: item.order, where: item.where, message });
  const plan: Plan = { companies: [], budgets: [], metrics: [], notes: [], financings: [] };

  // Companies: by slug, the stored ones and the ones this import creates.
  const storedCompanies = (await db('companies').where({ firm_id: firm.id })) as Record<string, unknown>[];
  const companies = new Map<string, CompanyRecord>(
    storedCompanies.map((c) => [
      c.slug as string,
      {
        id: c.id as string,
        slug: c.slug as string,
        reporting_currency: c.reporting_currency as string,
        stored: c,
      },
    ]),
  );
  const firstCompany = new Map<string, ImportCompany>();
  for (const item of data.companies) {
    const earlier = firstCompany.get(item.slug);
    if (earlier) {
      problem(item, `slug "${item.slug}" appears twice (first at ${earlier.where})`);
      continue;
    }
    firstCompany.set(item.slug, item);
    const stored = companies.get(item.slug);
    if (!stored && !item.fields.name) {
      problem(item, `name is required to create the company "${item.slug}"`);
      continue;
    }
    const record = stored ?? {
      id: newId(),
      slug: item.slug,
      reporting_currency: item.fields.reporting_currency ?? firm.preferred_currency,
    };
    companies.set(item.slug, record);
    plan.companies.push({ item, record });
  }
  const company = (item: Located & { company_slug: string }): CompanyRecord | undefined => {
    const found = companies.get(item.company_slug);
    if (!found) {
      problem(
        item,
        `company_slug "${item.company_slug}" is not a company of firm ${firm.slug}${suggestion(item.company_slug, companies.keys())}`,
      );
    }
    return found;
  };

  // Budgets: one per company and name.
  const storedBudgets = (await db('budgets').where({ firm_id: firm.id })) as Record<string, unknown>[];
  const budgets = new Map<string, string>(
    storedBudgets.map((b) => [`${b.company_id}|${b.name}`, b.id as string]),
  );
  const storedBudgetById = new Map(storedBudgets.map((b) => [b.id as string, b]));
  const firstBudget = new Map<string, ImportBudget>();
  for (const item of data.budgets) {
    const owner = company(item);
    if (!owner) continue;
    const key = `${owner.id}|${item.name}`;
    const earlier = firstBudget.get(key);
    if (earlier) {
      problem(
        item,
        `budget "${item.name}" of ${item.company_slug} appears twice (first at ${earlier.where})`,
      );
      continue;
    }
    firstBudget.set(key, item);
    const id = budgets.get(key) ?? newId();
    budgets.set(key, id);
    plan.budgets.push({ item, id, companyId: owner.id, existing: storedBudgetById.get(id) });
  }

  // Metrics: category by standard name or custom metric name; one datum per key.
  const categoryRows = (await db('metric_categories').where((w) =>
    w.whereNull('firm_id').orWhere('firm_id', firm.id),
  )) as Record<string, unknown>[];
  const standard = new Map<string, Category>();
  const custom = new CustomMetricNames<Category>();
  for (const row of categoryRows) {
    const category: Category = {
      id: row.id as string,
      name: row.name as string,
      is_standard: bool(row.is_standard),
      category_type: row.category_type as string,
      is_point_in_time: bool(row.is_point_in_time),
      choices: parseChoices(row.choices),
    };
    if (category.is_standard) standard.set(category.name, category);
    else custom.add(category);
  }
  const categoryNames = [...standard.keys(), ...custom.names()];
  const firstDatum = new Map<string, ImportMetric>();
  for (const item of data.metrics) {
    const owner = company(item);
    let category: Category | undefined;
    if (item.category === 'custom') {
      if (!item.custom_metric) {
        problem(item, 'custom_metric is required when category is custom: give the custom metric name');
      } else {
        category = custom.find(item.custom_metric);
        if (!category) {
          problem(
            item,
            `custom_metric "${item.custom_metric}" is not a custom metric of firm ${firm.slug}${suggestion(item.custom_metric, custom.names())}`,
          );
        }
      }
    } else {
      category =
        standard.get(item.category) ??
        standard.get(item.category.toLowerCase()) ??
        custom.find(item.category);
      if (!category) {
        problem(item, `category "${item.category}" is unknown${suggestion(item.category, categoryNames)}`);
      }
    }
    let budgetId: string | null = null;
    if (owner && item.budget) {
      budgetId = budgets.get(`${owner.id}|${item.budget}`) ?? null;
      if (!budgetId) problem(item, `budget "${item.budget}" is not a budget of ${item.company_slug}`);
    }
    if (!category) continue;
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
    }
    if (isMonetary(category.category_type) && !item.currency) {
      problem(item, `currency is required for ${label} (an amount of money)`);
    }
    if (!owner || (item.budget && !budgetId)) continue;
    const key = [owner.id, category.id, item.date, item.cadence, budgetId ?? ''].join('|');
    const earlier = firstDatum.get(key);
    if (earlier) {
      problem(item, `the same metric (company, category, date, cadence, budget) as ${earlier.where}`);
      continue;
    }
    firstDatum.set(key, item);
    plan.metrics.push({ item, companyId: owner.id, category, budgetId });
  }

  // Notes: the author is a user of the firm.
  const users = (await db('users').where({ firm_id: firm.id }).select('id', 'email')) as {
    id: string;
    email: string;
  }[];
  const userByEmail = new Map(users.map((u) => [u.email.toLowerCase(), u.id]));
  for (const item of data.notes) {
    const owner = company(item);
    const authorId = userByEmail.get(item.email.toLowerCase());
    if (!authorId) problem(item, `email "${item.email}" is not a user of firm ${firm.slug}`);
    if (owner && authorId) plan.notes.push({ item, companyId: owner.id, authorId });
  }

  // Financings: one per company and name; pari passu rounds by id or name within the same company.
  const storedFinancings = (await db('financings')
    .where({ firm_id: firm.id })
    .select('id', 'company_id', 'name')) as { id: string; company_id: string; name: string }[];
  const financingByName = new Map(storedFinancings.map((f) => [`${f.company_id}|${f.name}`, f.id]));
  const financingCompany = new Map(storedFinancings.map((f) => [f.id, f.company_id]));
  const storedFinancingIds = new Set(storedFinancings.map((f) => f.id));
  const firstFinancing = new Map<string, ImportFinancing>();
  const pending: { item: ImportFinancing; id: string; companyId: string; existing: boolean }[] = [];
  for (const item of data.financings) {
    const owner = company(item);
    if (!owner) continue;
    const key = `${owner.id}|${item.name}`;
    const earlier = firstFinancing.get(key);
    if (earlier) {
      problem(
        item,
        `financing "${item.name}" of ${item.company_slug} appears twice (first at ${earlier.where})`,
      );
      continue;
    }
    firstFinancing.set(key, item);
    const storedId = financingByName.get(key);
    const id = storedId ?? newId();
    financingByName.set(key, id);
    financingCompany.set(id, owner.id);
    pending.push({ item, id, companyId: owner.id, existing: storedId !== undefined });
  }
  for (const round of pending) {
    const pariPassu: string[] = [];
    for (const ref of round.item.pari_passu_rounds) {
      const byName = financingByName.get(`${round.companyId}|${ref}`);
      const byId =
        storedFinancingIds.has(ref) && financingCompany.get(ref) === round.companyId ? ref : undefined;
      const other = byName ?? byId;
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
  return plan;
}

/** The firm's rate from `from` into its preferred currency on `date` (the latest on or before it). */
async function rateOn(trx: Knex.Transaction, firm: Firm, from: string, date: string): Promise<string | null> {
  if (from === firm.preferred_currency) return '1';
  const rates = await latestRates(trx, firm.id, firm.preferred_currency, [{ currency: from, date }]);
  return rates.get(rateKey(from, date)) ?? null;
}

async function storedMoney(
  trx: Knex.Transaction,
  firm: Firm,
  money: ImportMoney | null,
  date: string,
): Promise<StoredMoney> {
  if (!money) return { value: null, currency: null, fx_rate: null, is_custom_rate: null };
  const custom = money.fx_rate !== null;
  const rate = custom ? money.fx_rate : money.currency ? await rateOn(trx, firm, money.currency, date) : null;
  return {
    value: money.value,
    currency: money.currency,
    fx_rate: rate,
    is_custom_rate: money.currency ? custom : null,
  };
}

function converted(value: string | null, rate: string | null): string | null {
  if (value === null || rate === null) return null;
  return convertDecimal(value, rate);
}

/** Both sides compared as text; null and undefined alike. */
function same(a: unknown, b: unknown): boolean {
  return (a ?? null) === null ? (b ?? null) === null : String(a) === String(b ?? '');
}

async function write(
  trx: Knex.Transaction,
  firm: Firm,
  plan: Plan,
  options: ImportOptions,
): Promise<ImportCounts> {
  const counts: ImportCounts = { created: 0, updated: 0, skipped: 0 };
  const now = options.now;
  const total =
    plan.companies.length +
    plan.budgets.length +
    plan.metrics.length +
    plan.notes.length +
    plan.financings.length;
  let done = 0;
  const step = (n = 1) => {
    done += n;
    options.onProgress?.(done, total);
  };

  for (const { item, record } of plan.companies) {
    if (!record.stored) {
      await trx('companies').insert({
        ...item.fields,
        id: record.id,
        firm_id: firm.id,
        slug: item.slug,
        reporting_currency: record.reporting_currency,
        created_at: now,
        updated_at: now,
      });
      counts.created++;
    } else {
      const changed = Object.entries(item.fields).filter(([k, v]) => !same(record.stored![k], v));
      if (changed.length > 0) {
        await trx('companies')
          .where({ id: record.id })
          .update({ ...Object.fromEntries(changed), updated_at: now });
        counts.updated++;
      } else counts.skipped++;
    }
    step();
  }

  for (const { item, id, companyId, existing } of plan.budgets) {
    const fields = {
      date: item.date,
      ...(item.color !== undefined ? { color: item.color } : {}),
      ...(item.description !== undefined ? { description: item.description } : {}),
    };
    if (!existing) {
      await trx('budgets').insert({
        id,
        firm_id: firm.id,
        company_id: companyId,
        name: item.name,
        ...fields,
        created_at: now,
      });
      counts.created++;
    } else if (Object.entries(fields).some(([k, v]) => !same(existing[k], v))) {
      await trx('budgets').where({ id }).update(fields);
      counts.updated++;
    } else counts.skipped++;
    step();
  }

  // Metrics: match the live data of the same key; several thousand rows are inserted per batch.
  const existing = new Map<string, { id: string; value: string; currency: string | null }>();
  const companyIds = [...new Set(plan.metrics.map((m) => m.companyId))];
  const categoryIds = [...new Set(plan.metrics.map((m) => m.category.id))];
  for (const ids of chunk(companyIds, 200)) {
    const rows = (await trx('metric_data')
      .whereIn('company_id', ids)
      .whereIn('category_id', categoryIds)
      .whereNull('deleted_at')
      .orderBy(['created_at', 'id'])
      .select('id', 'company_id', 'category_id', 'date', 'cadence', 'budget_id', 'value', 'currency')) as {
      id: string;
      company_id: string;
      category_id: string;
      date: string;
      cadence: string;
      budget_id: string | null;
      value: string;
      currency: string | null;
    }[];
    for (const r of rows) {
      const key = [r.company_id, r.category_id, r.date, r.cadence, r.budget_id ?? ''].join('|');
      if (!existing.has(key)) existing.set(key, r);
    }
  }
  const inserts: Record<string, unknown>[] = [];
  const flush = async () => {
    for (const batch of chunk(inserts.splice(0), 100)) await trx('metric_data').insert(batch);
  };
  for (const { item, companyId, category, budgetId } of plan.metrics) {
    const key = [companyId, category.id, item.date, item.cadence, budgetId ?? ''].join('|');
    const current = existing.get(key);
    if (!current) {
      inserts.push({
        id: newId(),
        firm_id: firm.id,
        company_id: companyId,
        category_id: category.id,
        cadence: item.cadence,
        date: item.date,
        value: item.value,
        currency: item.currency,
        budget_id: budgetId,
        detailed_source: 'import',
        archived: false,
        deleted_at: null,
        created_at: now,
        updated_at: now,
      });
      counts.created++;
      if (inserts.length >= 1000) await flush();
    } else if (current.value !== item.value || (current.currency ?? null) !== item.currency) {
      await trx('metric_data')
        .where({ id: current.id })
        .update({ value: item.value, currency: item.currency, updated_at: now });
      await trx('metric_history').insert({
        id: newId(),
        datum_id: current.id,
        old_value: current.value,
        new_value: item.value,
        old_currency: current.currency,
        new_currency: item.currency,
        comments_added: 0,
        changed_by: IMPORT_AUTHOR,
        changed_at: now,
      });
      counts.updated++;
    } else counts.skipped++;
    step();
  }
  await flush();

  // Notes have no key of their own: the same author, company and text (and time, when given) is the same note.
  for (const { item, companyId, authorId } of plan.notes) {
    const match = trx('notes').where({ company_id: companyId, author_id: authorId, note: item.note });
    if (item.created_at) match.where({ created_at: item.created_at });
    if (await match.first('id')) counts.skipped++;
    else {
      await trx('notes').insert({
        id: newId(),
        firm_id: firm.id,
        company_id: companyId,
        author_id: authorId,
        note: item.note,
        created_at: item.created_at ?? now,
      });
      counts.created++;
    }
    step();
  }

  for (const round of plan.financings) {
    const { item } = round;
    const preMoney = await storedMoney(trx, firm, item.pre_money_valuation, item.closing_date);
    const roundSize = await storedMoney(trx, firm, item.round_size, item.closing_date);
    const row: Record<string, unknown> = {
      name: item.name,
      closing_date: item.closing_date,
      ...writeMoney('pre_money', preMoney),
      ...writeMoney('round_size', roundSize),
      round_size_converted_value: converted(roundSize.value, roundSize.fx_rate),
      fully_diluted_shares: item.fully_diluted_shares,
      is_crypto: item.is_crypto,
      liquidation_multiple: item.liquidation_multiple,
      cap_multiple: item.cap_multiple,
      seniority_position: item.seniority_position,
      participation_type: item.participation_type,
    };
    const coInvestors = item.co_investors.map((c, position) => ({
      name: c.name,
      is_lead: c.is_lead,
      position,
    }));
    if (round.existing) {
      const stored = (await trx('financings').where({ id: round.id }).first()) as Record<string, unknown>;
      const storedCo = (
        (await trx('financing_co_investors').where({ financing_id: round.id }).orderBy('position')) as Record<
          string,
          unknown
        >[]
      ).map((c) => ({ name: c.name, is_lead: bool(c.is_lead), position: Number(c.position) }));
      const storedPari = (
        (await trx('financing_pari_passu').where({ financing_id: round.id }).orderBy('position')) as {
          other_financing_id: string;
        }[]
      ).map((p) => p.other_financing_id);
      const unchanged =
        Object.entries(row).every(([k, v]) =>
          typeof v === 'boolean' ? bool(stored[k]) === v : same(stored[k], v),
        ) &&
        JSON.stringify(storedCo) === JSON.stringify(coInvestors) &&
        JSON.stringify(storedPari) === JSON.stringify(round.pariPassu);
      if (unchanged) {
        counts.skipped++;
        step();
        continue;
      }
      await trx('financings').where({ id: round.id }).update(row);
      await trx('financing_co_investors').where({ financing_id: round.id }).delete();
      await trx('financing_pari_passu').where({ financing_id: round.id }).delete();
      counts.updated++;
    } else {
      await trx('financings').insert({
        ...row,
        id: round.id,
        firm_id: firm.id,
        company_id: round.companyId,
        created_at: now,
      });
      counts.created++;
    }
    if (coInvestors.length > 0) {
      await trx('financing_co_investors').insert(
        coInvestors.map((c) => ({ ...c, id: newId(), financing_id: round.id })),
      );
    }
    step();
  }
  // Pari passu links last: they may point at rounds created further down the same import.
  for (const round of plan.financings) {
    if (round.pariPassu.length === 0) continue;
    const present = await trx('financing_pari_passu').where({ financing_id: round.id }).first();
    if (present) continue; // unchanged round, links kept
    await trx('financing_pari_passu').insert(
      round.pariPassu.map((other, position) => ({
        financing_id: round.id,
        other_financing_id: other,
        position,
      })),
    );
  }
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
  const plan = await check(db, firm, data, problems);
  if (problems.length > 0) {
    throw new ImportRejected([...problems].sort((a, b) => a.order - b.order));
  }
  return db.transaction((trx) => write(trx, firm, plan, options));
}
