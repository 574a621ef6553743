import type { Knex } from 'knex';
import { parseChoices } from '../../core/categories.ts';
import type { PeriodEnds } from '../../core/fiscal.ts';
import type { Scope } from '../../core/principal.ts';
import { kept, Literal } from '../kept.ts';
import { isPostgres } from '../knex.ts';
import type { Counted, Page } from '../types.ts';
import { latestRates, rateKey } from './fx-rates.ts';
import { bool, byName, countAndPage, countAndPageKept, type QB, scoped, whereContains } from './util.ts';

/** A standard category (firm_id null) or one firm's custom metric. */
export interface CategoryRow {
  id: string;
  firm_id: string | null;
  name: string;
  is_standard: boolean;
  category_type: string;
  is_point_in_time: boolean;
  is_archived: boolean;
  is_multiple: boolean;
  /** Choices of a select metric, in order; empty for every other kind. */
  choices: string[];
  created_at: string;
}

export interface CategoryFilter {
  name?: string;
  id?: string;
  isStandard?: boolean;
  isPointInTime?: boolean;
  isArchived?: boolean;
  /** Only categories of these value kinds (`category_type`). */
  types?: string[];
  /** Only select metrics offering every one of these choices. */
  choices?: string[];
  isMultiple?: boolean;
}

/** One metric datum with the category it belongs to. */
export interface DatumRow {
  id: string;
  firm_id: string;
  company_id: string;
  category_id: string;
  cadence: string;
  date: string;
  value: string;
  currency: string | null;
  budget_id: string | null;
  detailed_source: string;
  archived: boolean;
  deleted_at: string | null;
  created_at: string;
  updated_at: string;
  category_name: string;
  category_type: string;
  is_standard: boolean;
}

/** A datum with the rate of its currency into the firm's preferred currency on its date, if one is known. */
export interface DatumWithRate extends DatumRow {
  /** Exact decimal text; `1` when the datum is already in the preferred currency; null when unknown. */
  fx_rate: string | null;
}

export interface DatumFilter {
  /** Always given: a company's metrics are read through the company indexes. */
  companyIds: string[];
  /** Only these categories; undefined for all. */
  categoryIds?: string[];
  /** Inclusive `YYYY-MM-DD` bounds on the datum date. */
  from?: string;
  to?: string;
  /** Only this budget's metrics. */
  budgetId?: string;
  /** Budget metrics are left out unless asked for. */
  includeBudgets?: boolean;
  includeDeleted?: boolean;
  /** Archived metrics are included unless this is false. */
  includeArchived?: boolean;
  cadence?: string;
  /** Inclusive ISO 8601 UTC bounds on updated_at (the stored form, `…T…Z` with milliseconds). */
  updatedFrom?: string;
  updatedTo?: string;
  /** Only data of these cadences dated at one of these 'MM-DD' endings (other cadences: any date). */
  periodEnds?: PeriodEnds;
}

/** `date`: date, category name, id; `created_asc`/`created_desc`: by created_at, then id. */
export type DatumOrder = 'date' | 'created_asc' | 'created_desc';

export interface CommentRow {
  id: string;
  datum_id: string;
  content: string;
  updated_by: string;
  updated_at: string;
  seq: number;
}

const datumColumns = [
  'metric_data.id',
  'metric_data.firm_id',
  'metric_data.company_id',
  'metric_data.category_id',
  'metric_data.cadence',
  'metric_data.date',
  'metric_data.value',
  'metric_data.currency',
  'metric_data.budget_id',
  'metric_data.detailed_source',
  'metric_data.archived',
  'metric_data.deleted_at',
  'metric_data.created_at',
  'metric_data.updated_at',
  'metric_categories.name as category_name',
  'metric_categories.category_type',
  'metric_categories.is_standard',
];

type RawDatum = Omit<DatumRow, 'archived' | 'is_standard'> & { archived: unknown; is_standard: unknown };
type RawCategory = Omit<
  CategoryRow,
  'is_standard' | 'is_point_in_time' | 'is_archived' | 'is_multiple' | 'choices'
> & {
  is_standard: unknown;
  is_point_in_time: unknown;
  is_archived: unknown;
  is_multiple: unknown;
  choices: string | null;
};

function toDatumRow(raw: RawDatum): DatumRow {
  return { ...raw, archived: bool(raw.archived), is_standard: bool(raw.is_standard) };
}

function toCategoryRow(raw: RawCategory): CategoryRow {
  return {
    ...raw,
    is_standard: bool(raw.is_standard),
    is_point_in_time: bool(raw.is_point_in_time),
    is_archived: bool(raw.is_archived),
    is_multiple: bool(raw.is_multiple),
    choices: parseChoices(raw.choices),
  };
}

/** A datum filter's values as its query binds them, so that the query of each shape is kept. */
function datumValues(scope: Scope, filter: DatumFilter, byDate: boolean) {
  return {
    companyIds: filter.companyIds,
    firmId: scope.firmId,
    visibleIds: scope.companyIds,
    categoryIds: filter.categoryIds,
    from: filter.from || undefined,
    to: filter.to || undefined,
    budgetId: filter.budgetId || undefined,
    includeBudgets: filter.includeBudgets === true,
    includeDeleted: filter.includeDeleted === true,
    excludeArchived: filter.includeArchived === false,
    cadence: filter.cadence || undefined,
    updatedFrom: filter.updatedFrom || undefined,
    updatedTo: filter.updatedTo || undefined,
    periodEnds: filter.periodEnds ? periodLiteral(filter.periodEnds) : undefined,
    byDate,
  };
}
type DatumValues = ReturnType<typeof datumValues>;

const PERIOD_END = /^\d\d-\d\d$/;
const CADENCE = /^[a-z_]+$/;

/**
 * Only data of these cadences dated at one of these 'MM-DD' endings (other cadences: any date), with the
 * endings written into the SQL: they come from the fiscal calendar (core/fiscal.ts), never from input,
 * and as constants they let SQLite build each list once per statement instead of once per run.
 */
function periodClause(ends: PeriodEnds): string {
  const quote = (text: string, pattern: RegExp) => {
    if (!pattern.test(text)) throw new Error(`not a period constant: ${text}`);
    return `'${text}'`;
  };
  const cadences = Object.keys(ends).map((c) => quote(c, CADENCE));
  const each = Object.entries(ends).map(
    ([cadence, days]) =>
      `(metric_data.cadence = ${quote(cadence, CADENCE)} and substr(metric_data.date, 6, 5) in (${days
        .map((d) => quote(d, PERIOD_END))
        .join(', ')}))`,
  );
  return `(metric_data.cadence not in (${cadences.join(', ')})${each.map((e) => ` or ${e}`).join('')})`;
}

/** The clause of each set of endings, built once: the fiscal calendar answers the same object for a year end. */
const periodLiterals = new WeakMap<PeriodEnds, Literal>();
function periodLiteral(ends: PeriodEnds): Literal {
  let literal = periodLiterals.get(ends);
  if (!literal) {
    literal = new Literal(periodClause(ends));
    periodLiterals.set(ends, literal);
  }
  return literal;
}

function filtered(db: Knex, p: DatumValues): QB {
  // SQLite's planner, without statistics, walks another company index and sorts the company's whole
  // history; the partial index of live rows (implied by the filter) serves the count and the date order.
  const live = !p.budgetId && !p.includeBudgets && !p.includeDeleted && !p.categoryIds;
  const table =
    p.byDate && live && !isPostgres(db)
      ? db.raw('?? indexed by ??', ['metric_data', 'metric_data_live'])
      : 'metric_data';
  // company_id first: every filter below narrows one company's slice of the company indexes.
  const qb = db.from(table).whereIn('metric_data.company_id', p.companyIds);
  scoped(qb, { firmId: p.firmId, companyIds: p.visibleIds }, 'metric_data');
  if (p.categoryIds) qb.whereIn('metric_data.category_id', p.categoryIds);
  if (p.from) qb.where('metric_data.date', '>=', p.from);
  if (p.to) qb.where('metric_data.date', '<=', p.to);
  if (p.budgetId) qb.where('metric_data.budget_id', p.budgetId);
  else if (!p.includeBudgets) qb.whereNull('metric_data.budget_id');
  if (!p.includeDeleted) qb.whereNull('metric_data.deleted_at');
  if (p.excludeArchived) qb.where('metric_data.archived', false);
  if (p.cadence) qb.where('metric_data.cadence', p.cadence);
  if (p.updatedFrom) qb.where('metric_data.updated_at', '>=', p.updatedFrom);
  if (p.updatedTo) qb.where('metric_data.updated_at', '<=', p.updatedTo);
  if (p.periodEnds) qb.whereRaw(p.periodEnds.value);
  return qb;
}

function withCategory(qb: QB): QB {
  return qb.join('metric_categories', 'metric_categories.id', 'metric_data.category_id').select(datumColumns);
}

function ordered(db: Knex, qb: QB, order: DatumOrder): QB {
  if (order === 'created_asc') {
    return qb.orderBy([
      { column: 'metric_data.created_at', order: 'asc' },
      { column: 'metric_data.id', order: 'asc' },
    ]);
  }
  if (order === 'created_desc') {
    return qb.orderBy([
      { column: 'metric_data.created_at', order: 'desc' },
      { column: 'metric_data.id', order: 'desc' },
    ]);
  }
  return qb
    .orderBy('metric_data.date', 'asc')
    .orderByRaw(byName(db, 'metric_categories.name'))
    .orderBy('metric_data.id', 'asc');
}

const countOf = kept((db, p: DatumValues) => filtered(db, p).count({ n: '*' }));
const pageOf = kept((db, p: DatumValues & { order: Literal; limit: number; offset: number }) =>
  ordered(db, withCategory(filtered(db, p)), p.order.value as DatumOrder)
    .limit(p.limit)
    .offset(p.offset),
);

export function metricsRepo(db: Knex) {
  /** The standard categories and the firm's own custom metrics. */
  function visibleCategories(firmId: string): QB {
    return db('metric_categories').where((w) => w.whereNull('firm_id').orWhere('firm_id', firmId));
  }

  /**
   * The rate of each row's currency into `preferred` on the row's date: the latest rate on or before
   * it. One query for the whole page (at most 100 rows): one indexed probe per distinct (currency, date).
   */
  async function withRates(firmId: string, preferred: string, rows: DatumRow[]): Promise<DatumWithRate[]> {
    const probes = rows.flatMap((r) =>
      r.currency && r.currency !== preferred ? [{ currency: r.currency, date: r.date }] : [],
    );
    const rates = await latestRates(db, firmId, preferred, probes);
    return rows.map((r) => ({
      ...r,
      fx_rate: !r.currency
        ? null
        : r.currency === preferred
          ? '1'
          : (rates.get(rateKey(r.currency, r.date)) ?? null),
    }));
  }

  return {
    /** Every category the firm can use: the standard ones and its custom metrics. */
    async categories(firmId: string): Promise<CategoryRow[]> {
      const rows = (await visibleCategories(firmId).orderBy([
        { column: 'name' },
        { column: 'id' },
      ])) as RawCategory[];
      return rows.map(toCategoryRow);
    },

    /** Metric options: standard categories first, then the firm's custom metrics, each by name. */
    async listCategories(firmId: string, filter: CategoryFilter, page: Page): Promise<Counted<CategoryRow>> {
      const base = visibleCategories(firmId);
      if (filter.name) whereContains(base, 'name', filter.name);
      if (filter.id) base.where('id', filter.id);
      if (filter.isStandard !== undefined) base.where('is_standard', filter.isStandard);
      if (filter.isPointInTime !== undefined) base.where('is_point_in_time', filter.isPointInTime);
      if (filter.isArchived !== undefined) base.where('is_archived', filter.isArchived);
      if (filter.types) base.whereIn('category_type', filter.types);
      if (filter.isMultiple !== undefined) base.where('is_multiple', filter.isMultiple);
      if (filter.choices) {
        // Choices are stored as JSON text: the few select metrics are matched here, not in SQL.
        const wanted = filter.choices;
        const selects = (await visibleCategories(firmId).whereNotNull('choices').select('id', 'choices')) as {
          id: string;
          choices: string | null;
        }[];
        const ids = selects
          .filter((row) => {
            const offered = parseChoices(row.choices);
            return wanted.every((c) => offered.includes(c));
          })
          .map((row) => row.id);
        base.whereIn('id', ids);
      }
      const result = await countAndPage<RawCategory>(db, base, page, (qb) =>
        qb.orderBy('is_standard', 'desc').orderByRaw(byName(db, 'name')).orderBy('id', 'asc'),
      );
      return { count: result.count, rows: result.rows.map(toCategoryRow) };
    },

    /** One page of a company's (or a few companies') metrics, each with its FX rate. */
    async list(
      scope: Scope,
      filter: DatumFilter,
      order: DatumOrder,
      page: Page,
      preferredCurrency: string,
    ): Promise<Counted<DatumWithRate>> {
      const values = { ...datumValues(scope, filter, order === 'date'), order: new Literal(order) };
      const result = await countAndPageKept<RawDatum, typeof values>(db, countOf, pageOf, values, page);
      const rows = result.rows.map(toDatumRow);
      return { count: result.count, rows: await withRates(scope.firmId, preferredCurrency, rows) };
    },

    /** The latest `limit` data points by date (ties: the latest created first). */
    async recent(
      scope: Scope,
      filter: DatumFilter,
      limit: number,
      preferredCurrency: string,
    ): Promise<DatumWithRate[]> {
      const raw = (await withCategory(filtered(db, datumValues(scope, filter, false)))
        .orderBy([
          { column: 'metric_data.date', order: 'desc' },
          { column: 'metric_data.created_at', order: 'desc' },
          { column: 'metric_data.id', order: 'desc' },
        ])
        .limit(limit)) as RawDatum[];
      return withRates(scope.firmId, preferredCurrency, raw.map(toDatumRow));
    },

    /** One datum the caller can see (deleted ones included), or undefined. */
    async get(scope: Scope, id: string, preferredCurrency: string): Promise<DatumWithRate | undefined> {
      const raw = (await withCategory(scoped(db('metric_data'), scope, 'metric_data'))
        .where('metric_data.id', id)
        .first()) as RawDatum | undefined;
      if (!raw) return undefined;
      return (await withRates(scope.firmId, preferredCurrency, [toDatumRow(raw)]))[0];
    },

    /** The comments of these data, oldest first. */
    async comments(datumIds: string[]): Promise<CommentRow[]> {
      if (datumIds.length === 0) return [];
      return (await db('metric_comments')
        .whereIn('datum_id', datumIds)
        .orderBy([{ column: 'datum_id' }, { column: 'seq' }, { column: 'id' }])) as CommentRow[];
    },
  };
}
export type MetricsRepo = ReturnType<typeof metricsRepo>;
