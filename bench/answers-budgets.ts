// The calendar-quarter budget question of `npm run bench:answers` recomputed from the rows: each company's
// revenue against its budget in its latest calendar quarter where both cover every month.
import type { Knex } from 'knex';
import { standardCategoryId } from '../core/categories.ts';
import * as D from '../core/decimal.ts';
import { lastDayOf, monthOf, type Table } from './answers-data.ts';

interface Row {
  id: string;
  company_id: string;
  budget_id: string | null;
  cadence: string;
  date: string;
  value: string;
  created_at: string;
  updated_at: string;
}

/** One row per month of one cadence: the later date, then the later edit, the later entry, the larger id. */
function byMonth(rows: readonly Row[], cadence: string): Map<number, Row> {
  const out = new Map<number, Row>();
  const key = (r: Row) => [r.date, r.updated_at, r.created_at, r.id].join('|');
  for (const r of rows) {
    if (r.cadence !== cadence) continue;
    const held = out.get(monthOf(r.date));
    if (!held || key(r) > key(held)) out.set(monthOf(r.date), r);
  }
  return out;
}

interface Quarter {
  /** Rows cover all three months: three monthly rows, or a quarterly row dated in its last month. */
  complete: boolean;
  value: D.Decimal | null;
}

/** The calendar quarter starting in month `start`, from one source's rows. */
function quarterOf(rows: readonly Row[], start: number): Quarter | null {
  const months = [start, start + 1, start + 2].map((m) => byMonth(rows, 'month').get(m));
  const values = (list: (Row | undefined)[]) => {
    const parsed = list.map((r) => (r ? D.readDecimal(r.value) : null));
    return parsed.every((v) => v !== null) ? D.sum(parsed as D.Decimal[]) : null;
  };
  if (months.every(Boolean)) return { complete: true, value: values(months) };
  const quarterly = byMonth(rows, 'quarter').get(start + 2);
  if (quarterly) return { complete: true, value: values([quarterly]) };
  return months.some(Boolean) ? { complete: false, value: null } : null;
}

/** The calendar quarters (by first month) a source has rows in. */
function quartersOf(rows: readonly Row[]): number[] {
  const starts = rows
    .filter((r) => r.cadence === 'month' || (r.cadence === 'quarter' && monthOf(r.date) % 3 === 2))
    .map((r) => monthOf(r.date) - (monthOf(r.date) % 3));
  return [...new Set(starts)];
}

/** Variance % of one company in its latest calendar quarter with a whole budget and whole actuals. */
function companyMiss(plans: Map<string, Row[]>, order: string[], actuals: readonly Row[]) {
  // Per quarter, the first budget by the rule with a figure in it counts.
  const counted = new Map<number, Quarter>();
  for (const id of order)
    for (const start of quartersOf(plans.get(id) ?? []))
      if (!counted.has(start)) counted.set(start, quarterOf(plans.get(id)!, start)!);
  for (const start of [...counted.keys()].sort((a, b) => b - a)) {
    const plan = counted.get(start)!;
    const actual = quarterOf(actuals, start);
    if (!plan.complete || !actual?.complete) continue;
    if (plan.value === null || actual.value === null || D.sign(plan.value) === 0) return null;
    const variance = D.sub(actual.value, plan.value);
    const pct = D.toFixed(D.mul(D.div(variance, D.abs(plan.value), 12), D.fromInteger(100)), 2);
    return { pct, variance: D.toText(variance) };
  }
  return null;
}

/** The company with the most negative revenue variance % in its latest budgeted calendar quarter. */
export async function largestQuarterMiss(
  t: Table,
  today: string,
): Promise<{ figures: number[]; names: string[] }> {
  const revenue = standardCategoryId('revenue');
  const columns = ['id', 'company_id', 'budget_id', 'cadence', 'date', 'value', 'created_at', 'updated_at'];
  const live = async (q: Knex.QueryBuilder) =>
    (
      (await q
        .where('category_id', revenue)
        .whereNull('deleted_at')
        .select([...columns, 'archived'])) as (Row & {
        archived: unknown;
      })[]
    ).filter((r) => !r.archived);
  const plans = await live(t('metric_data').whereNotNull('budget_id'));
  const actuals = await live(
    t('metric_data')
      .whereNull('budget_id')
      .where('date', '<=', lastDayOf(monthOf(today))),
  );
  // Budgets by the rule: the latest budget date, then the latest created, then the larger id.
  const budgets = (await t('budgets').select('id', 'company_id', 'date', 'created_at')) as Row[];
  budgets.sort(
    (a, b) =>
      b.date.localeCompare(a.date) || b.created_at.localeCompare(a.created_at) || b.id.localeCompare(a.id),
  );
  let worst: { pct: string; variance: string; company: string } | null = null;
  for (const company of new Set(plans.map((p) => p.company_id))) {
    const mine = new Map<string, Row[]>();
    for (const p of plans.filter((x) => x.company_id === company))
      mine.set(p.budget_id!, [...(mine.get(p.budget_id!) ?? []), p]);
    const order = budgets.filter((b) => mine.has(b.id)).map((b) => b.id);
    const miss = companyMiss(
      mine,
      order,
      actuals.filter((a) => a.company_id === company),
    );
    if (miss && (!worst || D.compareDecimal(miss.pct, worst.pct) < 0)) worst = { ...miss, company };
  }
  if (!worst) return { figures: [], names: [] };
  const name = (await t('companies').where('id', worst.company).first('name')).name as string;
  return { figures: [Number(worst.pct), Number(worst.variance)], names: [name] };
}
