// The fund performance view, shown with get_fund_performance: KPI cards, TVPI/DPI/RVPI over time, NAV by
// company and the cash-flow J-curve. Flows and earlier dates are asked of the same tool through the host.
import { compact, h, message, multiple, num, percent } from './shared/format.ts';
import { eachLimited, errorText, startView, type ViewHost } from './shared/host.ts';
import { chart, hbars } from './shared/svg.ts';

interface CashFlow {
  date: string;
  kind: 'investment' | 'proceeds' | 'fair_value';
  amount: string;
}
interface Fund {
  fund_id: string;
  fund_name: string;
  as_of_date: string;
  currency: string;
  paid_in_capital: string;
  realized_value: string;
  fair_value: string;
  tvpi: string | null;
  dpi: string | null;
  rvpi: string | null;
  gross_irr: number | null;
  irr_note: string | null;
  cash_flows?: CashFlow[];
  companies: {
    count: number;
    has_more: boolean;
    results: { company_id: string; company_name: string; fair_value: string; moic: string | null }[];
  };
}
interface FundPerformance {
  as_of_date: string;
  funds: Fund[];
}

/** At most this many dates on the ratio chart besides the as-of date. */
const MAX_DATES = 12;

const root = document.getElementById('app')!;
let host: ViewHost;
let result: FundPerformance | null = null;
let selected = 0;
/** Per fund: its flows, and its ratios at each date of the chart. */
const flows = new Map<string, CashFlow[]>();
const history = new Map<
  string,
  { date: string; tvpi: number | null; dpi: number | null; rvpi: number | null }[]
>();

/** Year ends (quarter ends over a span of three years or less) after the first flow, then the as-of date. */
export function sampleDates(first: string, asOf: string): string[] {
  const years = Number(asOf.slice(0, 4)) - Number(first.slice(0, 4));
  const ends = years <= 3 ? ['03-31', '06-30', '09-30', '12-31'] : ['12-31'];
  const dates: string[] = [];
  for (let y = Number(first.slice(0, 4)); y <= Number(asOf.slice(0, 4)); y++)
    for (const e of ends) {
      const d = `${y}-${e}`;
      if (d >= first && d < asOf) dates.push(d);
    }
  return [...dates.slice(-MAX_DATES), asOf];
}

function periodOf(date: string, byQuarter: boolean): string {
  return byQuarter ? `${date.slice(0, 4)}-Q${Math.ceil(Number(date.slice(5, 7)) / 3)}` : date.slice(0, 4);
}

/** Net cash flow per year (or quarter) and its running total: the J-curve. Fair value is no cash flow. */
export function jCurve(cashFlows: CashFlow[], asOf: string) {
  const real = cashFlows.filter((f) => f.kind !== 'fair_value').sort((a, b) => a.date.localeCompare(b.date));
  if (real.length === 0) return { labels: [], net: [], cumulative: [] };
  const byQuarter = Number(asOf.slice(0, 4)) - Number(real[0]!.date.slice(0, 4)) <= 3;
  const labels: string[] = [];
  const net = new Map<string, number>();
  for (const f of real) {
    const p = periodOf(f.date, byQuarter);
    net.set(p, (net.get(p) ?? 0) + Number(f.amount));
  }
  // Every period from the first flow to the as-of date, empty ones included.
  for (let d = real[0]!.date; ; ) {
    const p = periodOf(d, byQuarter);
    if (labels.at(-1) !== p) labels.push(p);
    if (p === periodOf(asOf, byQuarter)) break;
    const [y, m] = [Number(d.slice(0, 4)), Number(d.slice(5, 7))];
    const next = byQuarter ? new Date(Date.UTC(y, m - 1 + 3, 1)) : new Date(Date.UTC(y + 1, 0, 1));
    d = next.toISOString().slice(0, 10);
  }
  let running = 0;
  const values = labels.map((l) => net.get(l) ?? 0);
  const cumulative = values.map((v) => (running += v));
  return { labels, net: values, cumulative };
}

function cards(f: Fund): HTMLElement {
  const card = (k: string, v: string, key: string, title = '') =>
    h(
      'div',
      { class: 'card', 'data-kpi': key, title },
      h('div', { class: 'k' }, k),
      h('div', { class: 'v' }, v),
    );
  return h(
    'div',
    { class: 'cards' },
    card('TVPI', multiple(num(f.tvpi)), 'tvpi'),
    card('DPI', multiple(num(f.dpi)), 'dpi'),
    card('RVPI', multiple(num(f.rvpi)), 'rvpi'),
    card('Gross IRR', f.gross_irr === null ? '—' : percent(f.gross_irr * 100), 'irr', f.irr_note ?? ''),
    card('Paid in', compact(num(f.paid_in_capital), f.currency), 'paid_in'),
    card('NAV', compact(num(f.fair_value), f.currency), 'nav'),
  );
}

function ratiosPanel(f: Fund): HTMLElement {
  const points = history.get(f.fund_id);
  const body = !points
    ? message('Loading earlier dates…')
    : chart({
        labels: points.map((p) => p.date),
        series: [
          { name: 'TVPI', values: points.map((p) => p.tvpi), color: 'var(--c1)' },
          { name: 'DPI', values: points.map((p) => p.dpi), color: 'var(--c3)' },
          { name: 'RVPI', values: points.map((p) => p.rvpi), color: 'var(--c2)' },
        ],
        format: (v) => `${v}×`,
      });
  return h(
    'section',
    { class: 'panel', 'data-chart': 'ratios' },
    h('h2', {}, 'TVPI, DPI and RVPI over time'),
    h(
      'div',
      { class: 'legend' },
      ...[
        ['TVPI', 'var(--c1)'],
        ['DPI', 'var(--c3)'],
        ['RVPI', 'var(--c2)'],
      ].map(([n, c]) => h('span', {}, h('i', { style: `background:${c}` }), n!)),
    ),
    body,
  );
}

function navPanel(f: Fund): HTMLElement {
  const held = f.companies.results.filter((c) => (num(c.fair_value) ?? 0) > 0);
  const shown = held.slice(0, 15);
  const note =
    f.companies.count > shown.length
      ? h('p', { class: 'note' }, `The ${shown.length} largest of ${f.companies.count} companies.`)
      : null;
  return h(
    'section',
    { class: 'panel', 'data-chart': 'nav' },
    h('h2', {}, `NAV by company (${f.currency})`),
    shown.length
      ? hbars(
          shown.map((c) => ({ label: c.company_name, value: num(c.fair_value) ?? 0 })),
          (v) => compact(v),
        )
      : message('The fund holds nothing at this date.'),
    note,
  );
}

function jCurvePanel(f: Fund): HTMLElement {
  const list = flows.get(f.fund_id);
  let body: Node;
  if (!list) body = message('Loading cash flows…');
  else {
    const j = jCurve(list, f.as_of_date);
    body = j.labels.length
      ? chart({
          labels: j.labels,
          series: [
            { name: 'Net cash flow', values: j.net, color: 'var(--c2)', bars: true },
            { name: 'Cumulative', values: j.cumulative, color: 'var(--c1)' },
          ],
          format: (v) => compact(v),
        })
      : message('No cash flows yet.');
  }
  return h(
    'section',
    { class: 'panel', 'data-chart': 'jcurve' },
    h('h2', {}, `Cash-flow J-curve (${f.currency})`),
    h(
      'div',
      { class: 'legend' },
      h('span', {}, h('i', { style: 'background:var(--c2)' }), 'Net cash flow'),
      h('span', {}, h('i', { style: 'background:var(--c1)' }), 'Cumulative'),
    ),
    body,
  );
}

function draw(): void {
  if (!result) return;
  const f = result.funds[selected];
  if (!f) {
    root.replaceChildren(message('No fund to show.'));
    return;
  }
  const picker =
    result.funds.length > 1
      ? h(
          'div',
          { class: 'seg', role: 'group', 'aria-label': 'Fund' },
          ...result.funds.map((fund, i) =>
            h(
              'button',
              { type: 'button', 'aria-pressed': String(i === selected), onclick: () => select(i) },
              fund.fund_name,
            ),
          ),
        )
      : null;
  root.replaceChildren(
    h(
      'div',
      { class: 'fund', 'data-fund': f.fund_id },
      h(
        'div',
        { class: 'row' },
        h(
          'div',
          {},
          h('h1', {}, f.fund_name),
          h('p', { class: 'sub' }, `as of ${f.as_of_date} · gross · ${f.currency}`),
        ),
        picker,
      ),
      cards(f),
      h('div', { class: 'grid2' }, ratiosPanel(f), jCurvePanel(f)),
      navPanel(f),
    ),
  );
}

function select(i: number): void {
  selected = i;
  draw();
  void load(result!.funds[i]!);
}

/** The fund's flows (include_cash_flows) and its ratios at earlier dates, each asked of the tool through the host. */
async function load(f: Fund): Promise<void> {
  const base = { fund_id: f.fund_id, per_page: 1 };
  if (!flows.has(f.fund_id)) {
    if (f.cash_flows) flows.set(f.fund_id, f.cash_flows);
    else {
      try {
        const r = await host.call<FundPerformance>('get_fund_performance', {
          ...base,
          as_of_date: f.as_of_date,
          include_cash_flows: true,
        });
        flows.set(f.fund_id, r.funds[0]?.cash_flows ?? []);
      } catch (err) {
        root.append(message((err as Error).message, 'error'));
        return;
      }
    }
    draw();
  }
  if (history.has(f.fund_id)) return;
  const list = flows.get(f.fund_id)!;
  const first = list
    .filter((c) => c.kind !== 'fair_value')
    .map((c) => c.date)
    .sort()[0];
  const dates = first ? sampleDates(first, f.as_of_date) : [f.as_of_date];
  const points = new Map<string, { tvpi: number | null; dpi: number | null; rvpi: number | null }>();
  points.set(f.as_of_date, { tvpi: num(f.tvpi), dpi: num(f.dpi), rvpi: num(f.rvpi) });
  await eachLimited(
    dates.filter((d) => d !== f.as_of_date),
    4,
    async (date) => {
      try {
        const r = await host.call<FundPerformance>('get_fund_performance', { ...base, as_of_date: date });
        const g = r.funds[0];
        if (g) points.set(date, { tvpi: num(g.tvpi), dpi: num(g.dpi), rvpi: num(g.rvpi) });
      } catch {
        // A date the tool refuses is left out of the chart.
      }
    },
  );
  history.set(
    f.fund_id,
    dates.filter((d) => points.has(d)).map((d) => ({ date: d, ...points.get(d)! })),
  );
  if (result?.funds[selected]?.fund_id === f.fund_id) draw();
}

void startView({
  name: 'fund-performance',
  tool: 'get_fund_performance',
  onResult(r, viewHost) {
    host = viewHost;
    if (r.isError || !r.structuredContent) {
      root.replaceChildren(message(errorText(r), 'error'));
      return;
    }
    result = r.structuredContent as unknown as FundPerformance;
    flows.clear();
    history.clear();
    selected = 0;
    draw();
    if (result.funds[0]) void load(result.funds[0]);
  },
});
