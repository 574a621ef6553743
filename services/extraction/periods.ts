import type { GridCell } from '../../parsing/grid.ts';

/** A period a header cell names: the date it ends on and its cadence. */
export interface Period {
  end: string;
  cadence: 'month' | 'quarter' | 'year';
  /**
   * A day rather than a named period (a date cell, `31 Mar 2026`): its month's end, a month until the
   * header's spacing says otherwise (quarter ends three months apart are quarters).
   */
  point?: true;
}

/** Whether a column holds actual, budget or forecast figures, as its header or block says. */
export type Kind = 'actual' | 'budget' | 'forecast';

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
/** Month names of the languages packs arrive in, by their first letters (English, German, Dutch, French, Spanish, Indonesian). */
const MONTH_NAMES: [string, number][] = [
  ...MONTHS.map((m, i): [string, number] => [m, i + 1]),
  ...([
    ['mär', 3],
    ['mrt', 3],
    ['mai', 5],
    ['mei', 5],
    ['okt', 10],
    ['dez', 12],
    ['des', 12],
    ['janv', 1],
    ['févr', 2],
    ['fevr', 2],
    ['mars', 3],
    ['avr', 4],
    ['juin', 6],
    ['juil', 7],
    ['août', 8],
    ['aout', 8],
    ['déc', 12],
    ['ene', 1],
    ['abr', 4],
    ['ago', 8],
    ['dic', 12],
    ['maret', 3],
    ['agu', 8],
  ] as [string, number][]),
];

/** The month (1–12) a name spells: three letters or more of it (`Sept`, `März`, `Januari`), else 0. */
export function monthNamed(word: string): number {
  if (word.length < 3) return 0;
  let best: [string, number] | undefined;
  for (const [name, month] of MONTH_NAMES)
    if (word.startsWith(name) && (!best || name.length > best[0].length)) best = [name, month];
  if (!best) return 0;
  // A word that goes on past the month's name must go on as that month's name does (`Marketing` is none).
  const english = MONTHS[best[1] - 1]!;
  const full = [
    'january',
    'february',
    'march',
    'april',
    'may',
    'june',
    'july',
    'august',
    'september',
    'october',
    'november',
    'december',
  ][best[1] - 1]!;
  if (word.length === best[0].length || full.startsWith(word) || english === word) return best[1];
  const local = [
    'januar',
    'februar',
    'märz',
    'maerz',
    'juni',
    'juli',
    'oktober',
    'dezember',
    'januari',
    'februari',
    'maret',
    'mei',
    'agustus',
    'desember',
    'janvier',
    'février',
    'fevrier',
    'avril',
    'juillet',
    'septembre',
    'octobre',
    'novembre',
    'décembre',
    'enero',
    'febrero',
    'marzo',
    'abril',
    'mayo',
    'junio',
    'julio',
    'agosto',
    'septiembre',
    'octubre',
    'noviembre',
    'diciembre',
    'sept',
    'maart',
    'augustus',
  ];
  return local.some((l) => l.startsWith(word)) ? best[1] : 0;
}

/** The last day of a month (1–12) of a year, as YYYY-MM-DD. */
export function monthEnd(year: number, month: number): string {
  const y = year + Math.floor((month - 1) / 12);
  const m = ((((month - 1) % 12) + 12) % 12) + 1;
  const day = new Date(Date.UTC(y, m, 0)).getUTCDate();
  return `${y}-${String(m).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

function fullYear(text: string): number {
  const n = Number(text);
  return text.length === 2 ? 2000 + n : n;
}

const KIND_WORDS: [RegExp, Kind][] = [
  [/\b(budget|bud|bdgt|plan|target|budsjett|budjetti)\b|(?<=\b(?:fy)?\d{2}(?:\d{2})?\s?)[bp]\b/i, 'budget'],
  [
    /\b(forecast|fcst|fc|outlook|reforecast|re-forecast|projected|projection|projections|estimate|estimated|prognose|prognos|ennuste)\b|(?<=\b(?:fy)?\d{2}(?:\d{2})?\s?)[fe]\b/i,
    'forecast',
  ],
  [/\b(actuals?|act)\b|(?<=\b(?:fy)?\d{2}(?:\d{2})?\s?)a\b/i, 'actual'],
];

/** The kind a header or block label names, if any. */
export function kindOf(text: string): Kind | undefined {
  for (const [pattern, kind] of KIND_WORDS) if (pattern.test(text)) return kind;
  return undefined;
}

/** The kind words, each compiled once to remove all of them from a header. */
const KIND_WORDS_ALL = KIND_WORDS.map(([pattern]) => new RegExp(pattern.source, 'gi'));

/** Whether a text holds a digit: every period spelled in text does. */
function hasDigit(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 48 && c <= 57) return true;
  }
  return false;
}

/** A header text without the kind words and punctuation around a period (`Jan-26 Actual` → `Jan-26`). */
function bare(text: string): string {
  let t = text;
  for (const pattern of KIND_WORDS_ALL) t = t.replace(pattern, ' ');
  return t
    .replace(/[()[\]:|]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

/**
 * The period a header cell names, in the company's fiscal calendar (`fyEndMonth`, 1–12): months
 * (`Jan-26`, `January 2026`, `2026-01`, date cells), quarters (`Q1 2026` a calendar quarter, `Q1 FY26`
 * a fiscal one), years (`FY2025`, `FY25` the fiscal year ending in 2025; `2025` likewise).
 */
export function periodOf(cell: GridCell, fyEndMonth = 12): Period | undefined {
  if (cell === null) return undefined;
  if (typeof cell === 'object') {
    const [y, m] = cell.date.split('-').map(Number);
    return { end: monthEnd(y!, m!), cadence: 'month', point: true };
  }
  if (typeof cell === 'number') {
    return Number.isInteger(cell) && cell >= 1990 && cell <= 2100
      ? { end: monthEnd(cell, fyEndMonth), cadence: 'year' }
      : undefined;
  }
  if (cell.length > 80 || !hasDigit(cell)) return undefined;
  const text = bare(cell).toLowerCase();
  if (text.length > 40) return undefined;
  const period =
    monthPeriod(text) ??
    dayPeriod(text) ??
    quarterPeriod(text, fyEndMonth) ??
    yearPeriod(text, fyEndMonth) ??
    endedPeriod(text) ??
    spannedYear(text) ??
    (/ (?:to|through|-|–) /.test(text) ? spanPeriod(cell) : undefined);
  // A period in brackets after a word: `Amount (Jun 2025)`, `Comparison Amount (As of May 2025)`.
  const inner = period ? undefined : /\(\s*(?:as (?:of|at) )?([^()]{3,30})\)\s*$/i.exec(cell)?.[1];
  return period ?? (inner ? periodOf(inner, fyEndMonth) : undefined);
}

/** `2026-01`, `Jan-26`, `January 2026`, `Mär 2026`. */
function monthPeriod(text: string): Period | undefined {
  let m = /^(\d{4})[-/.](\d{1,2})$/.exec(text);
  if (m && Number(m[2]) >= 1 && Number(m[2]) <= 12)
    return { end: monthEnd(Number(m[1]), Number(m[2])), cadence: 'month' };
  m = /^(\p{L}{3,9})\.?[\s\-'’/]*(\d{4}|\d{2})$/u.exec(text);
  const month = m ? monthNamed(m[1]!) : 0;
  return month ? { end: monthEnd(fullYear(m![2]!), month), cadence: 'month' } : undefined;
}

/**
 * A day: `31 Mar 2026`, `31-Jan-26`, `31st Dec 2024`, `March 31, 2026`, `2026-03-31`, and `31/03/2026` or
 * `03/31/2026` where only one reading makes the day its month's last (a period's end).
 */
function dayPeriod(text: string): Period | undefined {
  const at = (year: number, month: number, day: number): Period | undefined =>
    month >= 1 && month <= 12 && day >= 1 && day <= 31 && year >= 1990 && year <= 2100
      ? { end: monthEnd(year, month), cadence: 'month', point: true }
      : undefined;
  let m = /^(\d{1,2})(?:st|nd|rd|th)?[\s\-./]+(\p{L}{3,9})\.?,?[\s\-./]+(\d{4}|\d{2})$/u.exec(text);
  if (m && monthNamed(m[2]!)) return at(fullYear(m[3]!), monthNamed(m[2]!), Number(m[1]));
  m = /^(\p{L}{3,9})\.?\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{4})$/u.exec(text);
  if (m && monthNamed(m[1]!)) return at(Number(m[3]), monthNamed(m[1]!), Number(m[2]));
  m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (m) return at(Number(m[1]), Number(m[2]), Number(m[3]));
  m = /^(\d{1,2})[./-](\d{1,2})[./-](\d{4})$/.exec(text);
  if (!m) return undefined;
  const [a, b, year] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const lastDay = (month: number) => Number(monthEnd(year, month).slice(8));
  const dayFirst = b <= 12 && a === lastDay(b);
  const monthFirst = a <= 12 && b === lastDay(a);
  if (dayFirst === monthFirst) return undefined;
  return dayFirst ? at(year, b, a) : at(year, a, b);
}

/** `Q1 2026`, `Q1/25`, `1Q26` (calendar quarters); `Q1 FY26`, `FY26 Q1` (of the fiscal year). */
function quarterPeriod(text: string, fyEndMonth: number): Period | undefined {
  const m =
    /^q([1-4])[\s\-'’/]*(fy)?[\s\-'’]*(?:\d{2}(?:\d{2})?\s?[-/]\s?)?(\d{4}|\d{2})$/.exec(text) ??
    /^(?:fy)[\s\-'’]*(\d{4}|\d{2})[\s-]*q([1-4])$/.exec(text) ??
    /^([1-4])q[\s\-'’]*(fy)?[\s\-'’]*(\d{4}|\d{2})$/.exec(text);
  if (!m) return undefined;
  const fiscal = m[2] === 'fy' || text.startsWith('fy');
  const [quarter, year] = text.startsWith('fy')
    ? [Number(m[2]), fullYear(m[1]!)]
    : [Number(m[1]), fullYear(m[3]!)];
  if (!fiscal) return { end: monthEnd(year, quarter * 3), cadence: 'quarter' };
  return { end: monthEnd(year, fyEndMonth - 12 + quarter * 3), cadence: 'quarter' };
}

/**
 * A period the header says ends on a day or in a month, whatever the company's calendar: `Year ended 31
 * Mar 2025`, `FY ending June 2025`, `Twelve months to 31/03/2026`, `Quarter ended 30 Sep 2025`.
 */
function endedPeriod(text: string): Period | undefined {
  const m =
    /^(fy|financial year|fiscal year|year|12 months|twelve months|quarter|qtr|3 months|three months|month)\s+(?:ended|ending|to)\s+(.{3,20})$/.exec(
      text,
    );
  if (!m) return undefined;
  const end = monthPeriod(m[2]!) ?? dayPeriod(m[2]!);
  if (!end) return undefined;
  const cadence = /^(quarter|qtr|3 months|three months)$/.test(m[1]!)
    ? 'quarter'
    : m[1] === 'month'
      ? 'month'
      : 'year';
  return { end: end.end, cadence };
}

/** `FY26 (Apr–Mar)`, `2025/26 Jul-Jun`: a fiscal year that its header says runs to a month. */
function spannedYear(text: string): Period | undefined {
  const m = /^(?:fy)?\s?(\d{4}|\d{2})(?:\s?[-/]\s?\d{2,4})?\s+(\p{L}{3,9})\s?[-–]\s?(\p{L}{3,9})$/u.exec(
    text,
  );
  const [from, to] = m ? [monthNamed(m[2]!), monthNamed(m[3]!)] : [0, 0];
  if (!m || !from || !to || (to % 12) + 1 !== from) return undefined;
  const written = m[0]!.match(/\d{2,4}/g)!;
  const year = fullYear(written[written.length - 1]!);
  return year >= 1990 && year <= 2100 ? { end: monthEnd(year, to), cadence: 'year' } : undefined;
}

/** `FY2025`, `FY25`, `2025` (the fiscal year ending then), `FY 2024/25`, `2024-25`, `FY17-18` (ending in the later). */
function yearPeriod(text: string, fyEndMonth: number): Period | undefined {
  let m = /^(?:fy|fye|year)?[\s\-'’]*(\d{4}|\d{2})$/.exec(text);
  if (m && (m[1]!.length === 4 || text.startsWith('f') || text.startsWith('y'))) {
    const year = fullYear(m[1]!);
    if (year >= 1990 && year <= 2100) return { end: monthEnd(year, fyEndMonth), cadence: 'year' };
  }
  m = /^(?:fy)?\s?(\d{4}|\d{2})\s?[-/]\s?(\d{4}|\d{2})$/.exec(text);
  if (!m) return undefined;
  const [first, second] = [
    fullYear(m[1]!),
    m[2]!.length === 2 ? Math.floor(fullYear(m[1]!) / 100) * 100 + Number(m[2]) : Number(m[2]),
  ];
  if (second !== first + 1 || second < 1990 || second > 2100) return undefined;
  return { end: monthEnd(second, fyEndMonth === 12 ? 12 : fyEndMonth), cadence: 'year' };
}

const CADENCE_WORDS: [RegExp, Period['cadence']][] = [
  [/\b(year|twelve months|12 months|annual)\b/i, 'year'],
  [/\b(quarter|three months|3 months)\b/i, 'quarter'],
  [/\bmonth\b/i, 'month'],
];

const monthsBetween = (from: string, to: string) =>
  (Number(to.slice(0, 4)) - Number(from.slice(0, 4))) * 12 +
  Number(to.slice(5, 7)) -
  Number(from.slice(5, 7)) +
  1;

/** A span of months as the period it is: one month, a quarter, a year; else none of ours. */
function spanned(from: Period, to: Period): Period | undefined {
  const months = monthsBetween(from.end, to.end);
  const cadence = months === 1 ? 'month' : months === 3 ? 'quarter' : months === 12 ? 'year' : undefined;
  return cadence ? { end: to.end, cadence } : undefined;
}

/**
 * The month a day or month at the end of a text names (`Income Statement 08/01/2025`), a numeric day read
 * so that it is the first of its month (a span's start) or the last (its end) when only one reading is.
 */
function dayAtEnd(text: string, edge: 'first' | 'last'): Period | undefined {
  const words = text.trim().split(' ');
  for (let k = Math.min(4, words.length); k >= 1; k--) {
    const tail = words.slice(-k).join(' ');
    const m = /^(\d{1,2})[./-](\d{1,2})[./-](\d{4})$/.exec(tail);
    if (!m) {
      const period = periodOf(tail);
      if (period) return period;
      continue;
    }
    const [a, b, year] = [Number(m[1]), Number(m[2]), Number(m[3])];
    const fits = (month: number, day: number) =>
      month >= 1 && month <= 12 && day === (edge === 'first' ? 1 : Number(monthEnd(year, month).slice(8)));
    const readings = [fits(b, a) ? b : 0, fits(a, b) ? a : 0].filter(Boolean);
    if (readings.length === 1) return { end: monthEnd(year, readings[0]!), cadence: 'month' };
  }
  return undefined;
}

/** `January - March, 2026`: the start's year is the end's. */
function withYearOf(start: string, end: Period): Period | undefined {
  const year = Number(end.end.slice(0, 4));
  const own = dayAtEnd(start, 'first');
  if (own) return own;
  const month = periodOf(`${start.trim()} ${year}`);
  if (!month) return undefined;
  // A span that ends in a month before it starts runs over the new year.
  return month.end > end.end ? { ...month, end: monthEnd(year - 1, Number(month.end.slice(5, 7))) } : month;
}

/** A span of days or months: `Oct 1, 2024 – Sep 30, 2025`, `08/01/2025 to 08/31/2025`, `January - March 2026`. */
function spanPeriod(text: string): Period | undefined {
  const t = text.replace(/,/g, ' ').replace(/\s+/g, ' ').trim();
  const m = t.length <= 120 ? /^(.{3,80}?) (?:to|through|thru|-|–) (.{3,30})$/i.exec(t) : null;
  if (!m) return undefined;
  const end = dayAtEnd(m[2]!, 'last');
  const start = end && withYearOf(m[1]!, end);
  return end && start ? spanned(start, end) : undefined;
}

/**
 * The period a statement's title names: `08/01/2025 to 08/31/2025`, `From 01 Jan 2025 To 31 Dec 2025`,
 * `January - March, 2026` (a month, quarter or year spanned); `For the year ended 31st Dec 2024`,
 * `Three months ended March 31, 2026`; `As at 31 March 2026` (a balance sheet's day, its month).
 */
export function titlePeriod(text: string): Period | undefined {
  const t = text.replace(/,/g, ' ').replace(/\s+/g, ' ').trim();
  if (t.length > 120) return undefined;
  const span = spanPeriod(t);
  if (span) return span;
  let m = /\b(?:ended|ending) (.{3,30})$/i.exec(t);
  if (m) {
    const day = periodOf(m[1]!);
    const cadence = CADENCE_WORDS.find(([pattern]) => pattern.test(t))?.[1];
    return day && cadence ? { end: day.end, cadence } : undefined;
  }
  m = /\bas (?:at|of) (.{3,30})$/i.exec(t);
  const day = m ? periodOf(m[1]!) : undefined;
  return day ? { end: day.end, cadence: 'month' } : undefined;
}
