import { expect } from 'chai';
import { extractText } from '../parsing/extract.ts';
import { periodOf } from '../services/extraction/periods.ts';
import { type ExtractionContext, extractFigures, type Proposal } from '../services/extraction/tables.ts';
import { type WriteCell, writeCsv, writeXlsx } from './helpers/workbooks.ts';

// Layouts of real management packs, each read the way an analyst would read it.

const CONTEXT: ExtractionContext = {
  fyEndMonth: 12,
  currency: null,
  customMetrics: [],
  remembered: new Map(),
  today: '2026-11-29',
};

async function read(
  rows: WriteCell[][],
  options: Partial<ExtractionContext> & { csv?: boolean; name?: string } = {},
) {
  const sheet = { name: options.name ?? 'P&L', rows };
  const outcome = await extractText(
    options.csv
      ? { content: writeCsv(sheet), content_type: 'text/csv', filename: 'pack.csv' }
      : {
          content: writeXlsx([sheet]),
          content_type: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
          filename: 'pack.xlsx',
        },
  );
  if (outcome.state !== 'completed') throw new Error(outcome.state);
  return extractFigures(outcome.grids ?? [], { ...CONTEXT, ...options });
}

/** Proposals as `category date cadence kind value @cell`, sorted. */
const shown = (proposals: Proposal[]) =>
  proposals
    .map(
      (p) =>
        `${'category' in p.target ? p.target.category : '#'} ${p.date} ${p.cadence} ${p.kind} ${p.value} @${p.cell}`,
    )
    .sort();

describe('reading the layouts of management packs', () => {
  it('reads a month over Actual | Budget | Variance, a prior-year month, and leaves year to date and variances out', async () => {
    const { proposals } = await read([
      ['Fenwick Foods — profit and loss'],
      ["£'000"],
      ['', 'January 2026', '', '', '', '', 'Prior year', '', 'Year to date (7 months)'],
      [
        '',
        'Actual',
        'Budget',
        'Variance',
        'Var %',
        '',
        'Jan-25',
        '',
        'Actual',
        'Budget',
        'Variance',
        '',
        'Comments',
      ],
      ['Turnover', 1563, 1590, -27, -0.017, null, 1344, null, 10323, 10509, -186, null, 'Behind plan'],
    ]);
    expect(shown(proposals)).to.deep.equal([
      'revenue 2025-01-31 month actual 1344000 @G5',
      'revenue 2026-01-31 month actual 1563000 @B5',
      'revenue 2026-01-31 month budget 1590000 @C5',
    ]);
  });

  it('reads tables stacked on one sheet each under its own header', async () => {
    const { proposals } = await read([
      ['Quillfeather — summary'],
      ['', 'Jan-26', 'Feb-26'],
      ['Sales', 100, 110],
      [],
      ['', 'Q1 2026', 'Q2 2026'],
      ['Closing cash', 900, 800],
    ]);
    expect(shown(proposals)).to.deep.equal([
      'cash_in_bank 2026-03-31 quarter actual 900 @B6',
      'cash_in_bank 2026-06-30 quarter actual 800 @C6',
      'revenue 2026-01-31 month actual 100 @B3',
      'revenue 2026-02-28 month actual 110 @C3',
    ]);
  });

  it('dates a column by a day in its header, quarter ends three months apart as quarters, newest first too', async () => {
    const months = await read(
      [
        ['', '31 Mar 2026', '28 Feb 2026'],
        ['Cash at bank', 5, 4],
      ],
      { csv: true },
    );
    expect(shown(months.proposals)).to.deep.equal([
      'cash_in_bank 2026-02-28 month actual 4 @C2',
      'cash_in_bank 2026-03-31 month actual 5 @B2',
    ]);
    const quarters = await read([
      ['', { date: '2025-09-30' }, { date: '2025-12-31' }],
      ['Cash at bank', 7, 8],
    ]);
    expect(shown(quarters.proposals)).to.deep.equal([
      'cash_in_bank 2025-09-30 quarter actual 7 @B2',
      'cash_in_bank 2025-12-31 quarter actual 8 @C2',
    ]);
  });

  it('leaves out a year whose quarters the header shows, and reads one it does not', async () => {
    const { proposals } = await read(
      [
        ['', 'Q1 2025', 'Q2 2025', 'Q3 2025', 'Q4 2025', 'FY 2025', 'FY 2024'],
        ['Revenue', 1, 2, 3, 4, 10, 8],
      ],
      {},
    );
    expect(shown(proposals).filter((p) => p.includes('year'))).to.deep.equal([
      'revenue 2024-12-31 year actual 8 @G2',
    ]);
    expect(proposals).to.have.length(5);
  });

  it('reads a number as its format shows it: thousands under a £000 note, a year shown as 2024A or 2026F', async () => {
    const { proposals } = await read([
      ["All figures £'000"],
      ['', { n: 2024, format: 'A' }, { n: 2025, format: 'A' }, { n: 2026, format: 'F' }],
      ['Revenue', { n: 1_563_000, format: 'thousands' }, { n: 1_700_000, format: 'thousands' }, 2_000_000],
    ]);
    expect(shown(proposals)).to.deep.equal([
      'revenue 2024-12-31 year actual 1563000 @B3',
      'revenue 2025-12-31 year actual 1700000 @C3',
    ]);
  });

  it('proposes no actual for a period that has not ended', async () => {
    const { proposals, unmapped } = await read([
      ['', 'Oct-26', 'Nov-26', 'Dec-26'],
      ['Revenue', 1, 2, 3],
      ['Consulting', 4, 5, 6],
    ]);
    expect(shown(proposals)).to.deep.equal(['revenue 2026-10-31 month actual 1 @B2']);
    expect(unmapped[0]!.figures.map((f) => f.cell)).to.deep.equal(['B3']);
  });

  it('takes the total over the line it repeats, and a line alone when there is no total', async () => {
    const { proposals } = await read([
      ['', 'Jan-26', 'Feb-26'],
      ['Trading income'],
      ['Sales', 60, 62],
      ['Total trading income', 80, 81],
      ['Cost of goods sold', 20, 21],
    ]);
    expect(shown(proposals)).to.deep.equal([
      'cost_of_goods_sold 2026-01-31 month actual 20 @B5',
      'cost_of_goods_sold 2026-02-28 month actual 21 @C5',
      'revenue 2026-01-31 month actual 80 @B4',
      'revenue 2026-02-28 month actual 81 @C4',
    ]);
  });

  it('does not take a row of figures that look like years for a header', async () => {
    const { proposals } = await read([
      ['', 'Jan-26', 'Feb-26', 'Mar-26'],
      ['Revenue', 100, 200, 300],
      ['Insurance', 2000, 2000, 2000],
      ['EBITDA', 10, 20, 30],
    ]);
    expect(
      proposals.filter((p) => 'category' in p.target && p.target.category === 'ebitda').map((p) => p.date),
    ).to.deep.equal(['2026-01-31', '2026-02-28', '2026-03-31']);
  });

  it('scales by the units a table or a row names, and reads the currency a code names', async () => {
    const teur = await read([['in TEUR'], ['', 'Q1 2025', 'Q2 2025'], ['Revenue', 2.5, 3]]);
    expect(shown(teur.proposals)).to.deep.equal([
      'revenue 2025-03-31 quarter actual 2500 @B3',
      'revenue 2025-06-30 quarter actual 3000 @C3',
    ]);
    expect(teur.proposals[0]!.currency).to.equal('EUR');
    const dutch = await read([
      ['x EUR 1.000'],
      ['', 'Q1 2025', 'Q2 2025'],
      ['Net sales', 2, 3],
      ['ARR ($m)', 1.5, 2],
    ]);
    expect(shown(dutch.proposals)).to.include.members([
      'revenue 2025-03-31 quarter actual 2000 @B3',
      'arr 2025-03-31 quarter actual 1500000 @B4',
    ]);
    const footnote = await read([
      ['', '2022A', '2023A'],
      ['Revenue', 50, 60],
      [],
      ['All figures in AED thousands'],
    ]);
    expect(shown(footnote.proposals)).to.deep.equal([
      'revenue 2022-12-31 year actual 50000 @B2',
      'revenue 2023-12-31 year actual 60000 @C2',
    ]);
    expect(footnote.proposals[0]!.currency).to.equal('AED');
  });

  it('reads a margin in percent as a fraction, a gross margin of amounts as gross profit, and owed amounts as positive', async () => {
    const { proposals } = await read([
      ['', 'Jan-26', 'Feb-26'],
      ['Gross margin', 810, 860],
      ['Gross margin %', 43.1, 44],
      ['Creditors: amounts falling due within one year', -1918, -2046],
      ['Total current assets', 3662, 4023],
    ]);
    expect(shown(proposals)).to.deep.equal([
      'current_assets 2026-01-31 month actual 3662 @B5',
      'current_assets 2026-02-28 month actual 4023 @C5',
      'current_liabilities 2026-01-31 month actual 1918 @B4',
      'current_liabilities 2026-02-28 month actual 2046 @C4',
      'gross_margin 2026-01-31 month actual 0.431 @B3',
      'gross_margin 2026-02-28 month actual 0.44 @C3',
      'gross_profit 2026-01-31 month actual 810 @B2',
      'gross_profit 2026-02-28 month actual 860 @C2',
    ]);
  });

  it('reads a statement of one period named in its title, lines and totals in columns side by side', async () => {
    const income = await read(
      [
        ['K-Wood Kitchens'],
        ['Income Statement 08/01/2025 to 08/31/2025'],
        [],
        ['REVENUE'],
        ['Revenue from Sales', 157780],
        ['Revenue from Services', 900],
        ['TOTAL REVENUE', null, 158680],
        ['Rent', 1200],
        ['Wages', 3000],
        ['TOTAL OPERATING EXPENSES', null, 4200],
        ['NET INCOME', null, 154480],
      ],
      { csv: true },
    );
    expect(shown(income.proposals)).to.deep.equal([
      'net_income 2025-08-31 month actual 154480 @C11',
      'revenue 2025-08-31 month actual 158680 @C7',
      'total_operating_expenses 2025-08-31 month actual 4200 @C10',
    ]);
    const year = await read([
      ['For the year ended 31st Dec 2024'],
      ['', 'RM'],
      ['Sales', 100],
      ['Gross profit', 40],
      ['Net profit', 10],
    ]);
    expect(shown(year.proposals)).to.deep.equal([
      'gross_profit 2024-12-31 year actual 40 @B4',
      'net_profit 2024-12-31 year actual 10 @B5',
      'revenue 2024-12-31 year actual 100 @B3',
    ]);
    const centres = await read([
      ['Profit and Loss', 'From 01 Jan 2025 To 31 Dec 2025'],
      ['', 'Total', 'Sales team', 'Ops team'],
      ['Revenue', 10, 4, 6],
      ['Cost of sales', 5, 2, 3],
      ['Gross profit', 5, 2, 3],
    ]);
    expect(centres.proposals, 'columns of cost centres are no periods').to.be.empty;
  });

  it('leaves a balance on a cash-flow statement unmapped: its line is the movement', async () => {
    const { proposals, unmapped } = await read([
      ['Statement of cash flows'],
      ['', 'Jan-26', 'Feb-26'],
      ['Net income', 10, 12],
      ['Accounts receivable', -5, 3],
      ['Cash at end of period', 100, 110],
    ]);
    expect(shown(proposals).map((p) => p.split(' ')[0])).to.have.members([
      'net_income',
      'net_income',
      'cash_in_bank',
      'cash_in_bank',
    ]);
    expect(unmapped.map((u) => u.label)).to.deep.equal(['Accounts receivable']);
  });

  it('leaves the year so far on a balance sheet unmapped, and reads a plan running years ahead as no actuals', async () => {
    const balance = await read([
      ['Balance Sheet', 'As of March 31, 2026'],
      ['', 'Jan-26', 'Feb-26'],
      ['Total assets', 10, 11],
      ['Net Income', -5, -6],
    ]);
    expect(shown(balance.proposals).map((p) => p.split(' ')[0])).to.deep.equal(['assets', 'assets']);
    const plan = await read([
      ['Five-year model'],
      ['', 2025, 2026, 2027, 2028, 2029],
      ['Revenue', 1, 2, 3, 4, 5],
    ]);
    expect(plan.proposals, 'unlabelled years of a plan running to 2029').to.be.empty;
    const labelled = await read([
      ['', '2025A', '2026F', '2027F', '2028F'],
      ['Revenue', 1, 2, 3, 4],
    ]);
    expect(shown(labelled.proposals)).to.deep.equal(['revenue 2025-12-31 year actual 1 @B2']);
  });

  it('takes Net other income over Total other income, and gives a ratio or a count no currency', async () => {
    const { proposals } = await read([
      ['USD'],
      ['', 'Jan-26', 'Feb-26'],
      ['Total Other Income', 5, 6],
      ['Total Other Expenses', 7, 8],
      ['Net Other Income', -2, -2],
      ['Gross margin %', 0.4, 0.5],
      ['Headcount', 10, 11],
    ]);
    expect(shown(proposals).filter((p) => p.startsWith('net_other_income'))).to.deep.equal([
      'net_other_income 2026-01-31 month actual -2 @B5',
      'net_other_income 2026-02-28 month actual -2 @C5',
    ]);
    const currencies = new Map(
      proposals.map((p) => ['category' in p.target ? p.target.category : '', p.currency]),
    );
    expect(Object.fromEntries(currencies)).to.deep.equal({
      net_other_income: 'USD',
      gross_margin: null,
      headcount: null,
    });
  });

  it('dates months named without a year by the one year the title names', async () => {
    const { proposals } = await read([
      ['Management accounts 2022'],
      ['', 'Januari', 'Februari', 'Maret'],
      ['Total income', 10, 11, 12],
    ]);
    expect(shown(proposals)).to.deep.equal([
      'revenue 2022-01-31 month actual 10 @B3',
      'revenue 2022-02-28 month actual 11 @C3',
      'revenue 2022-03-31 month actual 12 @D3',
    ]);
    const twoYears = await read([['Plan 2022 and 2023'], ['', 'Jan', 'Feb', 'Mar'], ['Revenue', 1, 2, 3]]);
    expect(twoYears.proposals, 'no year to choose').to.be.empty;
  });

  it('proposes what it inferred below high confidence, so a person looks before it is written', async () => {
    const { proposals } = await read([
      ['Income Statement 08/01/2025 to 08/31/2025'],
      ['', 'Amount'],
      ['Total revenue', 100],
      ['3. Total for Cost of Sales', 40],
      ['Gross profit', 60],
    ]);
    const confidence = Object.fromEntries(proposals.map((p) => [p.row_label, p.confidence]));
    expect(confidence).to.deep.equal({
      'Total revenue': 0.8,
      '3. Total for Cost of Sales': 0.8,
      'Gross profit': 0.8,
    });
    const across = await read([
      ['', 'Jan-26', 'Feb-26'],
      ['Revenue', 1, 2],
      ['3. Total for Cost of Sales', 1, 1],
      ['Gross margin', 50, 60],
    ]);
    expect(Object.fromEntries(across.proposals.map((p) => [p.row_label, p.confidence]))).to.deep.equal({
      Revenue: 0.95,
      '3. Total for Cost of Sales': 0.85,
      'Gross margin': 0.85,
    });
  });

  it('reads a Gross margin row beside a Gross margin % row as the amount, however small its figures in crores', async () => {
    const { proposals } = await read(
      [
        ['INR crores'],
        ['', 'FY18', 'FY19'],
        ['Revenue from operations', 2.28, 3.72],
        ['Gross Margin', 0.0144, 0.0938],
        ['Gross Margin %', 0.0063, 0.0252],
      ],
      { fyEndMonth: 3 },
    );
    expect(shown(proposals).filter((p) => p.startsWith('gross'))).to.deep.equal([
      'gross_margin 2018-03-31 year actual 0.0063 @B5',
      'gross_margin 2019-03-31 year actual 0.0252 @C5',
      'gross_profit 2018-03-31 year actual 144000 @B4',
      'gross_profit 2019-03-31 year actual 938000 @C4',
    ]);
  });

  it('takes a total over a net line of other words, and a net over the same words gross', async () => {
    const { proposals } = await read([
      ['', 'Jan-26', 'Feb-26'],
      ['Net Sales', 155, 160],
      ['Freight revenue', 1, 1],
      ['TOTAL REVENUE', 156, 161],
      ['Cost of Goods Sold', 117, 118],
      ['Purchase discounts', -3, -3],
      ['Net Cost of Goods Sold', 114, 115],
    ]);
    expect(shown(proposals)).to.deep.equal([
      'cost_of_goods_sold 2026-01-31 month actual 114 @B7',
      'cost_of_goods_sold 2026-02-28 month actual 115 @C7',
      'revenue 2026-01-31 month actual 156 @B4',
      'revenue 2026-02-28 month actual 161 @C4',
    ]);
  });

  it('leaves a balance-sheet line alone in a table that is no balance sheet unmapped', async () => {
    const model = await read([
      ['', 2018, 2019],
      ['Revenue', 10, 12],
      ['Investment Activities (Startups)'],
      ['Equity', 2850, 6700],
    ]);
    expect(shown(model.proposals).map((p) => p.split(' ')[0])).to.deep.equal(['revenue', 'revenue']);
    expect(model.unmapped.map((u) => u.label)).to.deep.equal(['Equity']);
    const pack = await read([
      ['', 'Jan-26', 'Feb-26'],
      ['Revenue', 10, 12],
      ['Total assets', 50, 55],
      ['Equity', 30, 31],
    ]);
    expect(shown(pack.proposals).map((p) => p.split(' ')[0])).to.have.members([
      'revenue',
      'revenue',
      'assets',
      'assets',
      'equity',
      'equity',
    ]);
  });

  it('reads Indian and Nordic packs: lakhs and crores, Indian digit grouping, a Unit column, labels in two languages', async () => {
    const indian = await read(
      [
        ['Investor KPI Dashboard'],
        ['₹ Cr unless stated in the Unit column'],
        ['Metric', 'Unit', 'Q1 FY26', 'Q2 FY26'],
        ['ARR (closing)', '₹ Cr', 53.26, 58.41],
        ['Revenue per FTE', '₹ lakh', 12.5, 13],
        ['Gross margin', '%', 0.612, 0.624],
        ['Headcount', '#', 140, 152],
      ],
      { fyEndMonth: 3 },
    );
    expect(shown(indian.proposals)).to.deep.equal([
      'arr 2025-06-30 quarter actual 532600000 @C4',
      'arr 2025-09-30 quarter actual 584100000 @D4',
      'gross_margin 2025-06-30 quarter actual 0.612 @C6',
      'gross_margin 2025-09-30 quarter actual 0.624 @D6',
      'headcount 2025-06-30 quarter actual 140 @C7',
      'headcount 2025-09-30 quarter actual 152 @D7',
      'revenue_per_fte 2025-06-30 quarter actual 1250000 @C5',
      'revenue_per_fte 2025-09-30 quarter actual 1300000 @D5',
    ]);
    const zoho = await read(
      [
        ['Profit and Loss'],
        ['', 'Apr 2025', 'May 2025'],
        ['Total for Operating Income', '3,96,90,606.06', '4,16,63,829.28'],
      ],
      { csv: true },
    );
    expect(shown(zoho.proposals)[0]).to.equal('revenue 2025-04-30 month actual 39690606.06 @B3');
    const nordic = await read([
      ['Beløp i NOK millioner (MNOK)'],
      ['', 2024, 2025, 'Budsjett 2026'],
      ['Salgsinntekter / Sales revenue', 298.8, 341.2, 389],
      ['Sum driftsinntekter / Total operating revenue', 302.7, 346.4, 393.5],
      ['Nettoomsättning', 1, 1, 1],
    ]);
    expect(shown(nordic.proposals).filter((p) => p.startsWith('revenue'))).to.deep.equal([
      'revenue 2024-12-31 year actual 302700000 @B4',
      'revenue 2025-12-31 year actual 346400000 @C4',
      'revenue 2026-12-31 year budget 393500000 @D4',
    ]);
    const qualified = await read([
      ['', 2023, 2024],
      ['Net profit / (loss) before taxation', 6, 7],
      ['Revenue', 9, 9],
    ]);
    expect(
      qualified.unmapped.map((u) => u.label),
      'a qualified line, not two languages',
    ).to.deep.equal(['Net profit / (loss) before taxation']);
    expect(periodOf('Q1 FY24-25', 3)).to.deep.equal({ end: '2024-06-30', cadence: 'quarter' });
    expect(periodOf('Oct 1, 2024 – Sep 30, 2025')).to.deep.equal({ end: '2025-09-30', cadence: 'year' });
  });

  it('reads a bare Subtotal as the total of its heading, below high confidence, and skips one with no heading it knows', async () => {
    const { proposals } = await read([
      ['', '2022A', '2023A'],
      ['Total'],
      ['CASH FROM OPERATING'],
      ['Net income', 10, 11],
      ['Depreciation', 2, 2],
      ['Subtotal', 12, 13],
      ['Grants and gifts'],
      ['Subtotal', 5, 6],
    ]);
    expect(shown(proposals).filter((p) => p.startsWith('cash_flow'))).to.deep.equal([
      'cash_flow_from_operating_activities 2022-12-31 year actual 12 @B6',
      'cash_flow_from_operating_activities 2023-12-31 year actual 13 @C6',
    ]);
    expect(proposals.find((p) => p.cell === 'B6')!.confidence).to.equal(0.85);
    expect(
      proposals.some((p) => p.cell === 'B8'),
      'no category totals grants',
    ).to.equal(false);
  });

  it("leaves out a titled statement's % of revenue and variance columns, and takes no header whose months jump back and forth", async () => {
    const titled = await read([
      ['Profit and Loss for the month ended 31 May 2026'],
      ['', 'SGD', '% of revenue', 'Var % vs April'],
      ['Total Revenue', 427670, 1, 0.05],
      ['Total Cost of Sales', 128000, 0.299, 0.02],
      ['Gross Profit', 299670, 0.701, 0.06],
    ]);
    expect(shown(titled.proposals)).to.deep.equal([
      'cost_of_goods_sold 2026-05-31 month actual 128000 @B4',
      'gross_profit 2026-05-31 month actual 299670 @B5',
      'revenue 2026-05-31 month actual 427670 @B3',
    ]);
    const jumbled = await read([
      ['', 'Aug-22', 'Nov-22', 'Feb-22', 'May-22', 'Aug-23', 'Nov-23', 'Feb-23', 'May-23'],
      ['Revenue', 1, 2, 3, 4, 5, 6, 7, 8],
    ]);
    expect(jumbled.proposals).to.be.empty;
  });

  it('reads periods in other spellings and languages', () => {
    expect(periodOf('Mär 2026')).to.deep.equal({ end: '2026-03-31', cadence: 'month' });
    expect(periodOf('Januari 2026')).to.deep.equal({ end: '2026-01-31', cadence: 'month' });
    expect(periodOf('Marketing 26')).to.equal(undefined);
    expect(periodOf('31-Jan-26')).to.deep.equal({ end: '2026-01-31', cadence: 'month', point: true });
    expect(periodOf('March 31, 2026')).to.deep.equal({ end: '2026-03-31', cadence: 'month', point: true });
    expect(periodOf('08/31/2025')).to.deep.equal({ end: '2025-08-31', cadence: 'month', point: true });
    expect(periodOf('03/04/2026')).to.equal(undefined);
    expect(periodOf('Q1/25')).to.deep.equal({ end: '2025-03-31', cadence: 'quarter' });
    expect(periodOf('1Q26')).to.deep.equal({ end: '2026-03-31', cadence: 'quarter' });
    expect(periodOf('FY17-18', 3)).to.deep.equal({ end: '2018-03-31', cadence: 'year' });
    expect(periodOf('2026B')).to.deep.equal({ end: '2026-12-31', cadence: 'year' });
    expect(periodOf('Comparison Amount (As of May 2025)')).to.deep.equal({
      end: '2025-05-31',
      cadence: 'month',
    });
  });

  it("reads the period a header says it ends, whatever the company's calendar", () => {
    expect(periodOf('Year ended 31 Mar 2025')).to.deep.equal({ end: '2025-03-31', cadence: 'year' });
    expect(periodOf('Twelve months to 31/03/2026')).to.deep.equal({ end: '2026-03-31', cadence: 'year' });
    expect(periodOf('Quarter ended 30 Sep 2025')).to.deep.equal({ end: '2025-09-30', cadence: 'quarter' });
    expect(periodOf('FY26 (Apr–Mar)')).to.deep.equal({ end: '2026-03-31', cadence: 'year' });
    expect(periodOf('2025/26 Jul-Jun')).to.deep.equal({ end: '2026-06-30', cadence: 'year' });
    expect(periodOf('FY26 (Apr–Jun)'), 'not a year').to.equal(undefined);
    expect(periodOf('Year to date')).to.equal(undefined);
  });
});
