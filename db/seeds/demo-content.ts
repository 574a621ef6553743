/**
 * The non-numeric content: information requests and reports, documents with small real files,
 * notes by several authors, and custom columns with their options and values.
 */
import type { MonthBook } from './demo-model.ts';
import type { RequestSpec } from './demo-world.ts';
import { docxFile, pdfFile, xlsxFile } from './office-files.ts';
import { type CompanyCtx, type FirmCtx, type Row, standardCategory, type UserRef } from './rows.ts';
import {
  addDays,
  addMinutes,
  DEMO_TODAY,
  earlier,
  fmtCents,
  fmtFixed,
  instant,
  isQuarterEnd,
  later,
  quarterOf,
} from './values.ts';

const MONTH_NAMES = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

/** 1234567.89 → '1,234,567.89' (from integer cents). */
function grouped(cents: number): string {
  const [whole, frac] = fmtCents(cents).split('.') as [string, string];
  const neg = whole.startsWith('-');
  const digits = neg ? whole.slice(1) : whole;
  return `${neg ? '-' : ''}${digits.replace(/\B(?=(\d{3})+(?!\d))/g, ',')}.${frac}`;
}

const pct = (x: number) => `${fmtFixed(x * 100, 1)}%`;

// ---- information requests and reports ----------------------------------------------------

const REQUESTED_DOCUMENTS: Record<RequestSpec['period'], [string, boolean][]> = {
  quarter: [
    ['Management accounts', false],
    ['Board deck', false],
    ['Updated cap table', true],
  ],
  year: [
    ['Audited financial statements', false],
    ['Annual budget', false],
    ['Updated cap table', false],
  ],
};

const REQUESTED_METRICS: [string, boolean][] = [
  ['revenue', false],
  ['net_burn', false],
  ['cash_in_bank', false],
  ['headcount', false],
  ['arr', true],
];

export interface SubmittedReport {
  request: RequestSpec;
  requestId: string;
  companyId: string;
  submittedAt: string;
}

const REPORT_STATUSES_OPEN = ['completed', 'partially-complete', 'in-progress', 'not-started'] as const;

/**
 * Information requests of the firm and one report per company that was reporting during the
 * period. Past requests are mostly complete; the open one (now past its due date) is a mix.
 */
export function addInformationRequests(firm: FirmCtx): SubmittedReport[] {
  const { rows, ids } = firm;
  const rng = firm.rng.fork('requests');
  const submitted: SubmittedReport[] = [];
  for (const request of firm.spec.requests) {
    const requestId = ids.next('req');
    const createdAt = instant(addDays(request.end, -10), 8);
    rows.add('information_requests', {
      id: requestId,
      firm_id: firm.id,
      name: request.name,
      due_date: request.due,
      period_start_date: request.start,
      period_end_date: request.end,
      period: request.period,
      // An open request is one that was sent and still takes answers.
      status: request.status === 'open' ? 'sent' : 'closed',
      created_at: createdAt,
      updated_at: createdAt,
      sent_at: createdAt,
      closed_at: request.status === 'closed' ? createdAt : null,
    });
    const documents = REQUESTED_DOCUMENTS[request.period];
    const documentIds = documents.map(([name, optional], position) => {
      const id = ids.next('rqd');
      rows.add('information_request_documents', { id, request_id: requestId, name, optional, position });
      return id;
    });
    const metricItems = REQUESTED_METRICS.map(([name, optional], position) => {
      const category = standardCategory(name);
      const item = {
        id: ids.next('rqm'),
        category_id: category.id,
        time_period: category.pointInTime ? 'point_in_time' : request.period,
      };
      rows.add('information_request_metrics', { ...item, request_id: requestId, name, optional, position });
      return item;
    });

    const reporting = firm.companies.filter((c) => c.model.books.some((b) => b.date === request.end));
    for (const company of reporting)
      rows.add('information_request_companies', { request_id: requestId, company_id: company.id });
    const openStatuses = rng.shuffle(
      reporting.map((_, i) => (i < 4 ? REPORT_STATUSES_OPEN[i]! : rng.pick(REPORT_STATUSES_OPEN))),
    );
    reporting.forEach((company, i) => {
      const status =
        request.status === 'open'
          ? openStatuses[i]!
          : rng.chance(0.86)
            ? 'completed'
            : rng.chance(0.6)
              ? 'partially-complete'
              : 'not-started';
      const isSubmitted = status === 'completed' || status === 'partially-complete';
      const submittedDate = addDays(request.due, rng.int(-20, 8));
      const submittedAt = isSubmitted
        ? instant(earlier(submittedDate, addDays(DEMO_TODAY, -1)), rng.int(8, 19), rng.int(0, 59))
        : null;
      const reportId = ids.next('rep');
      rows.add('information_reports', {
        id: reportId,
        firm_id: firm.id,
        company_id: company.id,
        information_request_id: requestId,
        submitted_at: submittedAt,
        status,
        created_at: createdAt,
        updated_at: submittedAt ?? createdAt,
      });
      const itemStatus = (optional: boolean) => {
        if (status === 'completed') return optional && rng.chance(0.4) ? 'missing' : 'completed';
        if (status === 'not-started') return 'missing';
        return rng.chance(0.5) ? 'completed' : 'missing';
      };
      const documentStatuses = documents.map(([, optional]) => itemStatus(optional));
      // A partial report always misses something, and has something.
      if (status !== 'completed' && status !== 'not-started') {
        documentStatuses[0] = 'completed';
        documentStatuses[1] = 'missing';
      }
      documents.forEach(([name, optional], position) => {
        rows.add('information_report_documents', {
          id: ids.next('rpd'),
          report_id: reportId,
          request_document_id: documentIds[position],
          requested_document: name,
          optional,
          status: documentStatuses[position]!,
          position,
        });
      });
      REQUESTED_METRICS.forEach(([name, optional], position) => {
        const notReported = name === 'arr' && company.spec.model !== 'saas';
        const item = metricItems[position]!;
        rows.add('information_report_metrics', {
          id: ids.next('rpm'),
          report_id: reportId,
          request_metric_id: item.id,
          category_id: item.category_id,
          name,
          optional,
          date: request.end,
          status: notReported ? 'missing' : itemStatus(optional),
          time_period: item.time_period,
          position,
        });
      });
      if (submittedAt) submitted.push({ request, requestId, companyId: company.id, submittedAt });
    });
  }
  return submitted;
}

// ---- documents -------------------------------------------------------------------------------

interface FileContent {
  filename: string;
  contentType: string;
  body: Buffer;
}

function kpiCsv(company: CompanyCtx, books: MonthBook[]): Buffer {
  const lines = [
    'month,currency,revenue,gross_profit,total_operating_expenses,net_burn,cash_in_bank,headcount',
  ];
  for (const b of books) {
    lines.push(
      [
        b.month.key,
        company.spec.currency,
        fmtCents(b.revenue),
        fmtCents(b.grossProfit),
        fmtCents(b.opex),
        fmtCents(b.netBurn),
        fmtCents(b.cash),
        b.headcount,
      ].join(','),
    );
  }
  return Buffer.from(`${lines.join('\n')}\n`);
}

function quarterLabel(date: string): string {
  return `Q${quarterOf(Number(date.slice(5, 7)))} ${date.slice(0, 4)}`;
}

function boardSummary(company: CompanyCtx, book: MonthBook): Buffer {
  const books = company.model.books;
  const i = books.indexOf(book);
  const quarter = books.slice(Math.max(0, i - 2), i + 1);
  const previous = books.slice(Math.max(0, i - 5), Math.max(0, i - 2));
  const sum = (list: MonthBook[], f: (b: MonthBook) => number) => list.reduce((a, b) => a + f(b), 0);
  const revenue = sum(quarter, (b) => b.revenue);
  const before = sum(previous, (b) => b.revenue);
  const cur = company.spec.currency;
  const lines = [
    `# ${company.spec.name}: board summary, ${quarterLabel(book.date)}`,
    '',
    `All amounts in ${cur}.`,
    '',
    '## Highlights',
    '',
    `- Revenue for the quarter: ${grouped(revenue)}${before > 0 ? ` (${pct(revenue / before - 1)} QoQ)` : ''}`,
  ];
  if (book.arr > 0) lines.push(`- ARR at quarter end: ${grouped(book.arr)}`);
  lines.push(
    `- Net burn for the quarter: ${grouped(sum(quarter, (b) => b.netBurn))}`,
    `- Cash at quarter end: ${grouped(book.cash)}${book.runway ? ` (runway ${fmtFixed(book.runway, 1)} months)` : ''}`,
    `- Headcount: ${book.headcount}`,
    '',
    '## Priorities next quarter',
    '',
    '- Close the two largest open opportunities in the pipeline.',
    '- Keep hiring to plan; no new senior roles before the next board meeting.',
    '- Prepare the budget for next year.',
    '',
  );
  return Buffer.from(lines.join('\n'));
}

function investorUpdate(company: CompanyCtx, book: MonthBook): Buffer {
  const month = `${MONTH_NAMES[book.month.month - 1]} ${book.month.year}`;
  const text = [
    `${company.spec.name}: investor update, ${month}`,
    '',
    'Hi all,',
    '',
    `Revenue for ${month} was ${grouped(book.revenue)} ${company.spec.currency} and net burn ` +
      `${grouped(book.netBurn)} ${company.spec.currency}. We ended the month with ` +
      `${grouped(book.cash)} ${company.spec.currency} in the bank and ${book.headcount} people on the team.`,
    '',
    'Asks: introductions to heads of finance at mid-market companies, and to senior engineering candidates.',
    '',
    'Thanks for the support,',
    'The founding team',
    '',
  ];
  return Buffer.from(text.join('\n'));
}

/** A one-page PDF holding a line of text (a "scan" that the parser cannot read). */
function tinyPdf(text: string): Buffer {
  const stream = `BT /F1 12 Tf 72 720 Td (${text.replace(/[()\\]/g, '')}) Tj ET`;
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    `<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ];
  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(out.length);
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = out.length;
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const o of offsets) out += `${String(o).padStart(10, '0')} 00000 n \n`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}

const PARSE_CYCLE = ['not-started', 'in-progress', 'needs-input', 'completed'] as const;

/** 3 to 5 documents per company, across every source and parse state, each with its file. */
export function addDocuments(
  firm: FirmCtx,
  company: CompanyCtx,
  index: number,
  submitted: SubmittedReport[],
): void {
  const { rows, ids } = firm;
  const rng = company.rng.fork('documents');
  const books = company.model.books;
  const last = books[books.length - 1]!;
  const quarterEnds = books.filter((b) => isQuarterEnd(b.month.month));
  const latestQuarter = quarterEnds[quarterEnds.length - 1] ?? last;
  const slug = company.slug;

  interface Doc {
    name: string;
    source: string;
    file: FileContent;
    uploadedAt: string;
    submittedDate: string;
    requestId: string | null;
    state?: string;
  }
  const docs: Doc[] = [];
  const at = (date: string) => instant(earlier(date, DEMO_TODAY), rng.int(8, 18), rng.int(0, 59));

  // Onboarding: the history the company shared when it joined the platform.
  const onboarding = [
    addDays(firm.spec.createdAt.slice(0, 10), 60),
    addDays(company.firstDate, 20),
  ].sort()[1]!;
  const shared = books.filter((b) => b.date < onboarding).slice(-24);
  const history = shared.length >= 3 ? shared : books.slice(0, 3);
  const historyEnd = history[history.length - 1]!.date;
  const implemented = later(onboarding, addDays(historyEnd, 15));
  docs.push({
    name: `Historical financials ${history[0]!.month.key} to ${history[history.length - 1]!.month.key}.csv`,
    source: 'implementation',
    file: {
      filename: `${slug}-historical-financials.csv`,
      contentType: 'text/csv',
      body: kpiCsv(company, history),
    },
    uploadedAt: at(implemented),
    submittedDate: implemented,
    requestId: null,
    state: 'completed',
  });

  // The latest information-request submission.
  const mine = submitted.filter((s) => s.companyId === company.id);
  const report = mine[mine.length - 1];
  if (report) {
    const end = report.request.end;
    const quarter = books.filter((b) => b.date <= end).slice(-3);
    docs.push({
      name: `${report.request.name}: management accounts.csv`,
      source: 'information-request',
      file: {
        filename: `${slug}-management-accounts-${end}.csv`,
        contentType: 'text/csv',
        body: kpiCsv(company, quarter),
      },
      uploadedAt: report.submittedAt,
      submittedDate: report.submittedAt.slice(0, 10),
      requestId: report.requestId,
    });
  }

  // The board summary the firm uploaded after the last board meeting.
  const boardDate = addDays(latestQuarter.date, rng.int(18, 35));
  docs.push({
    name: `Board summary ${quarterLabel(latestQuarter.date)}.md`,
    source: 'upload',
    file: {
      filename: `${slug}-board-summary.md`,
      contentType: 'text/markdown',
      body: boardSummary(company, latestQuarter),
    },
    uploadedAt: at(boardDate),
    submittedDate: earlier(boardDate, DEMO_TODAY),
    requestId: null,
  });

  // The founders' monthly update, forwarded by e-mail or sent through the stakeholder-update flow.
  const updateMonth = books[Math.max(0, books.length - 1 - rng.int(0, 2))]!;
  const viaEmail = index % 2 === 0;
  const updateDate = addDays(updateMonth.date, rng.int(5, 12));
  docs.push({
    name: `Investor update ${MONTH_NAMES[updateMonth.month.month - 1]} ${updateMonth.month.year}.${viaEmail ? 'txt' : 'md'}`,
    source: viaEmail ? 'email' : 'stakeholder-update',
    file: {
      filename: `${slug}-update-${updateMonth.month.key}.${viaEmail ? 'txt' : 'md'}`,
      contentType: viaEmail ? 'text/plain' : 'text/markdown',
      body: investorUpdate(company, updateMonth),
    },
    uploadedAt: at(updateDate),
    submittedDate: earlier(updateDate, DEMO_TODAY),
    requestId: null,
  });

  // A scanned legal document that cannot be parsed, for every third company.
  if (index % 3 === 0) {
    const round = company.model.rounds[company.model.rounds.length - 1]!;
    const signed = addDays(round.date, rng.int(1, 10));
    docs.push({
      name: `${round.name} side letter (signed scan).pdf`,
      source: 'upload',
      file: {
        filename: `${slug}-side-letter.pdf`,
        contentType: 'application/pdf',
        body: tinyPdf(`${company.spec.name} - ${round.name} side letter - signed ${signed}`),
      },
      uploadedAt: at(signed),
      submittedDate: signed,
      requestId: null,
      state: 'not-parseable',
    });
  }

  // The newest document is still being processed, in a state that rotates across companies.
  const open = docs.filter((d) => !d.state).sort((a, b) => (a.uploadedAt < b.uploadedAt ? 1 : -1));
  if (open[0]) open[0].state = PARSE_CYCLE[index % PARSE_CYCLE.length];

  for (const doc of docs) {
    const state = doc.state ?? 'completed';
    const fileId = ids.next('fil');
    rows.add('document_files', {
      id: fileId,
      filename: doc.file.filename,
      content_type: doc.file.contentType,
      size: doc.file.body.length,
      content: doc.file.body,
    });
    const parsed = state === 'completed' || state === 'needs-input';
    const documentId = ids.next('doc');
    rows.add('documents', {
      id: documentId,
      firm_id: firm.id,
      company_id: company.id,
      information_request_id: doc.requestId,
      file_id: fileId,
      name: doc.name,
      parse_state: state,
      parsed_at: parsed ? addMinutes(doc.uploadedAt, rng.int(2, 90)) : null,
      uploaded_at: doc.uploadedAt,
      submitted_date: doc.submittedDate,
      source: doc.source,
    });
    // The files seeded as parsed are plain text, so their text is the file itself.
    if (state === 'completed') {
      const text = doc.file.body.toString('utf8').trim();
      rows.add('document_texts', {
        document_id: documentId,
        text,
        format: 'text',
        source_pages: null,
        char_count: text.length,
        created_at: addMinutes(doc.uploadedAt, 1),
      });
    }
  }
}

/**
 * A PDF board deck, a Word letter and an Excel KPI workbook for the first companies of a firm, uploaded
 * just now and not parsed yet: the server's parser reads them on start-up.
 */
export function addOfficeDocuments(firm: FirmCtx, companies = 3): void {
  const { rows, ids } = firm;
  const uploadDate = addDays(DEMO_TODAY, -1);
  firm.companies.slice(0, companies).forEach((company, c) => {
    const books = company.model.books.slice(-6);
    const last = books[books.length - 1]!;
    const cur = company.spec.currency;
    const name = company.spec.name;
    const quarter = quarterLabel(last.date);
    const files: { name: string; file: FileContent }[] = [
      {
        name: `Board deck ${quarter}.pdf`,
        file: {
          filename: `${company.slug}-board-deck.pdf`,
          contentType: 'application/pdf',
          body: pdfFile([
            [`${name}: board deck, ${quarter}`, '', 'Agenda: results, hiring plan, fundraising timeline.'],
            [
              `Results (${cur})`,
              `Revenue last month: ${grouped(last.revenue)}`,
              `Net burn last month: ${grouped(last.netBurn)}`,
              `Cash at month end: ${grouped(last.cash)}`,
              `Headcount: ${last.headcount}`,
            ],
          ]),
        },
      },
      {
        name: `Quarterly letter ${quarter}.docx`,
        file: {
          filename: `${company.slug}-quarterly-letter.docx`,
          contentType: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
          body: docxFile([
            `# ${name}: letter to shareholders, ${quarter}`,
            `Dear shareholders, revenue reached ${grouped(last.revenue)} ${cur} last month and the team grew to ${last.headcount}.`,
            'Our priorities are unchanged: grow revenue efficiently and extend the runway.',
          ]),
        },
      },
      {
        name: `KPI workbook ${quarter}.xlsx`,
        file: {
          filename: `${company.slug}-kpi-workbook.xlsx`,
          contentType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
          body: xlsxFile([
            {
              name: 'P&L',
              rows: [
                ['Month', `Revenue (${cur})`, `Net burn (${cur})`],
                ...books.map((b) => [b.month.key, b.revenue / 100, b.netBurn / 100]),
              ],
            },
            { name: 'Team', rows: [['Month', 'Headcount'], ...books.map((b) => [b.month.key, b.headcount])] },
          ]),
        },
      },
    ];
    files.forEach((f, i) => {
      const fileId = ids.next('fil');
      rows.add('document_files', {
        id: fileId,
        filename: f.file.filename,
        content_type: f.file.contentType,
        size: f.file.body.length,
        content: f.file.body,
      });
      rows.add('documents', {
        id: ids.next('doc'),
        firm_id: firm.id,
        company_id: company.id,
        information_request_id: null,
        file_id: fileId,
        name: f.name,
        parse_state: 'not-started',
        parsed_at: null,
        uploaded_at: instant(uploadDate, 9 + c, i * 5),
        submitted_date: uploadDate,
        source: 'upload',
      });
    });
  });
}

// ---- notes -----------------------------------------------------------------------------------

type NoteWriter = (c: CompanyCtx, b: MonthBook, prev: MonthBook | undefined) => string;

const SHORT_NOTES: NoteWriter[] = [
  (c, b, p) =>
    `Monthly check-in. Revenue ${grouped(b.revenue)} ${c.spec.currency}` +
    (p && p.revenue > 0 ? ` (${pct(b.revenue / p.revenue - 1)} MoM)` : '') +
    `, net burn ${grouped(b.netBurn)}. Team at ${b.headcount}.`,
  (_c, b) =>
    `Hiring update: ${b.headcount} people today. Plan is to add ${Math.max(2, Math.round(b.headcount * 0.1))} ` +
    'engineers over the next two quarters; the VP Engineering search is down to two candidates.',
  (c, b) =>
    `Cash position ${grouped(b.cash)} ${c.spec.currency}` +
    (b.runway
      ? `, about ${fmtFixed(b.runway, 0)} months of runway at the current burn.`
      : '; the company is cash-flow positive.') +
    ' Asked for a 13-week cash forecast with the next update.',
  (_c, b) =>
    `Reviewed the ${quarterLabel(b.date)} management accounts` +
    (b.revenue > 0 ? `; gross margin ${pct(b.grossProfit / b.revenue)}.` : '.') +
    ' Numbers reconcile with the bank statements.',
  () =>
    'Customer reference call with a mid-market customer: very happy with onboarding, wants better reporting ' +
    'and an SSO integration. Would renew and expand.',
  () =>
    'Pipeline review with the CRO. Two large deals pushed a quarter; win rate stable at roughly one in four.',
  () =>
    'Intro to two potential design partners from our network. CEO will follow up directly and report back ' +
    'at the next check-in.',
  (c) =>
    `Fundraising prep: ${c.spec.name} expects to start conversations in about six months. We intend to take our pro-rata.`,
];

const LONG_NOTES: NoteWriter[] = [
  (c, b) =>
    [
      `Board meeting, ${quarterLabel(b.date)}.`,
      `Performance: revenue for the month was ${grouped(b.revenue)} ${c.spec.currency} and the team is ` +
        `${b.headcount} people. Net burn of ${grouped(b.netBurn)} leaves ${grouped(b.cash)} in the bank` +
        (b.runway ? `, roughly ${fmtFixed(b.runway, 0)} months of runway.` : '.'),
      'Discussion: most of the meeting went to go-to-market. The board supports moving two account executives ' +
        'into a dedicated expansion team, and asked for a clearer view of payback by channel before the next ' +
        'marketing budget increase.',
      'Product: the new reporting module ships next month. Two enterprise prospects made it a condition of ' +
        'signing, so the date matters; engineering is confident.',
      'Actions: (1) CFO to circulate the revised hiring plan; (2) CEO to share the pricing experiment results; ' +
        '(3) we will make two introductions to potential channel partners.',
    ].join('\n\n'),
  (c, b) =>
    [
      `Quarterly portfolio review for ${c.spec.name}.`,
      `Where they are: ${c.spec.description} Current headcount ${b.headcount}, monthly revenue ` +
        `${grouped(b.revenue)} ${c.spec.currency}.`,
      'What went well: retention held up through the quarter and the sales cycle shortened. The team hit every ' +
        'product milestone it committed to at the last board meeting.',
      'Concerns: hiring senior engineers is slow and the burn is drifting above plan. We agreed to revisit the ' +
        'plan if the next two months do not come back in line.',
      'Our view: reserve for a follow-on remains appropriate; no change to the valuation mark this quarter.',
    ].join('\n\n'),
];

/** Notes by several authors, spread across the relationship; a few long board-meeting notes. */
export function addNotes(firm: FirmCtx, company: CompanyCtx): void {
  const rng = company.rng.fork('notes');
  const books = company.model.books.filter((b) => b.date >= company.firstDate);
  const pool = company.model.books;
  const authors = [...firm.users.values()].filter((u) => canSee(firm, u, company));
  const [min, max] = firm.spec.notesPerCompany;
  const count = rng.int(min, max);
  const longOnes = rng.chance(0.35) ? rng.int(1, 2) : 0;
  const candidates = books.length > 0 ? books : pool;
  for (let i = 0; i < count; i++) {
    const book = candidates[Math.floor(((i + rng.next()) / count) * candidates.length)] ?? candidates[0]!;
    const prev = pool[pool.indexOf(book) - 1];
    const writer = i < longOnes ? rng.pick(LONG_NOTES) : rng.pick(SHORT_NOTES);
    const day = addDays(book.date, rng.int(3, 25));
    firm.rows.add('notes', {
      id: firm.ids.next('note'),
      firm_id: firm.id,
      company_id: company.id,
      author_id: rng.pick(authors).id,
      note: writer(company, book, prev),
      created_at: instant(earlier(day, DEMO_TODAY), rng.int(8, 19), rng.int(0, 59)),
    });
  }
}

function canSee(firm: FirmCtx, user: UserRef, company: CompanyCtx): boolean {
  const spec = firm.spec.users.find((u) => u.email === user.email);
  return !spec?.companies || spec.companies.includes(company.slug);
}

// ---- custom columns --------------------------------------------------------------------------

function stageOption(company: CompanyCtx): string {
  switch (company.spec.status) {
    case 'exited':
      return 'Exited';
    case 'written-off':
      return 'Written off';
    case 'public':
      return 'Public';
  }
  const priced = company.model.rounds.filter((r) => r.kind === 'priced');
  const latest = priced[priced.length - 1];
  if (!latest) return 'Pre-seed';
  if (latest.stage === 'Series C') return 'Series C+';
  return latest.stage;
}

/** The firm's custom columns, their options, and values for most companies. */
export function addCustomColumns(firm: FirmCtx): void {
  const { rows, ids } = firm;
  const rng = firm.rng.fork('columns');
  firm.spec.customColumns.forEach((column, c) => {
    const columnId = ids.next('col');
    rows.add('custom_columns', {
      id: columnId,
      firm_id: firm.id,
      name: column.name,
      type: column.type,
      created_at: instant(addDays(firm.spec.createdAt.slice(0, 10), 14 + c), 11),
    });
    const options = new Map<string, string>();
    (column.options ?? []).forEach(([value, color], position) => {
      const id = ids.next('opt');
      options.set(value, id);
      rows.add('custom_column_options', { id, column_id: columnId, value, color, position });
    });
    for (const company of firm.companies) {
      let row: Row | null = null;
      const base = {
        id: '',
        column_id: columnId,
        company_id: company.id,
        value_text: null,
        option_ids: null,
      };
      if (column.type === 'text' && company.spec.boardSeat) {
        row = { ...base, value_text: company.spec.boardSeat };
      } else if (column.name === 'Stage') {
        row = { ...base, option_ids: JSON.stringify([optionId(options, stageOption(company))]) };
      } else if (column.type === 'multi_select' && company.spec.themes.length > 0) {
        row = { ...base, option_ids: JSON.stringify(company.spec.themes.map((t) => optionId(options, t))) };
      } else if (column.type === 'select' && column.options && rng.chance(0.9)) {
        row = { ...base, option_ids: JSON.stringify([optionId(options, rng.pick(column.options)[0])]) };
      }
      if (row) rows.add('custom_column_values', { ...row, id: ids.next('ccv') });
    }
  });
}

function optionId(options: Map<string, string>, value: string): string {
  const id = options.get(value);
  if (!id) throw new Error(`no custom column option ${value}`);
  return id;
}
