import type { Knex } from 'knex';
import { standardCategoryId } from '../../core/categories.ts';
import { newId } from '../../db/ids.ts';
import { eventsRepo } from '../../db/repos/events.ts';

const T0 = '2026-01-01T00:00:00.000Z';

export interface DatumSeed {
  firmId: string;
  companyId: string;
  /** A standard category name, or the id of a custom category made with `insertCustomCategory`. */
  category: string;
  value: string;
  currency?: string | null;
  date?: string;
  cadence?: string;
  archived?: boolean;
  deletedAt?: string | null;
  budgetId?: string | null;
}

/** Inserts one metric datum and returns its id. */
export async function insertDatum(db: Knex, seed: DatumSeed): Promise<string> {
  const id = newId();
  const categoryId = seed.category.startsWith('cat_') ? seed.category : standardCategoryId(seed.category);
  await db('metric_data').insert({
    id,
    firm_id: seed.firmId,
    company_id: seed.companyId,
    category_id: categoryId,
    cadence: seed.cadence ?? 'month',
    date: seed.date ?? '2026-01-31',
    value: seed.value,
    currency: seed.currency === undefined ? 'USD' : seed.currency,
    budget_id: seed.budgetId ?? null,
    detailed_source: 'test',
    archived: seed.archived ?? false,
    deleted_at: seed.deletedAt ?? null,
    created_at: T0,
    updated_at: T0,
  });
  return id;
}

/** Inserts a custom metric of a firm and returns its id (prefixed `cat_`). */
export async function insertCustomCategory(
  db: Knex,
  firmId: string,
  name: string,
  type: 'text' | 'select' | 'number' | 'currency',
  options: { choices?: string[]; pointInTime?: boolean } = {},
): Promise<string> {
  const id = `cat_${newId()}`;
  await db('metric_categories').insert({
    id,
    firm_id: firmId,
    name,
    is_standard: false,
    category_type: type,
    is_point_in_time: options.pointInTime ?? true,
    is_archived: false,
    is_multiple: false,
    choices: options.choices ? JSON.stringify(options.choices) : null,
    created_at: T0,
  });
  return id;
}

export async function insertFxRate(
  db: Knex,
  firmId: string,
  from: string,
  to: string,
  date: string,
  rate: string,
): Promise<void> {
  await db('fx_rates').insert({
    id: newId(),
    firm_id: firmId,
    from_currency: from,
    to_currency: to,
    date,
    rate,
  });
}

/**
 * Appends the change event the write path records with a metric change, for a test that writes rows
 * directly: portfolio figures are cached per company until its next event.
 */
export async function announceMetricChange(db: Knex, firmId: string, companyId: string): Promise<void> {
  await eventsRepo(db).append({
    firmId,
    type: 'metric.updated',
    companyId,
    actorType: 'system',
    actorId: null,
    occurredAt: new Date().toISOString(),
    resourceType: 'metric',
    resourceId: null,
    data: {},
  });
}
