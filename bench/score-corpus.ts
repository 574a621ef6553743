// Scores the figures reader on a folder of workbooks, each with `<file>.json` next to it naming the points a
// careful analyst would record ({ fiscal_year_end_month, points: [{ category, date, cadence, value, kind }] }).
// Recall: expected points proposed right; precision: right ÷ proposed actuals. Point it at a corpus of your own:
//   npm run score:corpus -- <folder> [--detail]
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { extractText } from '../parsing/extract.ts';
import { type Extraction, extractFigures, type Proposal } from '../services/extraction/tables.ts';

export interface ExpectedPoint {
  category: string;
  date: string;
  cadence: 'month' | 'quarter' | 'year';
  value: string;
  kind: 'actual' | 'budget';
}

export interface FileScore {
  file: string;
  expected: number;
  right: number;
  proposedActuals: number;
  rightActuals: number;
  /** Expected points not proposed, as `category|date|cadence|value|kind`. */
  missed: string[];
  /** Actuals proposed that the key does not hold, with their cell. */
  wrong: string[];
  budgetAsActual: string[];
  unmappedProposed: string[];
}

const TYPES: Record<string, string> = {
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  ods: 'application/vnd.oasis.opendocument.spreadsheet',
  csv: 'text/csv',
  pdf: 'application/pdf',
};

const key = (p: { date: string; cadence: string; value: string; kind: string }, category: string) =>
  `${category}|${p.date}|${p.cadence}|${p.value}|${p.kind}`;
const slot = (p: { date: string; cadence: string; kind: string }, category: string) =>
  `${category}|${p.date}|${p.cadence}|${p.kind}`;
const close = (a: number, b: number) => Math.abs(a - b) <= 5e-5 + 1e-9 * Math.abs(b);
const categoryOf = (p: Proposal) => ('category' in p.target ? p.target.category : p.target.custom_metric_id);

/** What the reader proposes from a file, for a company whose fiscal year ends in `fyEndMonth`. */
export async function figuresOf(path: string, fyEndMonth: number): Promise<Extraction> {
  const outcome = await extractText({
    content: readFileSync(path),
    content_type: TYPES[path.split('.').pop()!.toLowerCase()] ?? 'application/octet-stream',
    filename: basename(path),
  });
  if (outcome.state !== 'completed') throw new Error(`${path}: ${outcome.reason}`);
  return extractFigures(outcome.grids ?? [], {
    fyEndMonth,
    currency: null,
    customMetrics: [],
    remembered: new Map(),
    today: new Date().toISOString().slice(0, 10),
  });
}

export async function scoreFile(dir: string, file: string): Promise<FileScore> {
  const { fiscal_year_end_month, points } = JSON.parse(readFileSync(join(dir, `${file}.json`), 'utf8')) as {
    fiscal_year_end_month: number;
    points: ExpectedPoint[];
  };
  const { proposals, unmapped } = await figuresOf(join(dir, file), fiscal_year_end_month);
  // A point is right when its category, date, cadence and kind match and its value is the key's within
  // rounding (keys written from formulas hold ratios to 4 or 8 places).
  const wanted = new Map<string, number[]>();
  for (const p of points)
    wanted.set(slot(p, p.category), [...(wanted.get(slot(p, p.category)) ?? []), Number(p.value)]);
  const inKey = (p: { date: string; cadence: string; value: string; kind: string }, category: string) =>
    (wanted.get(slot(p, category)) ?? []).some((v) => close(v, Number(p.value)));
  const proposedRight = (p: ExpectedPoint) =>
    proposals.some(
      (q) => slot(q, categoryOf(q)) === slot(p, p.category) && close(Number(q.value), Number(p.value)),
    );
  const budgets = points.filter((p) => p.kind === 'budget');
  const actuals = proposals.filter((p) => p.kind === 'actual');
  const unmappedRows = new Set(unmapped.map((u) => `${u.sheet}|${u.label}`));
  const shown = (p: Proposal) => `${key(p, categoryOf(p))} ← ${p.sheet}!${p.cell} "${p.row_label}"`;
  const right = points.filter(proposedRight);
  return {
    file,
    expected: points.length,
    right: right.length,
    proposedActuals: actuals.length,
    rightActuals: actuals.filter((p) => inKey(p, categoryOf(p))).length,
    missed: points.filter((p) => !proposedRight(p)).map((p) => key(p, p.category)),
    wrong: actuals.filter((p) => !inKey(p, categoryOf(p))).map(shown),
    // A budget figure proposed as an actual: not the period's actual (which may equal its budget) but its budget.
    budgetAsActual: actuals
      .filter(
        (p) =>
          !inKey(p, categoryOf(p)) &&
          budgets.some(
            (b) =>
              slot(b, b.category) === slot({ ...p, kind: 'budget' }, categoryOf(p)) &&
              close(Number(b.value), Number(p.value)),
          ),
      )
      .map(shown),
    unmappedProposed: proposals.filter((p) => unmappedRows.has(`${p.sheet}|${p.row_label}`)).map(shown),
  };
}

export async function scoreCorpus(
  dir: string,
): Promise<{ files: FileScore[]; recall: number; precision: number }> {
  const names = readdirSync(dir).filter(
    (f) => !f.endsWith('.json') && readdirSync(dir).includes(`${f}.json`),
  );
  const files: FileScore[] = [];
  for (const file of names.sort()) files.push(await scoreFile(dir, file));
  const sum = (f: (s: FileScore) => number) => files.reduce((n, s) => n + f(s), 0);
  return {
    files,
    recall:
      sum((s) => s.right) /
      Math.max(
        1,
        sum((s) => s.expected),
      ),
    precision:
      sum((s) => s.rightActuals) /
      Math.max(
        1,
        sum((s) => s.proposedActuals),
      ),
  };
}

export function scoreLines(score: Awaited<ReturnType<typeof scoreCorpus>>, detail = false): string[] {
  const pct = (n: number) => `${(n * 100).toFixed(1)} %`;
  const lines: string[] = [];
  for (const s of score.files) {
    lines.push(
      `${s.file}: recall ${s.right}/${s.expected}, precision ${s.rightActuals}/${s.proposedActuals}`,
    );
    if (!detail) continue;
    for (const m of s.missed) lines.push(`  missed ${m}`);
    for (const w of s.wrong) lines.push(`  wrong  ${w}`);
  }
  lines.push(`total: recall ${pct(score.recall)}, precision ${pct(score.precision)}`);
  return lines;
}

if (import.meta.main) {
  const [dir, flag] = process.argv.slice(2);
  if (!dir) {
    console.error('usage: npm run score:corpus -- <folder> [--detail]');
    process.exit(2);
  }
  const score = await scoreCorpus(dir);
  console.log(scoreLines(score, flag === '--detail').join('\n'));
}
