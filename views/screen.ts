// The portfolio screen view, shown with screen_companies: a sortable table with ARR sparklines, a scatter of
// ARR growth against burn multiple sized by ARR, and a company's dashboard on a click.
import { Dashboard, type Performance } from './shared/dashboard.ts';
import { compact, h, message, multiple, num, percent } from './shared/format.ts';
import { eachLimited, errorText, startView, type ViewHost } from './shared/host.ts';
import { scatter, sparkline } from './shared/svg.ts';

interface Row {
  company_id: string;
  name: string;
  status: string;
  sector: string;
  stale: boolean;
  [column: string]: unknown;
}
interface Group {
  key: string | null;
  fund_name?: string;
  count: number;
  stats: Record<string, { median: string | null; sum: string | null }>;
}
interface Screen {
  count: number;
  currency: string;
  columns: string[];
  firm_latest_month: string | null;
  results: Row[];
  groups?: Group[];
}

/** The figures the scatter needs; asked for again when the model's call left them out. */
const SCATTER = ['arr', 'arr_growth_yoy', 'burn_multiple'];
/** Rows drawn (and sparklines fetched) until the reader asks for all. */
const FIRST_ROWS = 15;

const app = document.getElementById('app')!;
const screenRoot = h('div', { id: 'screen' });
const detailRoot = h('div', { id: 'detail', hidden: true });
app.replaceChildren(screenRoot, detailRoot);

let args: Record<string, unknown> = {};
let screen: Screen | null = null;
let sortKey: string | null = null;
let descending = false;
let showAll = false;
let host: ViewHost;
let dashboard: Dashboard;
const sparks = new Map<string, (number | null)[]>();

function formatCell(column: string, value: unknown): string {
  const n = num(value as string | null);
  if (n === null) return '—';
  if (column === 'runway_months') return `${n.toFixed(1)} mo`;
  if (column === 'burn_multiple' || column === 'moic') return multiple(n);
  if (/pct|growth|margin/.test(column))
    return percent(n).replace(/^\+/, column.includes('growth') ? '+' : '');
  if (column.startsWith('headcount')) return String(n);
  return compact(n);
}

function title(column: string): string {
  return column
    .replace(/_/g, ' ')
    .replace(/\bpct\b/, '%')
    .replace(/\barr\b/, 'ARR')
    .replace(/\byoy\b/, 'YoY');
}

function sortedRows(rows: Row[]): Row[] {
  if (!sortKey) return rows;
  const key = sortKey;
  const text = key === 'name' || key === 'status' || key === 'sector';
  return [...rows].sort((a, b) => {
    if (text) return String(a[key]).localeCompare(String(b[key])) * (descending ? -1 : 1);
    const x = num(a[key] as string | null);
    const y = num(b[key] as string | null);
    if (x === null || y === null) return x === null ? (y === null ? 0 : 1) : -1; // nulls last
    return (x - y) * (descending ? -1 : 1);
  });
}

async function openCompany(id: string): Promise<void> {
  screenRoot.hidden = true;
  detailRoot.hidden = false;
  const body = h('div', {});
  detailRoot.replaceChildren(
    h('button', { type: 'button', class: 'link', id: 'back', onclick: () => back() }, '← Portfolio'),
    body,
  );
  dashboard = new Dashboard(body, host);
  await dashboard.open(id);
}

function back(): void {
  detailRoot.hidden = true;
  screenRoot.hidden = false;
}

function showAllRows(): void {
  showAll = true;
  draw();
}

function table(s: Screen): HTMLElement {
  const columns = ['name', 'status', 'sector', ...s.columns];
  const rows = sortedRows(s.results);
  const shown = showAll ? rows : rows.slice(0, FIRST_ROWS);
  const head = h(
    'tr',
    {},
    ...columns.flatMap((c, i) => {
      const th = h(
        'th',
        {
          class: i < 3 ? 'text' : '',
          'data-column': c,
          'aria-sort': sortKey === c ? (descending ? 'descending' : 'ascending') : 'none',
          onclick: () => {
            descending = sortKey === c ? !descending : i >= 3;
            sortKey = c;
            draw();
          },
        },
        c === 'name' ? 'Company' : title(c),
      );
      return i === 0
        ? [
            th,
            h(
              'th',
              { class: 'text', title: 'ARR over 12 months; revenue when no ARR is reported' },
              'Trend, 12 mo',
            ),
          ]
        : [th];
    }),
  );
  const body = shown.map((r) =>
    h(
      'tr',
      { 'data-id': r.company_id },
      h(
        'td',
        {},
        h('button', { type: 'button', class: 'link', onclick: () => void openCompany(r.company_id) }, r.name),
      ),
      h(
        'td',
        { class: 'text spark-cell' },
        sparks.has(r.company_id) ? sparkline(sparks.get(r.company_id)!) : '',
      ),
      h('td', { class: 'text' }, r.status),
      h('td', { class: 'text' }, r.sector),
      ...s.columns.map((c) => h('td', {}, formatCell(c, r[c]))),
    ),
  );
  const more =
    rows.length > shown.length
      ? h(
          'button',
          { type: 'button', class: 'link', id: 'more', onclick: showAllRows },
          `Show all ${rows.length}`,
        )
      : null;
  void loadSparks(shown);
  return h(
    'section',
    { class: 'panel scroll' },
    h('table', {}, h('thead', {}, head), h('tbody', {}, ...body)),
    more,
  );
}

/** ARR (else revenue) of the last 12 months for the rows on the page, through the host. */
async function loadSparks(rows: Row[]): Promise<void> {
  const missing = rows.filter((r) => !sparks.has(r.company_id));
  if (missing.length === 0) return;
  for (const r of missing) sparks.set(r.company_id, []);
  await eachLimited(missing, 4, async (r) => {
    try {
      const perf = await host.call<Performance>('get_company_performance', {
        company_id: r.company_id,
        months: 12,
      });
      const arr = perf.series.arr?.points ?? [];
      const points = arr.some((p) => p.value !== null) ? arr : (perf.series.revenue?.points ?? []);
      sparks.set(
        r.company_id,
        points.map((p) => num(p.value)),
      );
    } catch {
      sparks.set(r.company_id, []);
    }
    const cell = screenRoot.querySelector(`tr[data-id="${r.company_id}"] .spark-cell`);
    cell?.replaceChildren(sparkline(sparks.get(r.company_id)!));
  });
}

function bubbles(s: Screen): HTMLElement {
  const points = s.results
    .map((r) => ({
      id: r.company_id,
      label: r.name,
      x: num(r.arr_growth_yoy as string | null),
      y: num(r.burn_multiple as string | null),
      size: num(r.arr as string | null),
    }))
    .filter((p): p is typeof p & { x: number; y: number } => p.x !== null && p.y !== null);
  const left = s.results.length - points.length;
  return h(
    'section',
    { class: 'panel', 'data-chart': 'scatter' },
    h('h2', {}, 'ARR growth (YoY) against burn multiple, sized by ARR'),
    points.length
      ? scatter(
          points,
          {
            x: 'ARR growth YoY',
            y: 'Burn multiple',
            fx: (v) => `${v} %`,
            fy: (v) => `${v}×`,
            fsize: (v) => compact(v, s.currency),
          },
          (id) => void openCompany(id),
        )
      : message('No company has both ARR growth and a burn multiple.'),
    left
      ? h(
          'p',
          { class: 'note' },
          `${left} of ${s.results.length} companies without both figures are not drawn.`,
        )
      : null,
  );
}

function groups(s: Screen): HTMLElement | null {
  if (!s.groups?.length) return null;
  const first = s.columns[0]!;
  return h(
    'section',
    { class: 'panel' },
    h('h2', {}, `Groups (median ${title(first)})`),
    h(
      'table',
      {},
      ...s.groups.map((g) =>
        h(
          'tr',
          {},
          h('td', {}, g.fund_name ?? g.key ?? '(none)'),
          h('td', {}, String(g.count)),
          h('td', {}, formatCell(first, g.stats[first]?.median ?? null)),
        ),
      ),
    ),
  );
}

function draw(): void {
  if (!screen) return;
  const s = screen;
  screenRoot.replaceChildren(
    h('h1', {}, 'Portfolio screen'),
    h(
      'p',
      { class: 'sub' },
      `${s.count} companies${s.results.length < s.count ? ` (${s.results.length} on this page)` : ''} · money in ${s.currency}` +
        (s.firm_latest_month ? ` · data to ${s.firm_latest_month}` : ''),
    ),
    bubbles(s),
    groups(s) ?? '',
    s.results.length ? table(s) : message('No company matches the screen.'),
  );
}

async function show(result: Screen): Promise<void> {
  screen = result;
  sortKey = typeof args.sort_by === 'string' ? args.sort_by.replace(/^-/, '') : null;
  descending = typeof args.sort_by === 'string' && args.sort_by.startsWith('-');
  draw();
  const missing = SCATTER.filter((c) => !result.columns.includes(c));
  if (missing.length === 0 || result.results.length === 0) return;
  // The model chose other columns: ask for the scatter's figures too, with the same filters.
  try {
    screen = await host.call<Screen>('screen_companies', {
      ...args,
      columns: [...result.columns, ...missing],
    });
    draw();
  } catch (err) {
    screenRoot.append(message((err as Error).message, 'error'));
  }
}

void startView({
  name: 'portfolio-screen',
  tool: 'screen_companies',
  // Asked again for the detailed form: the scatter's figures are asked for in the same call.
  detailedArgs(input, first) {
    const columns = Array.isArray(first.columns) ? (first.columns as string[]) : [];
    const missing = SCATTER.filter((c) => !columns.includes(c));
    return missing.length && columns.length ? { ...input, columns: [...columns, ...missing] } : input;
  },
  onInput(input) {
    args = input;
  },
  onResult(result, viewHost) {
    host = viewHost;
    if (result.isError || !result.structuredContent) {
      screenRoot.replaceChildren(message(errorText(result), 'error'));
      return;
    }
    back();
    void show(result.structuredContent as unknown as Screen);
  },
});
