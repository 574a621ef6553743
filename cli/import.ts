// Reading `portfolio import` files: a JSON bundle or a metrics CSV, checked field by field into the
// plain items db/import.ts resolves and writes. Every problem is kept with where it was found.
import { z } from 'zod';
import { decimalDigitsProblem } from '../core/decimal.ts';
import type { ImportContact } from '../services/contacts.ts';
import {
  COMPANY_FIELDS,
  type ImportData,
  type ImportMetric,
  type ImportMoney,
  type ImportProblem,
} from '../services/import.ts';
import { fieldName } from '../tools/run.ts';
import { CurrencyCode } from '../tools/schemas/currency.ts';
import { CsvSyntaxError, parseCsv } from './csv.ts';

export interface ParsedImport {
  data: ImportData;
  /** Problems of shape and format; items with a problem are left out of `data`. */
  problems: ImportProblem[];
}

const CSV_COLUMNS = ['company_slug', 'category', 'date', 'cadence', 'value', 'currency'] as const;
const OPTIONAL_CSV_COLUMNS = ['budget', 'custom_metric'] as const;

const isoDate = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date YYYY-MM-DD')
  .refine((s) => {
    const d = new Date(`${s}T00:00:00Z`);
    return !Number.isNaN(d.getTime()) && d.toISOString().startsWith(s);
  }, 'is not a calendar date');

/**
 * A JSON number becomes its shortest decimal text; one beyond 2^53 may already have lost digits in
 * JSON parsing, so it must come as a string instead.
 */
const exactNumber = z
  .union([z.number(), z.string()], { error: 'must be a number or a string' })
  .transform((v, ctx) => {
    if (typeof v === 'string') return v;
    if (Math.abs(v) > Number.MAX_SAFE_INTEGER) {
      ctx.addIssue({
        code: 'custom',
        message: 'is too large to be exact as a JSON number: give it as a string',
      });
      return z.NEVER;
    }
    return String(v);
  });

/** A JSON number or a numeric string, kept as a plain decimal string (never a float). */
const decimal = exactNumber
  .refine((s) => /^-?\d+(\.\d+)?$/.test(s), 'must be a decimal number such as 1234.56')
  .superRefine((s, ctx) => {
    const digits = decimalDigitsProblem(s);
    if (digits) ctx.addIssue({ code: 'custom', message: digits });
  });
const nonNegative = decimal.refine((s) => !s.startsWith('-'), 'must not be negative');

const text = (max: number) => z.string().max(max);
const slug = z
  .string()
  .min(1)
  .max(255)
  .regex(/^[a-z0-9][a-z0-9_-]*$/, 'must be lower-case letters, digits, - and _');
/** A reference to a company by slug: checked against the firm's companies, whatever their spelling. */
const companySlug = z.string().min(1).max(255);

const CompanyIn = z.strictObject({
  id: z.unknown().optional(),
  slug,
  name: z.string().min(1).max(255).optional(),
  description: z.string().optional(),
  sector: text(255).optional(),
  firm_sector: text(255).optional(),
  city: text(255).optional(),
  status: text(64).optional(),
  unique_ref: text(255).optional(),
  website: text(255).optional(),
  logo_url: z.string().optional(),
  fiscal_year_end: z
    .string()
    .regex(/^(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/, 'must be MM-DD')
    .optional(),
  reporting_currency: CurrencyCode.optional(),
});

const BudgetIn = z.strictObject({
  id: z.unknown().optional(),
  company_slug: companySlug,
  name: z.string().min(1).max(255),
  date: isoDate,
  color: z
    .string()
    .regex(/^#[0-9a-fA-F]{6}$/, 'must be a hex colour such as #1a2b3c')
    .optional(),
  description: z.string().optional(),
});

const MetricIn = z.strictObject({
  id: z.unknown().optional(),
  company_slug: companySlug,
  category: z.string().min(1).max(255),
  custom_metric: z.string().min(1).max(255).nullish(),
  date: isoDate,
  cadence: z.enum(['point_in_time', 'month', 'quarter', 'year']),
  value: exactNumber.pipe(z.string().min(1).max(255)),
  currency: CurrencyCode.nullish(),
  budget: z.string().min(1).max(255).nullish(),
});

const NoteIn = z.strictObject({
  id: z.unknown().optional(),
  company_slug: companySlug,
  email: z.string().min(3).max(255),
  note: z.string().min(1),
  // Stored like every other instant: ISO 8601 UTC with milliseconds, so they order as text.
  created_at: z.iso
    .datetime({ offset: true })
    .transform((s) => new Date(s).toISOString())
    .optional(),
});

const MoneyIn = z
  .object({
    value: nonNegative.nullish(),
    currency: CurrencyCode.nullish(),
    fx_rate: nonNegative.nullish(),
    // Read-only in the spec's MoneyAmount: accepted and ignored.
    converted_value: z.unknown().optional(),
    converted_currency: z.unknown().optional(),
    is_custom_rate: z.unknown().optional(),
  })
  .strict()
  .superRefine((m, ctx) => {
    if ((m.value ?? null) !== null && (m.currency ?? null) === null) {
      ctx.addIssue({ code: 'custom', path: ['currency'], message: 'is required when value is set' });
    }
  });

const FinancingIn = z
  .strictObject({
    id: z.unknown().optional(),
    company_slug: companySlug,
    name: z.string().min(1).max(255),
    closing_date: isoDate,
    pre_money_valuation: MoneyIn.nullish(),
    round_size: MoneyIn.nullish(),
    fully_diluted_shares: nonNegative.nullish(),
    co_investors: z
      .array(z.strictObject({ name: z.string().min(1).max(255), is_lead: z.boolean().default(false) }))
      .default([]),
    is_crypto: z.boolean().default(false),
    liquidation_multiple: nonNegative.nullish(),
    cap_multiple: nonNegative.nullish(),
    seniority_position: z.enum(['SENIOR_TO_ALL', 'PARI_PASSU', 'PARI_PASSU_ALL_PREVIOUS']).nullish(),
    participation_type: z
      .enum(['NON_PARTICIPATING', 'FULLY_PARTICIPATING', 'CAPPED_PARTICIPATING'])
      .nullish(),
    pari_passu_rounds: z.array(z.string().min(1)).nullish(),
  })
  .superRefine((f, ctx) => {
    if (f.pari_passu_rounds?.length && f.seniority_position !== 'PARI_PASSU') {
      ctx.addIssue({
        code: 'custom',
        path: ['pari_passu_rounds'],
        message: 'is allowed only with seniority_position PARI_PASSU',
      });
    }
    const capped = f.participation_type === 'CAPPED_PARTICIPATING';
    if (capped && (f.cap_multiple === null || f.cap_multiple === undefined)) {
      ctx.addIssue({
        code: 'custom',
        path: ['cap_multiple'],
        message: 'is required with CAPPED_PARTICIPATING',
      });
    }
    if (!capped && f.cap_multiple !== null && f.cap_multiple !== undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['cap_multiple'],
        message: 'is allowed only with participation_type CAPPED_PARTICIPATING',
      });
    }
  });

const sections = ['companies', 'budgets', 'metrics', 'notes', 'financings'] as const;
type Section = (typeof sections)[number];

/** Sorts bundle problems by section, then item, whatever order they were found in. */
function bundleOrder(section: Section, index: number): number {
  return sections.indexOf(section) * 10_000_000 + index;
}

function issueMessages(error: z.ZodError): string[] {
  return error.issues.map((issue) => {
    const field = fieldName(issue.path);
    const missing = issue.code === 'invalid_type' && /received undefined/.test(issue.message);
    const message =
      issue.code === 'unrecognized_keys'
        ? `unknown field(s) ${issue.keys.join(', ')}`
        : missing
          ? 'is required'
          : issue.message;
    const lowered = message.charAt(0).toLowerCase() + message.slice(1);
    return field ? `${field}: ${lowered}` : lowered;
  });
}

function toMoney(m: z.output<typeof MoneyIn> | null | undefined): ImportMoney | null {
  if (!m) return null;
  return { value: m.value ?? null, currency: m.currency ?? null, fx_rate: m.fx_rate ?? null };
}

const empty = (): ImportData => ({ companies: [], budgets: [], metrics: [], notes: [], financings: [] });

/** Checks one bundle item and adds it to `data`; answers the problems instead when it has any. */
function addItem(
  data: ImportData,
  section: Section,
  raw: unknown,
  where: string,
  order: number,
): z.ZodError | undefined {
  if (section === 'companies') {
    const parsed = CompanyIn.safeParse(raw);
    if (!parsed.success) return parsed.error;
    const fields: Partial<Record<(typeof COMPANY_FIELDS)[number], string>> = {};
    for (const f of COMPANY_FIELDS) if (parsed.data[f] !== undefined) fields[f] = parsed.data[f];
    data.companies.push({ where, order, slug: parsed.data.slug, fields });
  } else if (section === 'budgets') {
    const parsed = BudgetIn.safeParse(raw);
    if (!parsed.success) return parsed.error;
    const { id: _id, ...budget } = parsed.data;
    data.budgets.push({ where, order, ...budget });
  } else if (section === 'metrics') {
    const parsed = MetricIn.safeParse(raw);
    if (!parsed.success) return parsed.error;
    data.metrics.push(toMetric(parsed.data, where, order));
  } else if (section === 'notes') {
    const parsed = NoteIn.safeParse(raw);
    if (!parsed.success) return parsed.error;
    const { id: _id, ...note } = parsed.data;
    data.notes.push({ where, order, ...note });
  } else {
    const parsed = FinancingIn.safeParse(raw);
    if (!parsed.success) return parsed.error;
    const f = parsed.data;
    data.financings.push({
      where,
      order,
      company_slug: f.company_slug,
      name: f.name,
      closing_date: f.closing_date,
      pre_money_valuation: toMoney(f.pre_money_valuation),
      round_size: toMoney(f.round_size),
      fully_diluted_shares: f.fully_diluted_shares ?? null,
      co_investors: f.co_investors,
      is_crypto: f.is_crypto,
      liquidation_multiple: f.liquidation_multiple ?? null,
      cap_multiple: f.cap_multiple ?? null,
      seniority_position: f.seniority_position ?? null,
      participation_type: f.participation_type ?? null,
      pari_passu_rounds: f.pari_passu_rounds ?? [],
    });
  }
  return undefined;
}

/** A JSON bundle `{companies, budgets, metrics, notes, financings}`; problems are named by JSON path. */
export function parseBundle(textContent: string): ParsedImport {
  const data = empty();
  const problems: ImportProblem[] = [];
  let json: unknown;
  try {
    json = JSON.parse(textContent);
  } catch (err) {
    problems.push({ order: 0, where: 'file', message: `is not valid JSON: ${(err as Error).message}` });
    return { data, problems };
  }
  if (!json || typeof json !== 'object' || Array.isArray(json)) {
    problems.push({
      order: 0,
      where: 'file',
      message: 'must be a JSON object {companies, budgets, metrics, notes, financings}',
    });
    return { data, problems };
  }
  const top = json as Record<string, unknown>;
  const unknown = Object.keys(top).filter((k) => !(sections as readonly string[]).includes(k));
  if (unknown.length > 0) {
    problems.push({
      order: 0,
      where: 'file',
      message: `unknown section(s) ${unknown.join(', ')}; a bundle has ${sections.join(', ')}`,
    });
  }
  for (const section of sections) {
    const list = top[section];
    if (list === undefined) continue;
    if (!Array.isArray(list)) {
      problems.push({ order: bundleOrder(section, 0), where: section, message: 'must be an array' });
      continue;
    }
    list.forEach((raw, index) => {
      const where = `${section}[${index}]`;
      const order = bundleOrder(section, index);
      const error = addItem(data, section, raw, where, order);
      if (error) for (const message of issueMessages(error)) problems.push({ order, where, message });
    });
  }
  return { data, problems };
}

function toMetric(m: z.output<typeof MetricIn>, where: string, order: number): ImportMetric {
  return {
    where,
    order,
    company_slug: m.company_slug,
    category: m.category,
    ...(m.custom_metric ? { custom_metric: m.custom_metric } : {}),
    date: m.date,
    cadence: m.cadence,
    value: m.value,
    currency: m.currency ?? null,
    ...(m.budget ? { budget: m.budget } : {}),
  };
}

/**
 * A metrics CSV with the header `company_slug,category,date,cadence,value,currency` (any order;
 * `budget` and `custom_metric` columns are optional). Problems are named by line number.
 */
export function parseMetricsCsv(textContent: string): ParsedImport {
  const data = empty();
  const problems: ImportProblem[] = [];
  let records: ReturnType<typeof parseCsv>;
  try {
    records = parseCsv(textContent);
  } catch (err) {
    if (!(err instanceof CsvSyntaxError)) throw err;
    problems.push({ order: err.line, where: `line ${err.line}`, message: err.message });
    return { data, problems };
  }
  const [header, ...rows] = records;
  if (!header) {
    problems.push({
      order: 1,
      where: 'line 1',
      message: `the file is empty; the header is ${CSV_COLUMNS.join(',')}`,
    });
    return { data, problems };
  }
  const columns = header.fields.map((f) => f.trim().toLowerCase());
  const known: readonly string[] = [...CSV_COLUMNS, ...OPTIONAL_CSV_COLUMNS];
  const missing = CSV_COLUMNS.filter((c) => !columns.includes(c));
  const unknown = columns.filter((c) => !known.includes(c));
  const repeated = columns.filter((c, i) => columns.indexOf(c) !== i);
  if (missing.length > 0 || unknown.length > 0 || repeated.length > 0) {
    const parts = [
      missing.length ? `missing column(s) ${missing.join(', ')}` : '',
      unknown.length ? `unknown column(s) ${unknown.join(', ')}` : '',
      repeated.length ? `repeated column(s) ${repeated.join(', ')}` : '',
    ].filter(Boolean);
    problems.push({
      order: header.line,
      where: `line ${header.line}`,
      message: `${parts.join('; ')}: the header is ${CSV_COLUMNS.join(',')} (optional: ${OPTIONAL_CSV_COLUMNS.join(', ')})`,
    });
    return { data, problems };
  }
  for (const record of rows) {
    const where = `line ${record.line}`;
    if (record.fields.length !== columns.length) {
      problems.push({
        order: record.line,
        where,
        message: `has ${record.fields.length} field(s), the header has ${columns.length}`,
      });
      continue;
    }
    const raw: Record<string, string> = {};
    columns.forEach((c, i) => {
      raw[c] = record.fields[i]!;
    });
    const parsed = MetricIn.safeParse({
      company_slug: raw.company_slug,
      category: raw.category,
      date: raw.date,
      cadence: raw.cadence,
      value: raw.value,
      currency: raw.currency === '' ? null : raw.currency,
      ...(raw.budget ? { budget: raw.budget } : {}),
      ...(raw.custom_metric ? { custom_metric: raw.custom_metric } : {}),
    });
    if (!parsed.success) {
      for (const message of issueMessages(parsed.error))
        problems.push({ order: record.line, where, message });
      continue;
    }
    data.metrics.push(toMetric(parsed.data, where, record.line));
  }
  return { data, problems };
}

const CONTACT_COLUMNS = ['company_slug', 'name', 'email'] as const;

/** Whether a CSV's header is exactly that of a contacts file (`company_slug,name,email`, any order). */
export function isContactsCsv(textContent: string): boolean {
  const firstLine = textContent.replace(/^\ufeff/, '').split(/\r?\n/, 1)[0] ?? '';
  const columns = firstLine.split(',').map((c) => c.trim().toLowerCase());
  return columns.length === CONTACT_COLUMNS.length && CONTACT_COLUMNS.every((c) => columns.includes(c));
}

/**
 * A contacts CSV with the header `company_slug,name,email` (any order): one contact per line, for the
 * contacts service to check against the firm. Problems of form are named by line number.
 */
export function parseContactsCsv(textContent: string): {
  contacts: ImportContact[];
  problems: ImportProblem[];
} {
  const contacts: ImportContact[] = [];
  const problems: ImportProblem[] = [];
  let records: ReturnType<typeof parseCsv>;
  try {
    records = parseCsv(textContent);
  } catch (err) {
    if (!(err instanceof CsvSyntaxError)) throw err;
    return { contacts, problems: [{ order: err.line, where: `line ${err.line}`, message: err.message }] };
  }
  const [header, ...rows] = records;
  const columns = (header?.fields ?? []).map((f) => f.trim().toLowerCase());
  for (const record of rows) {
    const where = `line ${record.line}`;
    if (record.fields.length !== columns.length) {
      const message = `has ${record.fields.length} field(s), the header has ${columns.length}`;
      problems.push({ order: record.line, where, message });
      continue;
    }
    const field = (name: string) => record.fields[columns.indexOf(name)]!.trim();
    const item = { company_slug: field('company_slug'), name: field('name'), email: field('email') };
    const missing = CONTACT_COLUMNS.filter((c) => item[c] === '');
    for (const c of missing) problems.push({ order: record.line, where, message: `${c}: is required` });
    if (missing.length === 0) contacts.push({ where, order: record.line, ...item });
  }
  return { contacts, problems };
}

/** A bundle when the file is JSON (by its name, or by its first character), else a metrics CSV. */
export function parseImportFile(fileName: string, content: string): ParsedImport {
  const lower = fileName.toLowerCase();
  const json = lower.endsWith('.json') || (!lower.endsWith('.csv') && content.trimStart().startsWith('{'));
  return json ? parseBundle(content) : parseMetricsCsv(content);
}
