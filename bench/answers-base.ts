// The first twelve questions of `npm run bench:answers`, each checked against figures and names recomputed
// from the database rows (answers-data.ts, answers-returns.ts), never from another tool's answer.
import type { Knex } from 'knex';
import { standardCategoryId } from '../core/categories.ts';
import * as D from '../core/decimal.ts';
import { largestQuarterMiss } from './answers-budgets.ts';
import {
  companyFigures,
  type Figures,
  firmTables,
  loadRates,
  median,
  type Rates,
  type Table,
} from './answers-data.ts';
import { capToFirm, columnsMoney, ownershipOf, positionsAt, returnsOf } from './answers-returns.ts';
import type { Json, Question } from './answers-rows.ts';

const rows = (answer: Json) => answer.results as Json[];
const num = (v: string | null) => (v === null ? Number.NaN : Number(v));
const active = (f: Figures) => f.company.status.toLowerCase() === 'active';
/** Larger first by a decimal figure (nulls left out), then by name. */
const ranked = (list: Figures[], figure: (f: Figures) => string | null, descending: boolean) =>
  list
    .filter((f) => figure(f) !== null)
    .sort(
      (a, b) =>
        (descending ? -1 : 1) * D.compareDecimal(figure(a)!, figure(b)!) ||
        a.company.name.localeCompare(b.company.name),
    );

/** Memoised: the rows are read once for every question that needs them. */
function once<T>(load: () => Promise<T>): () => Promise<T> {
  let held: Promise<T> | undefined;
  return () => (held ??= load());
}

export function baseQuestions(db: Knex, firmId: string, today: string): Question[] {
  const t = firmTables(db, firmId);
  const rates = once(() => loadRates(db, firmId));
  const figures = once(async () => companyFigures(t, await rates(), today));
  const atlas = once(
    async () =>
      (await t('companies').where('name', 'like', '%Atlas%').orderBy('name').first('id')) as { id: string },
  );
  return [
    ...screenQuestions(figures),
    {
      question: 'The company with the largest revenue miss against budget in its latest budgeted quarter',
      ask: async (call) => {
        await call('get_budget_variance', { category: 'revenue', period: 'quarter', per_page: 1 });
      },
      expect: async () => largestQuarterMiss(t, today),
    },
    {
      question: 'Every round of the company with the largest post-money valuation, with lead investors',
      ask: async (call) => {
        const top = await call('get_financing_events', { sort_by: '-post_money_valuation', per_page: 1 });
        const id = (rows(top)[0] ?? (top.same_in_every_result as Json)).company_id as string;
        await call('get_financing_events', { company_ids: [id] });
      },
      expect: async () => largestRoundCompany(t, await rates()),
    },
    ...returnQuestions(db, firmId, today, rates),
    {
      question: 'Which active companies were late with the latest information report',
      ask: async (call) => {
        await call('get_portfolio_overview', {});
      },
      expect: async () => lateOnLatestRequest(t, today),
    },
    ...companyQuestions(t, atlas, rates),
  ];
}

/** Questions answered by screen_companies, checked against each company's figures from its rows. */
function screenQuestions(figures: () => Promise<Figures[]>): Question[] {
  return [
    {
      question:
        'The three active companies with the fastest ARR growth YoY, and their latest ARR (firm currency)',
      ask: async (call) => {
        await call('screen_companies', {
          status: 'active',
          columns: ['arr', 'arr_growth_yoy'],
          sort_by: '-arr_growth_yoy',
          per_page: 3,
        });
      },
      expect: async () => {
        const top = ranked((await figures()).filter(active), (f) => f.arrGrowthYoy, true).slice(0, 3);
        return {
          figures: top.flatMap((f) => [num(f.arr), num(f.arrGrowthYoy)]),
          names: top.map((f) => f.company.name),
        };
      },
    },
    {
      question: "Total ARR per sector in the firm's currency",
      ask: async (call) => {
        await call('screen_companies', { group_by: 'sector', columns: ['arr'] });
      },
      expect: async () => {
        // A stale company's old figure is left out of its sector's total.
        const sums = new Map<string, D.Decimal>();
        for (const f of await figures())
          if (f.arr !== null && !f.stale)
            sums.set(f.company.sector, D.add(sums.get(f.company.sector) ?? D.ZERO, D.readDecimal(f.arr)!));
        return { figures: [...sums.values()].map((s) => Number(D.toText(s))), names: [...sums.keys()] };
      },
    },
    {
      question: 'Median runway of the active companies, and how many have under 12 months',
      ask: async (call) => {
        await call('screen_companies', { status: 'active', group_by: 'status', columns: ['runway_months'] });
        await call('screen_companies', {
          status: 'active',
          columns: ['runway_months'],
          filters: [{ figure: 'runway_months', op: 'lt', value: 12 }],
        });
      },
      expect: async () => {
        const known = (await figures()).filter((f) => active(f) && f.runway !== null);
        // The median is over the fresh companies (a group's statistics leave stale ones out); the count over all.
        const fresh = known.filter((f) => !f.stale).map((f) => num(f.runway));
        return {
          figures: [median(fresh), known.filter((f) => num(f.runway) < 12).length],
          names: [],
        };
      },
    },
    {
      question: 'Cash and runway of the five active companies with the shortest runway',
      ask: async (call) => {
        await call('screen_companies', {
          status: 'active',
          columns: ['cash_in_bank', 'runway_months'],
          sort_by: 'runway_months',
          per_page: 5,
        });
      },
      expect: async () => {
        const top = ranked((await figures()).filter(active), (f) => f.runway, false).slice(0, 5);
        return {
          figures: top.flatMap((f) => [num(f.cash), num(f.runway)]),
          names: top.map((f) => f.company.name),
        };
      },
    },
  ];
}

/** Questions of the funds' returns, checked against the positions recomputed from the cap table. */
function returnQuestions(db: Knex, firmId: string, today: string, rates: () => Promise<Rates>): Question[] {
  const positions = once(async () => positionsAt(db, firmId, await rates(), today));
  return [
    {
      question: 'Ownership and MOIC in the three largest holdings by fair value',
      ask: async (call) => {
        await call('get_investment_metrics', { sort_by: '-fair_value', limit: 3 });
      },
      expect: async () => {
        const byCompany = new Map<string, Awaited<ReturnType<typeof positions>>>();
        for (const p of await positions())
          byCompany.set(p.companyId, [...(byCompany.get(p.companyId) ?? []), p]);
        const top = [...byCompany.values()]
          .map((list) => ({ list, ...returnsOf(list) }))
          .sort((a, b) => D.compareDecimal(b.fair, a.fair))
          .slice(0, 3);
        const figures: number[] = [];
        for (const h of top)
          figures.push(
            (await ownershipOf(db, firmId, h.list, today)) ?? Number.NaN,
            num(h.multiple),
            num(h.fair),
          );
        return { figures, names: top.map((h) => h.list[0]!.companyName) };
      },
    },
    {
      question: "A fund's TVPI and DPI",
      ask: async (call) => {
        await call('get_fund_performance', { per_page: 3 });
      },
      expect: async () => {
        const funds = (await firmTables(db, firmId)('funds').orderBy('name').select('id', 'name')) as {
          id: string;
          name: string;
        }[];
        const all = await positions();
        const returns = funds.map((f) => returnsOf(all.filter((p) => p.fundId === f.id)));
        return {
          figures: returns.flatMap((r) => [num(r.multiple), num(r.dpi)]),
          names: funds.map((f) => f.name),
        };
      },
    },
  ];
}

/** Questions about one company (the first whose name holds "Atlas"), checked against its rows. */
function companyQuestions(
  t: Table,
  atlas: () => Promise<{ id: string }>,
  rates: () => Promise<Rates>,
): Question[] {
  const found = async (call: (name: string, args: Json) => Promise<Json>) =>
    String(rows(await call('search_companies', { name_contains: 'Atlas' }))[0]!.id);
  return [
    {
      question: "One company's ARR month by month over the last two years",
      ask: async (call) => {
        await call('get_company_metrics', {
          company_ids: [await found(call)],
          category: 'arr',
          from_date: '2024-11-01',
        });
      },
      expect: async () => {
        const fx = await rates();
        const data = (await t('metric_data')
          .where({ company_id: (await atlas()).id, category_id: standardCategoryId('arr') })
          .whereNull('budget_id')
          .whereNull('deleted_at')
          .where('date', '>=', '2024-11-01')
          .select('value', 'currency', 'date')) as { value: string; currency: string; date: string }[];
        return {
          figures: data.flatMap((d) => {
            const rate = fx.rateOn(d.currency, d.date);
            return [
              num(d.value),
              num(rate === null ? null : rate === '1' ? d.value : D.convertDecimal(d.value, rate)),
            ];
          }),
          names: [],
        };
      },
    },
    {
      question: 'The latest notes on one company',
      ask: async (call) => {
        await call('list_notes', { company_id: await found(call), sort_by: '-created_at', per_page: 5 });
      },
      expect: async () => {
        const notes = (await t('notes')
          .where('company_id', (await atlas()).id)
          .orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id' }])
          .limit(5)
          .select('note')) as { note: string }[];
        return { figures: [], names: notes.map((n) => n.note.slice(0, 40)) };
      },
    },
    {
      question: 'The documents one company has sent',
      ask: async (call) => {
        await call('list_documents', { company_id: await found(call) });
      },
      expect: async () => {
        const documents = (await t('documents')
          .where('company_id', (await atlas()).id)
          .select('id', 'name')) as { id: string; name: string }[];
        return { figures: [], names: documents.flatMap((d) => [d.id, d.name]) };
      },
    },
  ];
}

/** The company whose round has the largest post-money valuation in the firm's currency: its rounds and leads. */
async function largestRoundCompany(t: Table, rates: Rates): Promise<{ figures: number[]; names: string[] }> {
  const rounds = (await t('financings')
    .join('companies', 'companies.id', 'financings.company_id')
    .select('financings.*', 'companies.name as company_name')) as Json[];
  const reported = new Map(
    ((await t('post_money_valuation_overrides').orderBy('created_at').select('*')) as Json[]).map((o) => [
      `${o.company_id}|${o.date}`,
      columnsMoney(o, 'post_money'),
    ]),
  );
  const postMoney = (r: Json) => {
    const given = reported.get(`${r.company_id}|${r.closing_date}`);
    if (given) return capToFirm(rates, given, String(r.closing_date));
    const [pre, size] = [columnsMoney(r, 'pre_money'), columnsMoney(r, 'round_size')];
    if (pre.value === null || size.value === null || pre.currency !== size.currency) return null;
    // Pre-money plus the round, at their rate when they share one.
    const rate = pre.fx_rate === size.fx_rate ? pre.fx_rate : null;
    const sum = D.toText(D.add(D.readDecimal(pre.value)!, D.readDecimal(size.value)!));
    const money = {
      value: sum,
      currency: pre.currency,
      fx_rate: rate,
      is_custom_rate: rate ? pre.is_custom_rate : null,
    };
    return capToFirm(rates, money, String(r.closing_date));
  };
  const valued = rounds.map((r) => ({ r, post: postMoney(r) })).filter((x) => x.post !== null);
  const top = valued.sort((a, b) => D.compareDecimal(b.post!, a.post!))[0]!;
  const own = rounds.filter((r) => r.company_id === top.r.company_id);
  const leads = (await t('financings')
    .join('financing_co_investors', 'financing_co_investors.financing_id', 'financings.id')
    .where('financings.company_id', String(top.r.company_id))
    .select('financing_co_investors.name', 'financing_co_investors.is_lead')) as {
    name: string;
    is_lead: unknown;
  }[];
  return {
    figures: [num(top.post)],
    names: [
      String(top.r.company_name),
      ...own.map((r) => String(r.name)),
      ...leads.filter((l) => l.is_lead).map((l) => l.name),
    ],
  };
}

/** Active companies late on the request due last by today that was sent: submitted after it, or not yet. */
async function lateOnLatestRequest(t: Table, today: string): Promise<{ figures: number[]; names: string[] }> {
  const request = (await t('information_requests')
    .whereNot('status', 'draft')
    .where('due_date', '<=', today)
    .orderBy([
      { column: 'due_date', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])
    .first('id', 'due_date')) as { id: string; due_date: string };
  const reports = (await t('information_reports')
    .join('companies', 'companies.id', 'information_reports.company_id')
    .where('information_reports.information_request_id', request.id)
    .whereRaw('lower(companies.status) = ?', ['active'])
    .select('companies.name', 'information_reports.submitted_at')) as {
    name: string;
    submitted_at: string | null;
  }[];
  return {
    figures: [],
    names: reports
      .filter((r) => (r.submitted_at === null ? today : r.submitted_at.slice(0, 10)) > request.due_date)
      .map((r) => r.name),
  };
}
