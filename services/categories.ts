import {
  CUSTOM_CATEGORY,
  CustomMetricNames,
  nearestName,
  normaliseCategoryName,
  suggestCategory,
} from '../core/categories.ts';
import { type FieldError, InvalidInput, NotFound } from '../core/errors.ts';
import type { CategoryRow } from '../db/repos/metrics.ts';
import type { ServiceContext } from './changes.ts';

/** What a lookup of categories and companies needs. */
type LookupContext = Pick<ServiceContext, 'repos' | 'principal'>;

const optionsPointer = 'get_metrics_options (GET /v1/metrics/options/) lists every valid name';

/** Which categories a metrics query selects. */
export interface CategorySelection {
  /** Category ids to filter on; undefined when no category filter was given. */
  ids?: string[];
  /** The categories named one by one (not through `custom`), whose cadences must fit. */
  named: CategoryRow[];
}

/** The categories a firm can use, with name lookups for the category and custom_metric filters. */
export class CategoryIndex {
  private readonly standard = new Map<string, CategoryRow>();
  private readonly custom = new CustomMetricNames<CategoryRow>();

  constructor(rows: readonly CategoryRow[]) {
    for (const row of rows) {
      if (row.is_standard) this.standard.set(row.name, row);
      else this.custom.add(row);
    }
  }

  static async load(ctx: LookupContext): Promise<CategoryIndex> {
    return new CategoryIndex(await ctx.repos.metrics.categories(ctx.principal.firm.id));
  }

  /** The categories of a filter; the category table is read only when the filter names some. */
  static async select(ctx: LookupContext, values: readonly string[] | undefined, field: string) {
    if (!values?.length) return { named: [] } satisfies CategorySelection;
    return (await CategoryIndex.load(ctx)).selectCategories(values, field);
  }

  private unknown(field: string, value: string, candidates: string[], what: string): FieldError {
    const suggestion =
      what === 'category' ? suggestCategory(value, candidates) : nearestName(value, candidates)?.name;
    const hint = suggestion ? `did you mean "${suggestion}"? ` : '';
    return { field, message: `unknown ${what} "${value}"; ${hint}${optionsPointer}` };
  }

  /** One category by standard name or custom metric display name, or an error naming the closest valid one. */
  lookup(value: string, field: string): CategoryRow | FieldError {
    const row =
      this.standard.get(value) ?? this.custom.find(value) ?? this.standard.get(normaliseCategoryName(value));
    if (row) return row;
    return this.unknown(field, value, [...this.standard.keys(), ...this.custom.names()], 'category');
  }

  /** Standard names, `custom`, or custom metric display names; a bad value names the closest valid one. */
  selectCategories(values: readonly string[] | undefined, field: string): CategorySelection {
    if (!values || values.length === 0) return { named: [] };
    const ids = new Set<string>();
    const named: CategoryRow[] = [];
    const errors: FieldError[] = [];
    for (const value of values) {
      if (normaliseCategoryName(value) === CUSTOM_CATEGORY) {
        for (const row of this.custom.rows()) ids.add(row.id);
        continue;
      }
      // A custom metric's own spelling wins over a standard name written in another case.
      const row =
        this.standard.get(value) ??
        this.custom.find(value) ??
        this.standard.get(normaliseCategoryName(value));
      if (row) {
        ids.add(row.id);
        named.push(row);
      } else {
        const candidates = [...this.standard.keys(), CUSTOM_CATEGORY, ...this.custom.names()];
        errors.push(this.unknown(field, value, candidates, 'category'));
      }
    }
    if (errors.length > 0)
      throw new InvalidInput(errors.map((e) => `${e.field}: ${e.message}`).join('; '), errors);
    return { ids: [...ids], named };
  }

  /** A custom metric by display name; a bad name names the closest custom metric. */
  customMetric(name: string, field: string): CategoryRow {
    const row = this.custom.find(name);
    if (row) return row;
    const error = this.unknown(field, name, this.custom.names(), 'custom metric');
    throw new InvalidInput(`${error.field}: ${error.message}`, [error]);
  }
}

/** Point-in-time categories have only the point_in_time cadence; flows only period cadences. */
export function checkCadenceFits(
  cadence: string | undefined,
  categories: readonly CategoryRow[],
  field: string,
): void {
  if (!cadence) return;
  for (const c of categories) {
    if (c.is_point_in_time && cadence !== 'point_in_time') {
      throw InvalidInput.field(
        field,
        `${c.name} is a point-in-time category: its only cadence is point_in_time (or leave cadence out)`,
      );
    }
    if (!c.is_point_in_time && cadence === 'point_in_time') {
      throw InvalidInput.field(
        field,
        `${c.name} is a flow over a period: use cadence month, quarter or year (or leave cadence out)`,
      );
    }
  }
}

/** The visible companies of these ids, or a not-found error naming the invisible ones. */
export async function visibleCompanyIds(ctx: LookupContext, ids: readonly string[]): Promise<string[]> {
  const unique = [...new Set(ids)];
  const found = await ctx.repos.companies.names(ctx.principal.scope, unique);
  const missing = unique.filter((id) => !found.has(id));
  if (missing.length > 0) {
    throw new NotFound(
      `no company with id ${missing.join(', ')}; call list_companies or search_companies for valid ids`,
    );
  }
  return unique;
}
