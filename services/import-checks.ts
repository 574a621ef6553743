// An import's checks: every item resolved against the firm's data, every problem reported, nothing written.
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
import { decimalDigitsProblem, isDecimal } from '../core/decimal.ts';
import type { Firm } from '../core/principal.ts';
import { newId } from '../db/ids.ts';
import { datumKey } from '../db/repos/metric-writes.ts';
import { bool } from '../db/repos/util.ts';
import {
  type BudgetRow,
  type Category,
  type CategoryRow,
  type Checks,
  COMPANY_FIELDS,
  type CompanyRecord,
  type CompanyRow,
  type ImportBudget,
  type ImportCompany,
  type ImportData,
  type ImportFinancing,
  type ImportMetric,
  type ImportNote,
  type ImportProblem,
  type Located,
  type Plan,
} from './import-types.ts';

/** ` (did you mean x?)` when a candidate is close enough to be a likely typo, else nothing. */
function suggestion(input: string, candidates: Iterable<string>): string {
  const best = nearestName(input, candidates);
  return best && best.distance <= Math.max(2, Math.floor(input.length / 3))
    ? ` (did you mean ${best.name}?)`
    : '';
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

export async function check(
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
