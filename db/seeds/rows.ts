/**
 * The rows a seed produces, collected per table in memory and inserted afterwards in bulk, in an
 * order that satisfies the foreign keys; plus the context the generators share.
 */
import { STANDARD_CATEGORIES, type StandardCategory, standardCategoryId } from '../../core/categories.ts';
import type { CompanyModel } from './demo-model.ts';
import type { CompanySpec, FirmSpec } from './demo-world.ts';
import type { FxTable } from './fx.ts';
import type { IdGen, Rng } from './random.ts';
import { fmtCents } from './values.ts';

export type Value = string | number | boolean | null | Buffer;
export type Row = Record<string, Value>;

/** Every table the demo data fills, parents before children. */
export const SEED_TABLES = [
  'firms',
  'users',
  'funds',
  'companies',
  'user_companies',
  'company_funds',
  'metric_categories',
  'budgets',
  'metric_data',
  'metric_comments',
  'metric_history',
  'fx_rates',
  'document_files',
  'information_requests',
  'information_request_companies',
  'information_request_documents',
  'information_request_metrics',
  'information_reports',
  'information_report_documents',
  'information_report_metrics',
  'documents',
  'document_texts',
  'notes',
  'custom_columns',
  'custom_column_options',
  'custom_column_values',
  'financings',
  'financing_co_investors',
  'financing_pari_passu',
  'share_classes',
  'securities',
  'transactions',
  'fair_value_overrides',
  'oauth_applications',
] as const;
export type SeedTable = (typeof SEED_TABLES)[number];

export class SeedRows {
  private readonly byTable = new Map<SeedTable, Row[]>(SEED_TABLES.map((t) => [t, []]));

  add<R extends Row>(table: SeedTable, row: R): R {
    this.byTable.get(table)!.push(row);
    return row;
  }

  get(table: SeedTable): Row[] {
    return this.byTable.get(table)!;
  }

  counts(): Record<string, number> {
    return Object.fromEntries(SEED_TABLES.map((t) => [t, this.get(t).length]));
  }
}

export interface UserRef {
  id: string;
  name: string;
  email: string;
  role: string;
}

export interface CategoryRef {
  id: string;
  name: string;
  kind: string;
  pointInTime: boolean;
}

export interface CompanyCtx {
  spec: CompanySpec;
  id: string;
  slug: string;
  rng: Rng;
  model: CompanyModel;
  /** Date of the first financing, which opens the relationship. */
  firstDate: string;
}

export interface FirmCtx {
  spec: FirmSpec;
  id: string;
  rows: SeedRows;
  ids: IdGen;
  fx: FxTable;
  rng: Rng;
  users: Map<string, UserRef>;
  funds: Map<string, { id: string; name: string }>;
  companies: CompanyCtx[];
  customCategories: Map<string, CategoryRef>;
}

const standard = new Map<string, StandardCategory>(STANDARD_CATEGORIES.map((c) => [c.name, c]));

export function standardCategory(name: string): CategoryRef {
  const c = standard.get(name);
  if (!c) throw new Error(`unknown standard category ${name}`);
  return { id: standardCategoryId(name), name, kind: c.kind, pointInTime: c.pointInTime };
}

export interface MetricOptions {
  cadence?: string;
  createdAt: string;
  updatedAt?: string;
  source: string;
  budgetId?: string | null;
  archived?: boolean;
  deletedAt?: string | null;
}

/** Adds one metric datum; money categories carry the company currency, other kinds none. */
export function addMetric(
  firm: FirmCtx,
  company: CompanyCtx,
  category: CategoryRef,
  date: string,
  value: string,
  options: MetricOptions,
): Row {
  return firm.rows.add('metric_data', {
    id: firm.ids.next('md'),
    firm_id: firm.id,
    company_id: company.id,
    category_id: category.id,
    cadence: options.cadence ?? (category.pointInTime ? 'point_in_time' : 'month'),
    date,
    value,
    currency: category.kind === 'currency' ? company.spec.currency : null,
    budget_id: options.budgetId ?? null,
    detailed_source: options.source,
    archived: options.archived ?? false,
    deleted_at: options.deletedAt ?? null,
    created_at: options.createdAt,
    updated_at: options.updatedAt ?? options.deletedAt ?? options.createdAt,
  });
}

/** A money object of a security's details: {value, currency, fx_rate, is_custom_rate}. */
export function moneyJson(firm: FirmCtx, cents: number, currency: string, date: string) {
  return {
    value: fmtCents(cents),
    currency,
    fx_rate: firm.fx.rate(currency, firm.spec.currency, date),
    is_custom_rate: false,
  };
}
