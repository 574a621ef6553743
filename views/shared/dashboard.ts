// One company's dashboard from a get_company_performance result: KPI cards, trend lines with the budget
// overlaid, runway, and a month/quarter/year switch that asks the host to call the tool again.
import { compact, h, message, num, percent } from './format.ts';
import type { ViewHost } from './host.ts';
import { chart } from './svg.ts';

export type Period = 'month' | 'quarter' | 'year';

interface FigureValue {
  value: string | null;
  reason?: string | null;
}
interface Series {
  category: string;
  unit: string;
  currency: string | null;
  cadence: string | null;
  points: { month: string; value: string | null }[];
  /** Present since get_company_performance took `period`; empty for period month. */
  periods?: {
    period: string;
    value: string | null;
    complete: boolean;
    growth: string | null;
    yoy: string | null;
  }[];
  latest: FigureValue & { period?: { from: string; to: string } | null };
  mom: FigureValue;
  yoy: FigureValue;
}
export interface Performance {
  company_id: string;
  company_name: string;
  months: number;
  window: { from: string; to: string } | null;
  currency: string | null;
  series: Record<string, Series>;
}
interface BudgetRow {
  category: string;
  kind: 'flow' | 'stock';
  cadence: string;
  period: string;
  date: string;
  budget: string;
}

const CHARTS = [
  ['revenue', 'Revenue'],
  ['arr', 'ARR'],
  ['cash_in_bank', 'Cash'],
  ['net_burn', 'Net burn'],
] as const;
const CARDS = [...CHARTS, ['headcount', 'Headcount'], ['gross_margin', 'Gross margin']] as const;

/** The period the result is in: quarter or year when it carries `periods`, else month. */
export function periodOf(perf: Performance, asked?: Period): Period {
  const rolled = Object.values(perf.series).some((s) => (s.periods?.length ?? 0) > 0);
  if (!rolled) return 'month';
  return asked && asked !== 'month' ? asked : 'quarter';
}

/** The x labels and values a series is drawn with in this period. */
function seriesPoints(s: Series, period: Period): { labels: string[]; values: (number | null)[] } {
  if (period !== 'month' && s.periods?.length) {
    // A period with months missing (the current quarter, say) would read as a fall: it is left as a gap.
    return {
      labels: s.periods.map((p) => p.period),
      values: s.periods.map((p) => (p.complete ? num(p.value) : null)),
    };
  }
  return { labels: s.points.map((p) => p.month), values: s.points.map((p) => num(p.value)) };
}

function periodLabel(month: string, period: Period): string {
  if (period === 'year') return month.slice(0, 4);
  if (period === 'quarter') return `${month.slice(0, 4)}-Q${Math.ceil(Number(month.slice(5, 7)) / 3)}`;
  return month;
}

/**
 * Budget values on the chart's labels: a row of the same period directly; monthly flow budgets summed
 * into a quarter or year only when every month of it is budgeted; a stock's budget at the period's end.
 */
export function budgetValues(rows: BudgetRow[], labels: string[], period: Period): (number | null)[] {
  const size = { month: 1, quarter: 3, year: 12 }[period];
  const byLabel = new Map<string, { sum: number; months: number }>();
  for (const r of rows) {
    const value = num(r.budget);
    if (value === null) continue;
    if (r.kind === 'stock') {
      const month = r.date.slice(0, 7);
      if (Number(month.slice(5, 7)) % size === 0 || period === 'month')
        byLabel.set(periodLabel(month, period), { sum: value, months: size });
      continue;
    }
    if (labels.includes(r.period)) {
      byLabel.set(r.period, { sum: value, months: size });
      continue;
    }
    if (r.cadence !== 'month' || period === 'month') continue;
    const label = periodLabel(r.period, period);
    const acc = byLabel.get(label) ?? { sum: 0, months: 0 };
    byLabel.set(label, { sum: acc.sum + value, months: acc.months + 1 });
  }
  return labels.map((l) => {
    const b = byLabel.get(l);
    return b && b.months === size ? b.sum : null;
  });
}

function growthOf(s: Series, period: Period): { text: string; value: number | null; label: string } {
  if (period !== 'month' && s.periods?.length) {
    const last = [...s.periods].reverse().find((p) => p.complete && p.value !== null);
    const g = num(last?.growth);
    return { text: percent(g), value: g, label: `vs previous ${period}` };
  }
  const g = num(s.mom.value);
  return { text: percent(g), value: g, label: 'MoM' };
}

function card(s: Series | undefined, title: string, period: Period, currency: string | null): HTMLElement {
  if (!s) return h('div', { class: 'card' }, h('div', { class: 'k' }, title), h('div', { class: 'v' }, '—'));
  const latest = num(s.latest.value);
  const value =
    s.unit === 'money'
      ? compact(latest, currency)
      : s.unit === 'percent'
        ? percent(latest).replace('+', '')
        : compact(latest);
  const g = growthOf(s, period);
  const yoy = num(s.yoy.value);
  return h(
    'div',
    { class: 'card', 'data-kpi': s.category, title: s.latest.reason ?? '' },
    h('div', { class: 'k' }, title),
    h('div', { class: 'v' }, value),
    h(
      'div',
      { class: 'g' },
      h('span', { class: g.value === null ? '' : g.value >= 0 ? 'up' : 'down' }, g.text),
      ` ${g.label}`,
      yoy === null ? '' : ` · YoY ${percent(yoy)}`,
    ),
  );
}

function legend(items: { name: string; color: string; dashed?: boolean }[]): HTMLElement {
  return h(
    'div',
    { class: 'legend' },
    ...items.map((i) =>
      h(
        'span',
        {},
        h('i', {
          class: i.dashed ? 'dashed' : '',
          style: i.dashed ? `color:${i.color}` : `background:${i.color}`,
        }),
        i.name,
      ),
    ),
  );
}

export interface DashboardState {
  perf: Performance;
  period: Period;
  budgets: Map<string, BudgetRow[]>;
  runway: FigureValue | null;
}

export function renderDashboard(state: DashboardState, onPeriod: (p: Period) => void): HTMLElement {
  const { perf, period } = state;
  const currency = perf.currency;
  const seg = h(
    'div',
    { class: 'seg', role: 'group', 'aria-label': 'Period' },
    ...(['month', 'quarter', 'year'] as const).map((p) =>
      h(
        'button',
        {
          type: 'button',
          'data-period': p,
          'aria-pressed': String(p === period),
          onclick: () => onPeriod(p),
        },
        p[0]!.toUpperCase() + p.slice(1),
      ),
    ),
  );
  const window = perf.window ? `${perf.window.from} to ${perf.window.to}` : 'no data';
  const runway = state.runway;
  const runwayCard = h(
    'div',
    { class: 'card', 'data-kpi': 'runway', title: runway?.reason ?? '' },
    h('div', { class: 'k' }, 'Runway'),
    h(
      'div',
      { class: 'v' },
      runway === null ? '…' : runway.value === null ? '—' : `${Number(runway.value).toFixed(1)} mo`,
    ),
    h('div', { class: 'g' }, runway?.value === null ? (runway.reason ?? '') : 'cash ÷ net burn'),
  );
  const charts = CHARTS.map(([category, title]) => {
    const s = perf.series[category];
    if (!s) return null;
    const { labels, values } = seriesPoints(s, period);
    const budget = budgetValues(state.budgets.get(category) ?? [], labels, period);
    const hasBudget = budget.some((v) => v !== null);
    const series = [{ name: title, values, color: 'var(--c1)' }];
    if (hasBudget) series.push({ name: 'Budget', values: budget, color: 'var(--c2)', dashed: true } as never);
    const body = values.some((v) => v !== null)
      ? chart({ labels, series, format: (v) => compact(v) })
      : message(s.latest.reason ?? 'no data in the window');
    return h(
      'section',
      { class: 'panel', 'data-chart': category },
      h('h2', {}, `${title}${s.currency ? ` (${s.currency})` : ''}`),
      legend(
        hasBudget
          ? [
              { name: 'Actual', color: 'var(--c1)' },
              { name: 'Budget', color: 'var(--c2)', dashed: true },
            ]
          : [{ name: 'Actual', color: 'var(--c1)' }],
      ),
      body,
    );
  });
  return h(
    'div',
    { class: 'dashboard', 'data-company': perf.company_id, 'data-period': period },
    h(
      'div',
      { class: 'row' },
      h('div', {}, h('h1', {}, perf.company_name), h('p', { class: 'sub' }, `${window} · ${currency ?? ''}`)),
      seg,
    ),
    h(
      'div',
      { class: 'cards' },
      ...CARDS.map(([c, t]) => card(perf.series[c], t, period, currency)),
      runwayCard,
    ),
    h('div', { class: 'grid2' }, ...charts),
  );
}

/** Budget rows of the charted categories over the window; empty when the company has no budget. */
export async function loadBudgets(host: ViewHost, perf: Performance): Promise<Map<string, BudgetRow[]>> {
  const out = new Map<string, BudgetRow[]>();
  if (!perf.window) return out;
  // From January: a quarter or year at the window's start may begin before it.
  const from = `${perf.window.from.slice(0, 4)}-01-01`;
  await Promise.all(
    CHARTS.map(async ([category]) => {
      try {
        const page = await host.call<{ results: BudgetRow[] }>('get_budget_variance', {
          company_id: perf.company_id,
          category,
          from_date: from,
          per_page: 100,
        });
        out.set(category, page.results);
      } catch {
        // No budget (a not-found result): the chart shows actuals only.
      }
    }),
  );
  return out;
}

export async function loadRunway(host: ViewHost, companyId: string): Promise<FigureValue> {
  try {
    const summary = await host.call<{ runway_months?: FigureValue }>('get_company_financial_summary', {
      company_id: companyId,
    });
    return summary.runway_months ?? { value: null, reason: 'not reported' };
  } catch (err) {
    return { value: null, reason: (err as Error).message };
  }
}

/**
 * Shows a company in `root` and keeps it current: the period switch calls get_company_performance again
 * through the host and redraws.
 */
export class Dashboard {
  private state: DashboardState | null = null;
  private months = 12;

  constructor(
    private readonly root: HTMLElement,
    private readonly host: ViewHost,
  ) {}

  async show(perf: Performance, asked?: Period): Promise<void> {
    this.months = perf.months;
    this.state = { perf, period: periodOf(perf, asked), budgets: new Map(), runway: null };
    this.draw();
    const [budgets, runway] = await Promise.all([
      loadBudgets(this.host, perf),
      loadRunway(this.host, perf.company_id),
    ]);
    if (this.state.perf !== perf) return;
    this.state = { ...this.state, budgets, runway };
    this.draw();
  }

  async open(companyId: string, period: Period = 'month', months = this.months): Promise<void> {
    this.root.classList.add('busy');
    try {
      const perf = await this.host.call<Performance>('get_company_performance', {
        company_id: companyId,
        months,
        ...(period === 'month' ? {} : { period }),
      });
      this.root.classList.remove('busy');
      await this.show(perf, period);
    } catch (err) {
      this.root.classList.remove('busy');
      this.root.replaceChildren(message((err as Error).message, 'error'));
    }
  }

  private draw(): void {
    if (!this.state) return;
    const { perf } = this.state;
    this.root.replaceChildren(
      renderDashboard(this.state, (p) => {
        if (p !== this.state?.period) void this.open(perf.company_id, p);
      }),
    );
  }
}
