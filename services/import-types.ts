// The shapes of an import: what it reads, what its checks resolve, and what it reports.
import type { Knex } from 'knex';
import type { Firm } from '../core/principal.ts';

/** One thing wrong with the input, located as the user can find it (`line 7`, `metrics[3]`). */
export interface ImportProblem {
  /** Position in the file, for sorting problems into file order. */
  order: number;
  where: string;
  message: string;
}

/** The input had problems; nothing was written. */
export class ImportRejected extends Error {
  constructor(readonly problems: ImportProblem[]) {
    super(`${problems.length} problem(s) in the import; nothing was written`);
    this.name = 'ImportRejected';
  }
}

export interface Located {
  where: string;
  order: number;
}

export const COMPANY_FIELDS = [
  'name',
  'description',
  'sector',
  'firm_sector',
  'city',
  'status',
  'unique_ref',
  'website',
  'logo_url',
  'fiscal_year_end',
  'reporting_currency',
] as const;
export type CompanyField = (typeof COMPANY_FIELDS)[number];

export interface ImportCompany extends Located {
  slug: string;
  /** Only the fields the input gave; the others keep their stored (or default) values. */
  fields: Partial<Record<CompanyField, string>>;
}

export interface ImportBudget extends Located {
  company_slug: string;
  name: string;
  date: string;
  color?: string;
  description?: string;
}

export interface ImportMetric extends Located {
  company_slug: string;
  /** A standard category, a custom metric's name, or `custom` with `custom_metric`. */
  category: string;
  custom_metric?: string;
  date: string;
  cadence: string;
  value: string;
  currency: string | null;
  /** Name of a budget of the same company, for budget metrics. */
  budget?: string;
}

export interface ImportNote extends Located {
  company_slug: string;
  /** E-mail address of the author, a user of the firm. */
  email: string;
  note: string;
  created_at?: string;
}

export interface ImportMoney {
  value: string | null;
  currency: string | null;
  /** A rate given by the user (stored as custom); otherwise the firm's rate at the closing date. */
  fx_rate: string | null;
}

export interface ImportFinancing extends Located {
  company_slug: string;
  name: string;
  closing_date: string;
  pre_money_valuation: ImportMoney | null;
  round_size: ImportMoney | null;
  fully_diluted_shares: string | null;
  co_investors: { name: string; is_lead: boolean }[];
  is_crypto: boolean;
  liquidation_multiple: string | null;
  cap_multiple: string | null;
  seniority_position: string | null;
  participation_type: string | null;
  /** Other rounds of the same company, by id or by name (a round of this import may be named). */
  pari_passu_rounds: string[];
}

export interface ImportData {
  companies: ImportCompany[];
  budgets: ImportBudget[];
  metrics: ImportMetric[];
  notes: ImportNote[];
  financings: ImportFinancing[];
}

export interface ImportCounts {
  created: number;
  updated: number;
  skipped: number;
}

export interface ImportOptions {
  /** The instant stamped on created and updated rows. */
  now: string;
  /** Problems already found while parsing; they are reported together with the ones found here. */
  problems?: ImportProblem[];
  onProgress?: (done: number, total: number) => void;
}

/** Who changed a metric in metric_history when the change came from an import. */
export const IMPORT_AUTHOR = 'import';

/** A stored company, with the columns an import may set. */
export type CompanyRow = { id: string; slug: string; reporting_currency: string } & Partial<
  Record<CompanyField, string | null>
>;

export interface CompanyRecord {
  id: string;
  slug: string;
  reporting_currency: string;
  stored?: CompanyRow;
}

export interface BudgetRow {
  id: string;
  company_id: string;
  name: string;
  date: string;
  color: string | null;
  description: string | null;
}

export interface CategoryRow {
  id: string;
  name: string;
  is_standard: unknown;
  category_type: string;
  is_point_in_time: unknown;
  choices: string | null;
}

export interface Category {
  id: string;
  name: string;
  is_standard: boolean;
  category_type: string;
  is_point_in_time: boolean;
  choices: string[];
}

/** What the checks resolved, ready to write. */
export interface Plan {
  companies: { item: ImportCompany; record: CompanyRecord }[];
  budgets: { item: ImportBudget; id: string; companyId: string; existing?: BudgetRow }[];
  metrics: { item: ImportMetric; companyId: string; category: Category; budgetId: string | null }[];
  notes: { item: ImportNote; companyId: string; authorId: string }[];
  financings: {
    item: ImportFinancing;
    id: string;
    companyId: string;
    existing: boolean;
    pariPassu: string[];
  }[];
}

/** What every step of the checks shares. */
export interface Checks {
  db: Knex;
  firm: Firm;
  plan: Plan;
  problem(item: Located, message: string): void;
  /** The newest date actual (non-budget) data may have: the end of the current month. */
  latest: string;
  /** The item's company, or undefined after reporting its unknown slug. */
  companyOf(item: Located & { company_slug: string }): CompanyRecord | undefined;
}
