import type { ExpectedPoint } from '../../bench/score-corpus.ts';
import { pdfTable, writePdf } from './pdfs.ts';
import { type WriteCell, type WriteSheet, writeCsv, writeOds, writeXlsx } from './workbooks.ts';

// The extraction corpus: management-accounts layouts founders send, each with the data points a
// reader should propose. scripts/write-workbook-corpus.ts writes them to test/fixtures/workbooks/.

export interface CorpusFile {
  file: string;
  fyEndMonth: number;
  content: Buffer;
  expected: ExpectedPoint[];
}

const MONTH_ENDS = ['2026-01-31', '2026-02-28', '2026-03-31'];
const P = (
  category: string,
  date: string,
  cadence: ExpectedPoint['cadence'],
  value: string,
  kind: ExpectedPoint['kind'] = 'actual',
) => ({
  category,
  date,
  cadence,
  value,
  kind,
});

function pointsOf(
  rows: [string, number[]][],
  dates: string[],
  cadence: ExpectedPoint['cadence'],
  scale = 1,
  kind: ExpectedPoint['kind'] = 'actual',
) {
  return rows.flatMap(([category, values]) =>
    values.map((v, i) => P(category, dates[i]!, cadence, String(v * scale), kind)),
  );
}

const PL: [string, string, number[]][] = [
  ['Revenue', 'revenue', [120, 135, 150]],
  ['Cost of sales', 'cost_of_goods_sold', [40, 45, 50]],
  ['Gross profit', 'gross_profit', [80, 90, 100]],
  ['EBITDA', 'ebitda', [-20, -10, 5]],
];

function monthsAcross(header: WriteCell[], opts: { brackets?: boolean; note?: string } = {}): WriteSheet {
  const rows: WriteCell[][] = [['Acme Ltd — Profit and loss'], [opts.note ?? ''], [], ['', ...header]];
  for (const [label, category, values] of PL) {
    const cells = values.map((v) => {
      const signed = category === 'cost_of_goods_sold' ? -v : v;
      return opts.brackets && signed < 0 ? `(${Math.abs(signed).toLocaleString('en')})` : signed;
    });
    rows.push([label, ...cells]);
  }
  return { name: 'P&L', rows };
}

const plPoints = (dates: string[], cadence: ExpectedPoint['cadence'], scale = 1) =>
  pointsOf(
    PL.map(([, c, v]) => [c, v]),
    dates,
    cadence,
    scale,
  );

export function corpus(): CorpusFile[] {
  const files: CorpusFile[] = [];
  const add = (file: string, content: Buffer, expected: ExpectedPoint[], fyEndMonth = 12) =>
    files.push({ file, content, expected, fyEndMonth });

  add(
    'months-text.xlsx',
    writeXlsx([monthsAcross(['Jan-26', 'Feb-26', 'Mar-26'])]),
    plPoints(MONTH_ENDS, 'month'),
  );
  add(
    'months-dates.xlsx',
    writeXlsx([monthsAcross(MONTH_ENDS.map((date) => ({ date })))]),
    plPoints(MONTH_ENDS, 'month'),
  );
  add(
    'months-thousands-brackets.xlsx',
    writeXlsx([
      monthsAcross(['January 2026', 'February 2026', 'March 2026'], {
        brackets: true,
        note: 'USD, in $000s',
      }),
    ]),
    plPoints(MONTH_ENDS, 'month', 1000),
  );
  add(
    'quarters.xlsx',
    writeXlsx([monthsAcross(['Q1 2026', 'Q2 2026', 'Q3 2026'])]),
    plPoints(['2026-03-31', '2026-06-30', '2026-09-30'], 'quarter'),
  );
  add(
    'fiscal-quarters-june.xlsx',
    writeXlsx([monthsAcross(['Q1 FY26', 'Q2 FY26', 'Q3 FY26'])]),
    plPoints(['2025-09-30', '2025-12-31', '2026-03-31'], 'quarter'),
    6,
  );
  add(
    'fy-columns-march.xlsx',
    writeXlsx([monthsAcross(['FY2024', 'FY2025', 'FY2026'], { note: '€k' })]),
    plPoints(['2024-03-31', '2025-03-31', '2026-03-31'], 'year', 1000),
    3,
  );
  add(
    'years.ods',
    writeOds([monthsAcross([2023, 2024, 2025], { note: 'USD m' })]),
    plPoints(['2023-12-31', '2024-12-31', '2025-12-31'], 'year', 1_000_000),
  );
  add(
    'months-iso.csv',
    writeCsv(monthsAcross(['2026-01', '2026-02', '2026-03'])),
    plPoints(MONTH_ENDS, 'month'),
  );

  // Budget beside actual: a block label above each group of months.
  const budgetRows: WriteCell[][] = [
    ['Management accounts'],
    [],
    ['', 'Actual', '', '', 'Budget'],
    ['', 'Jan-26', 'Feb-26', 'Mar-26', 'Jan-26', 'Feb-26', 'Mar-26'],
    ['Turnover', 120, 135, 150, 110, 130, 160],
    ['Operating expenses', -90, -95, -99, -85, -90, -95],
  ];
  add('budget-beside-actual.xlsx', writeXlsx([{ name: 'P&L', rows: budgetRows }]), [
    ...pointsOf(
      [
        ['revenue', [120, 135, 150]],
        ['total_operating_expenses', [90, 95, 99]],
      ],
      MONTH_ENDS,
      'month',
    ),
    ...pointsOf(
      [
        ['revenue', [110, 130, 160]],
        ['total_operating_expenses', [85, 90, 95]],
      ],
      MONTH_ENDS,
      'month',
      1,
      'budget',
    ),
  ]);

  // Three tabs: P&L with subtotals and unmapped lines, a balance sheet, a KPI tab.
  const pl: WriteCell[][] = [
    ['Profit and loss', '', '', 'in thousands'],
    ['', 'Jan-26', 'Feb-26', 'Mar-26'],
    ['Revenue'],
    ['Product revenue', 100, 110, 120],
    ['Services revenue', 20, 25, 30],
    ['Total revenue', 120, 135, 150],
    ['Marketing', '(30)', '(31)', '(32)'],
    ['Total', '(30)', '(31)', '(32)'],
    ['Net income/(loss)', '(10)', '(5)', '2'],
  ];
  const bs: WriteCell[][] = [
    ['Balance sheet', '', '', '$000s'],
    ['', 'Jan-26', 'Feb-26', 'Mar-26'],
    ['Cash & cash equivalents', 900, 850, 800],
    ['Trade debtors', 50, 55, 60],
  ];
  const kpi: WriteCell[][] = [
    ['KPIs'],
    ['', 'Jan-26', 'Feb-26', 'Mar-26'],
    ['FTEs', 12, 13, 15],
    ['ARR', 1440, 1620, 1800],
  ];
  add(
    'three-tabs.xlsx',
    writeXlsx([
      { name: 'P&L', rows: pl },
      { name: 'Balance sheet', rows: bs },
      { name: 'KPI', rows: kpi },
    ]),
    [
      ...pointsOf(
        [
          ['revenue', [120, 135, 150]],
          ['net_income', [-10, -5, 2]],
          ['cash_in_bank', [900, 850, 800]],
          ['accounts_receivable', [50, 55, 60]],
        ],
        MONTH_ENDS,
        'month',
        1000,
      ),
      ...pointsOf([['headcount', [12, 13, 15]]], MONTH_ENDS, 'month'),
      ...pointsOf([['arr', [1440, 1620, 1800]]], MONTH_ENDS, 'month'),
    ],
  );

  // Periods down the first column, metrics across.
  const transposed: WriteCell[][] = [
    ['Monthly KPIs'],
    ['Month', 'Revenue', 'Headcount', 'Cash at bank'],
    ['Jan-26', 120, 12, 900],
    ['Feb-26', 135, 13, 850],
    ['Mar-26', 150, 15, 800],
  ];
  add(
    'transposed.xlsx',
    writeXlsx([{ name: 'KPIs', rows: transposed }]),
    pointsOf(
      [
        ['revenue', [120, 135, 150]],
        ['headcount', [12, 13, 15]],
        ['cash_in_bank', [900, 850, 800]],
      ],
      MONTH_ENDS,
      'month',
    ),
  );

  // A budget tab named so, beside an actuals tab; the budget is the actuals plus 5.
  const plus5 = (rows: WriteCell[][]) =>
    rows.map((row) => row.map((c) => (typeof c === 'number' ? c + 5 : c)));
  const actualTab = monthsAcross(['Jan-26', 'Feb-26', 'Mar-26']);
  add('budget-tab.ods', writeOds([actualTab, { name: 'Budget 2026', rows: plus5(actualTab.rows) }]), [
    ...plPoints(MONTH_ENDS, 'month'),
    ...plPoints(MONTH_ENDS, 'month').map((p) => ({
      ...p,
      // Costs are written negative: plus 5 on the sheet is 5 less as a cost.
      value: String(Number(p.value) + (p.category === 'cost_of_goods_sold' ? -5 : 5)),
      kind: 'budget' as const,
    })),
  ]);
  pdfs(add);
  return files;
}

/** Tables printed in a PDF's text layer as aligned columns, figures right-aligned, costs in brackets. */
function pdfs(add: (file: string, content: Buffer, expected: ExpectedPoint[]) => void): void {
  const monthly = [
    [undefined, 'Jan-26', 'Feb-26', 'Mar-26'],
    ['Revenue', '1,200', '1,350', '1,500'],
    ['Cost of sales', '(400)', '(450)', '(500)'],
    ['Gross profit', '800', '900', '1,000'],
    ['Operating expenses', '(700)', '(720)', '(760)'],
    ['EBITDA', '100', '180', '240'],
    ['Headcount', '12', '13', '15'],
  ];
  add(
    'pdf-monthly-pl.pdf',
    writePdf([
      [
        { x: 72, y: 740, text: 'Acme Ltd', size: 16 },
        { x: 72, y: 716, text: 'Monthly management accounts - March 2026' },
        {
          x: 72,
          y: 700,
          text: 'Revenue grew 11% in the quarter; hiring followed plan. All figures in $000s.',
        },
        ...pdfTable(monthly, [330, 410, 490], 660),
        { x: 72, y: 520, text: 'Prepared by the finance team, unaudited.' },
        { x: 290, y: 60, text: 'Page 1 of 1', size: 9 },
      ],
    ]),
    [
      ...pointsOf(
        [
          ['revenue', [1200, 1350, 1500]],
          ['cost_of_goods_sold', [400, 450, 500]],
          ['gross_profit', [800, 900, 1000]],
          ['total_operating_expenses', [700, 720, 760]],
          ['ebitda', [100, 180, 240]],
        ],
        MONTH_ENDS,
        'month',
        1000,
      ),
      ...pointsOf([['headcount', [12, 13, 15]]], MONTH_ENDS, 'month'),
    ],
  );

  // A board pack: a page of prose, then actual beside budget by quarter, a block label over each group.
  const quarters = [
    [undefined, 'Actual', undefined, 'Budget'],
    [undefined, 'Q1 2026', 'Q2 2026', 'Q1 2026', 'Q2 2026'],
    ['Turnover', '2,400', '2,650', '2,500', '2,700'],
    ['Operating expenses', '(1,900)', '(2,000)', '(1,950)', '(2,050)'],
    ['Cash at bank', '5,100', '4,800', '5,000', '4,700'],
  ];
  add(
    'pdf-quarterly-budget.pdf',
    writePdf([
      [
        { x: 72, y: 740, text: 'Board pack - Q2 2026', size: 16 },
        { x: 72, y: 712, text: 'Sales closed 14 new accounts in the quarter, 3 more than in Q1 2026.' },
        { x: 72, y: 696, text: 'The team is 42 people; we expect 45 by the end of Q3 2026.' },
      ],
      [
        { x: 72, y: 740, text: 'Financial summary (EUR, in thousands)' },
        ...pdfTable(quarters, [300, 370, 450, 520], 700),
      ],
    ]),
    [
      ...pointsOf(
        [
          ['revenue', [2400, 2650]],
          ['total_operating_expenses', [1900, 2000]],
          ['cash_in_bank', [5100, 4800]],
        ],
        ['2026-03-31', '2026-06-30'],
        'quarter',
        1000,
      ),
      ...pointsOf(
        [
          ['revenue', [2500, 2700]],
          ['total_operating_expenses', [1950, 2050]],
          ['cash_in_bank', [5000, 4700]],
        ],
        ['2026-03-31', '2026-06-30'],
        'quarter',
        1000,
        'budget',
      ),
    ],
  );
}

/** Not in the corpus: actual and budget months side by side, with a row no synonym maps (`Consulting fees`). */
export function budgetBesideUnmapped(): Buffer {
  return writeXlsx([
    {
      name: 'P&L',
      rows: [
        ['', 'Actual', '', 'Budget'],
        ['', 'Jan-26', 'Feb-26', 'Jan-26', 'Feb-26'],
        ['Turnover', 120, 135, 110, 130],
        [],
        ['Consulting fees', 10, 11, 12, 14],
      ],
    },
  ]);
}
