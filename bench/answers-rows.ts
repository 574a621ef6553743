// The questions of `npm run bench:answers` whose answers are recomputed from the database rows themselves
// (metric data, budgets, financings, information reports), not from another tool's answer.
import type { Knex } from 'knex';
import { standardCategoryId } from '../core/categories.ts';

export type Json = Record<string, unknown>;
export type Call = (name: string, args: Json) => Promise<Json>;

export interface Question {
  question: string;
  /** The calls an assistant makes, each from what the earlier ones answered. */
  ask(call: Call): Promise<void>;
  /** What the answer must contain, recomputed from the database rows: figures (within a cent or 0.01 %) and names. */
  expect(): Promise<{ figures: number[]; names: string[] }>;
}

const rows = (answer: Json) => answer.results as Json[];
const round2 = (x: number) => Math.round(x * 100) / 100;

/** `YYYY-MM` of a date, and months as numbers (year × 12 + month index). */
const monthOf = (date: string) => Number(date.slice(0, 4)) * 12 + Number(date.slice(5, 7)) - 1;

interface Datum {
  company_id: string;
  date: string;
  value: string;
  cadence: string;
  archived: boolean | number;
  budget_id: string | null;
}

/** The live actual (or budget) rows of one category, one per month and cadence: a current row over an archived one. */
async function monthly(db: Knex, category: string, companyId?: string, budgets = false): Promise<Datum[]> {
  const q = db('metric_data')
    .where('category_id', standardCategoryId(category))
    .whereNull('deleted_at')
    .orderBy([{ column: 'date' }, { column: 'id' }])
    .select('company_id', 'date', 'value', 'cadence', 'archived', 'budget_id');
  if (companyId) q.where('company_id', companyId);
  if (budgets) q.whereNotNull('budget_id');
  else q.whereNull('budget_id');
  const out = new Map<string, Datum>();
  for (const r of (await q) as Datum[]) {
    const key = `${r.company_id}|${r.budget_id}|${r.cadence}|${monthOf(r.date)}`;
    const held = out.get(key);
    if (!held || (held.archived && !r.archived) || Boolean(held.archived) === Boolean(r.archived))
      out.set(key, r);
  }
  return [...out.values()];
}

const byMonth = (data: Datum[], cadence = 'month') =>
  new Map(data.filter((d) => d.cadence === cadence).map((d) => [monthOf(d.date), Number(d.value)]));

async function companyNamed(db: Knex, name: string): Promise<{ id: string; fiscal_year_end: string }> {
  return db('companies').where('name', name).first('id', 'fiscal_year_end');
}

/** Sums of the whole 3-month periods starting `start` mod 3 inside [from, to], from monthly rows. */
function quarterSums(values: Map<number, number>, from: number, to: number, start: number): number[] {
  const sums: number[] = [];
  for (let m = from; m + 2 <= to; m++) {
    if ((((m - start) % 3) + 3) % 3 !== 0) continue;
    const months = [m, m + 1, m + 2].map((k) => values.get(k));
    if (months.every((v) => v !== undefined)) sums.push(round2(months.reduce((a, b) => a! + b!, 0)!));
  }
  return sums;
}

async function latestMonth(db: Knex, companyId: string): Promise<number> {
  const row = await db('metric_data')
    .where('company_id', companyId)
    .whereNull('budget_id')
    .whereNull('deleted_at')
    .max('date as date')
    .first();
  return monthOf(String(row!.date));
}

export function rowQuestions(all: Knex, firmId: string, today: string): Question[] {
  // Every table read here has firm_id: the demo firm's rows only.
  const db = ((table: string) => all(table).where(`${table}.firm_id`, firmId)) as unknown as Knex;
  return [...periodQuestions(db), ...listQuestions(db, today)];
}

/** Questions of periods: fiscal and calendar quarters, budgets and their cadence. */
function periodQuestions(db: Knex): Question[] {
  return [
    {
      question: "Nimbus DB's revenue per fiscal quarter (its year ends 31 January) over the last 12 months",
      ask: async (call) => {
        const found = await call('search_companies', { name_contains: 'Nimbus' });
        await call('get_company_performance', {
          company_id: String(rows(found)[0]!.id),
          period: 'quarter',
          fiscal: true,
          categories: ['revenue'],
        });
      },
      expect: async () => {
        const nimbus = await companyNamed(db, 'Nimbus DB');
        const end = await latestMonth(db, nimbus.id);
        const start = Number(nimbus.fiscal_year_end.slice(0, 2)) % 12;
        const revenue = byMonth(await monthly(db, 'revenue', nimbus.id));
        return { figures: quarterSums(revenue, end - 11, end, start), names: ['fiscal (year ends 31 Jan)'] };
      },
    },
    {
      question: "Atlas Ledger's quarterly revenue and ARR over the last 12 months",
      ask: async (call) => {
        const found = await call('search_companies', { name_contains: 'Atlas' });
        await call('get_company_performance', {
          company_id: String(rows(found)[0]!.id),
          period: 'quarter',
          categories: ['revenue', 'arr'],
        });
      },
      expect: async () => {
        const atlas = await companyNamed(db, 'Atlas Ledger');
        const end = await latestMonth(db, atlas.id);
        const revenue = byMonth(await monthly(db, 'revenue', atlas.id));
        const arr = byMonth(await monthly(db, 'arr', atlas.id), 'point_in_time');
        // ARR at each calendar quarter's end inside the window.
        const ends = [...arr.keys()].filter((m) => m >= end - 11 && m <= end && m % 3 === 2);
        return {
          figures: [...quarterSums(revenue, end - 11, end, 0), ...ends.map((m) => arr.get(m)!)],
          names: ['calendar'],
        };
      },
    },
    {
      question: "The largest revenue miss against budget in each company's own latest budgeted period",
      ask: async (call) => {
        await call('get_budget_variance', { category: 'revenue', period: 'budget', per_page: 1 });
      },
      expect: async () => largestMiss(db),
    },
    {
      question: 'What cadence the budgets are in, and how many budgets there are',
      ask: async (call) => {
        await call('list_budgets', { per_page: 20 });
      },
      expect: async () => {
        const count = Number((await db('budgets').count('id as n').first())!.n);
        const cadences = (await db('metric_data')
          .whereNotNull('budget_id')
          .whereNull('deleted_at')
          .distinct('cadence')) as { cadence: string }[];
        const words: Record<string, string> = { month: 'monthly', quarter: 'quarterly', year: 'annual' };
        return {
          figures: [count],
          names: cadences.filter((c) => words[c.cadence]).map((c) => words[c.cadence]!),
        };
      },
    },
  ];
}

/** Questions of lists and totals: who reported last when, rounds, open reports, runway. */
function listQuestions(db: Knex, today: string): Question[] {
  return [
    {
      question: 'Which companies have reported nothing since before August 2026',
      ask: async (call) => {
        await call('screen_companies', {
          last_reported_month: '<2026-08',
          columns: ['cash_in_bank'],
          per_page: 100,
        });
      },
      expect: async () => {
        const last = (await db('metric_data')
          .whereNull('budget_id')
          .whereNull('deleted_at')
          .where('date', '<=', today)
          .groupBy('company_id')
          .select('company_id')
          .max('date as date')) as { company_id: string; date: string }[];
        const before = new Set(last.filter((r) => r.date < '2026-08-01').map((r) => r.company_id));
        const names = (await db('companies').select('id', 'name')).filter((c) => before.has(c.id));
        return { figures: [], names: names.map((c) => String(c.name)) };
      },
    },
    {
      question:
        'How many financing rounds the portfolio companies have closed, and how much they raised in total',
      ask: async (call) => {
        await call('get_financing_events', { per_page: 1 });
      },
      expect: async () => {
        const rounds = (await db('financings').select('round_size_converted_value')) as {
          round_size_converted_value: string | null;
        }[];
        const total = rounds.reduce((n, r) => n + Number(r.round_size_converted_value ?? 0), 0);
        return { figures: [rounds.length, round2(total)], names: [] };
      },
    },
    {
      question: 'Which companies have not answered the current information request',
      ask: async (call) => {
        // The current request: of those sent, the one due last by today.
        const sent = rows(await call('list_information_requests', { status: 'sent' }));
        const due = sent
          .filter((r) => String(r.due_date) <= today)
          .sort((a, b) => (a.due_date! > b.due_date! ? -1 : 1));
        await call('list_information_reports', { information_request_id: due[0]!.id, submitted: false });
      },
      expect: async () => {
        const request = await db('information_requests')
          .where('due_date', '<=', today)
          .orderBy([
            { column: 'due_date', order: 'desc' },
            { column: 'id', order: 'desc' },
          ])
          .first('id');
        const open = (await db('information_reports')
          .join('companies', 'companies.id', 'information_reports.company_id')
          .where('information_request_id', request.id)
          .whereNull('submitted_at')
          .select('companies.name')) as { name: string }[];
        return { figures: [], names: open.map((r) => r.name) };
      },
    },
    runwayQuestion(db),
  ];
}

/** Runway and TTM revenue of one company, from its monthly rows. */
function runwayQuestion(db: Knex): Question {
  return {
    question: "Atlas Ledger's runway and trailing twelve months' revenue",
    ask: async (call) => {
      const found = await call('search_companies', { name_contains: 'Atlas' });
      await call('get_company_financial_summary', { company_id: String(rows(found)[0]!.id) });
    },
    expect: async () => {
      const atlas = await companyNamed(db, 'Atlas Ledger');
      const end = await latestMonth(db, atlas.id);
      const revenue = byMonth(await monthly(db, 'revenue', atlas.id));
      const burn = byMonth(await monthly(db, 'net_burn', atlas.id));
      const cash = byMonth(await monthly(db, 'cash_in_bank', atlas.id), 'point_in_time');
      const sum = (m: Map<number, number>, n: number) =>
        Array.from({ length: n }, (_, i) => m.get(end - i)!).reduce((a, b) => a + b, 0);
      const runway = cash.get(end)! / (sum(burn, 3) / 3);
      return { figures: [round2(runway), round2(sum(revenue, 12))], names: [] };
    },
  };
}

/** Per company: the latest month with a monthly revenue budget figure and an actual; the most negative variance %. */
async function largestMiss(db: Knex): Promise<{ figures: number[]; names: string[] }> {
  const budgets = new Map(
    ((await db('budgets').select('id', 'date', 'created_at')) as Json[]).map((b) => [String(b.id), b]),
  );
  const rank = (a: string, b: string) => {
    const x = budgets.get(a)!;
    const y = budgets.get(b)!;
    return (
      String(y.date).localeCompare(String(x.date)) ||
      String(y.created_at).localeCompare(String(x.created_at)) ||
      b.localeCompare(a)
    );
  };
  const plans = (await monthly(db, 'revenue', undefined, true)).filter(
    (p) => !p.archived && p.cadence === 'month',
  );
  const actuals = (await monthly(db, 'revenue')).filter((a) => !a.archived && a.cadence === 'month');
  const actual = new Map(actuals.map((a) => [`${a.company_id}|${monthOf(a.date)}`, Number(a.value)]));
  let worst: { pct: number; variance: number; company: string } | null = null;
  for (const company of new Set(plans.map((p) => p.company_id))) {
    const mine = plans.filter((p) => p.company_id === company && actual.has(`${company}|${monthOf(p.date)}`));
    const last = Math.max(...mine.map((p) => monthOf(p.date)));
    const inMonth = mine
      .filter((p) => monthOf(p.date) === last)
      .sort((a, b) => rank(a.budget_id!, b.budget_id!));
    if (inMonth.length === 0) continue;
    const plan = Number(inMonth[0]!.value);
    const variance = actual.get(`${company}|${last}`)! - plan;
    const pct = (variance / Math.abs(plan)) * 100;
    if (!worst || pct < worst.pct) worst = { pct, variance, company };
  }
  if (!worst) return { figures: [], names: [] };
  const name = (await db('companies').where('id', worst.company).first('name')).name as string;
  return { figures: [round2(worst.pct), round2(worst.variance)], names: [name] };
}
