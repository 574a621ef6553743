import type { FieldError } from '../core/errors.ts';
import { newId } from '../db/ids.ts';
import type { CustomColumnOptionRow, CustomColumnRow } from '../db/repos/custom-columns.ts';
import { record, type ServiceContext, withRecorder } from './changes.ts';
import { resolveItemCompanies, throwFieldErrors } from './item-companies.ts';

/** One value as update_custom_column_values takes it, parsed. */
export interface ValueIn {
  company_id?: string | undefined;
  company_slug?: string | undefined;
  custom_column_id: string;
  value?: string | undefined;
  selected_options?: { option_id?: string | undefined; value?: string | undefined }[] | undefined;
}

/** A value as stored, in request order: the text, or the chosen options' labels joined by ", ". */
export interface ValueOut {
  company_id: string;
  company_slug: string;
  custom_column_id: string;
  value: string;
  selected_options: { option_id: string; value: string; color: string }[];
}

/** One value to store: a column's text, or the options chosen (null for a text column). */
export interface ColumnValue {
  companyId: string;
  columnId: string;
  columnName: string;
  text: string | null;
  options: { id: string; value: string }[] | null;
}

/**
 * Stores custom column values (each replacing the company's value of its column), all or none, each
 * with its change-log row and a custom_column_value.updated event.
 */
async function setColumnValues(ctx: ServiceContext, values: readonly ColumnValue[]): Promise<void> {
  await withRecorder(ctx, async (repos, recorder) => {
    for (const v of values) {
      const existing = await repos.customColumns.valueId(v.companyId, v.columnId);
      const id = existing ?? newId();
      const optionIds = v.options?.map((o) => o.id) ?? null;
      await repos.customColumns.setValue({
        id,
        column_id: v.columnId,
        company_id: v.companyId,
        value_text: v.text,
        option_ids: optionIds,
      });
      const changes = {
        company_id: v.companyId,
        column_id: v.columnId,
        value_text: v.text,
        option_ids: optionIds,
      };
      await record(recorder, {
        change: {
          entity: 'custom_column_values',
          entityId: id,
          action: existing ? 'update' : 'create',
          changes,
        },
        event: {
          type: 'custom_column_value.updated',
          companyId: v.companyId,
          resourceType: 'custom_column_value',
          resourceId: id,
          data: {
            id,
            company_id: v.companyId,
            custom_column_id: v.columnId,
            custom_column: v.columnName,
            value: v.text ?? v.options?.map((o) => o.value).join(', ') ?? '',
            selected_options: v.options?.map((o) => ({ option_id: o.id, value: o.value })) ?? [],
          },
        },
      });
    }
  });
}

/** What one item stores: text for a text column, option ids for the others. */
interface Planned {
  text: string | null;
  options: CustomColumnOptionRow[];
}

/** The value an item gives a column, or the errors that prevent it. */
function plan(
  item: ValueIn,
  at: string,
  column: CustomColumnRow,
  options: CustomColumnOptionRow[],
): Planned | FieldError[] {
  if (column.type === 'text') {
    if (item.selected_options && item.selected_options.length > 0) {
      return [
        { field: `${at}.selected_options`, message: `column ${column.name} is a text column: give value` },
      ];
    }
    if (item.value === undefined) return [{ field: `${at}.value`, message: 'is required for a text column' }];
    return { text: item.value === '' ? null : item.value, options: [] };
  }
  const labels = options.map((o) => JSON.stringify(o.value)).join(', ') || 'none';
  if (item.selected_options === undefined) {
    if (column.type === 'multi_select' || item.value === undefined) {
      return [
        {
          field: `${at}.selected_options`,
          message: `is required for the ${column.type} column ${column.name}`,
        },
      ];
    }
    if (item.value === '') return { text: null, options: [] };
    const match = options.find((o) => o.value === item.value);
    if (!match) {
      return [{ field: `${at}.value`, message: `must be one of the options of ${column.name}: ${labels}` }];
    }
    return { text: null, options: [match] };
  }
  const errors: FieldError[] = [];
  if (column.type === 'select' && item.selected_options.length > 1) {
    errors.push({
      field: `${at}.selected_options`,
      message: `the select column ${column.name} takes at most one option`,
    });
  }
  const chosen = new Set<string>();
  item.selected_options.forEach((o, j) => {
    const where = `${at}.selected_options[${j}]`;
    if (o.option_id !== undefined) {
      const match = options.find((x) => x.id === o.option_id);
      if (!match) {
        errors.push({
          field: `${where}.option_id`,
          message: `is not an option of ${column.name}; get_custom_column_options lists them (${labels})`,
        });
      } else if (o.value !== undefined && o.value !== match.value) {
        errors.push({
          field: `${where}.value`,
          message: `is not the label of option ${o.option_id} (${match.value})`,
        });
      } else chosen.add(match.id);
    } else if (o.value !== undefined) {
      const match = options.find((x) => x.value === o.value);
      if (!match) {
        errors.push({
          field: `${where}.value`,
          message: `must be one of the options of ${column.name}: ${labels}`,
        });
      } else chosen.add(match.id);
    } else {
      errors.push({
        field: `${where}.option_id`,
        message: 'is required (or give the option label in value)',
      });
    }
  });
  if (errors.length > 0) return errors;
  return { text: null, options: options.filter((o) => chosen.has(o.id)) };
}

/** Each item's column, and what it stores; throws one 400 naming every offending field. */
async function planValues(ctx: ServiceContext, items: readonly ValueIn[], companyIds: readonly string[]) {
  const columns = await ctx.repos.customColumns.columnsByIds(
    ctx.principal.firm.id,
    items.map((i) => i.custom_column_id),
  );
  const options = await ctx.repos.customColumns.options([...columns.keys()]);
  const errors: FieldError[] = [];
  const planned: Planned[] = [];
  const seen = new Map<string, number>();
  items.forEach((item, i) => {
    const at = `items[${i}]`;
    const column = columns.get(item.custom_column_id);
    if (!column) {
      errors.push({
        field: `${at}.custom_column_id`,
        message: `no custom column with id ${item.custom_column_id}; call get_custom_column_options for valid ids`,
      });
      return;
    }
    const pair = `${companyIds[i]} ${column.id}`;
    const earlier = seen.get(pair);
    if (earlier !== undefined) {
      errors.push({
        field: `${at}.custom_column_id`,
        message: `repeats the company and column of items[${earlier}]; give each pair once`,
      });
      return;
    }
    seen.set(pair, i);
    const result = plan(item, at, column, options.get(column.id) ?? []);
    if (Array.isArray(result)) errors.push(...result);
    else planned[i] = result;
  });
  throwFieldErrors(errors, 'custom column values');
  return { columns, planned };
}

/**
 * Replaces custom column values of companies the caller can access, all or none: text for a text
 * column, options of the column for the others. Returns the values now stored, in request order.
 */
export async function updateColumnValues(
  ctx: ServiceContext,
  items: readonly ValueIn[],
): Promise<ValueOut[]> {
  const companies = await resolveItemCompanies(ctx, [...items]);
  const { columns, planned } = await planValues(
    ctx,
    items,
    companies.map((c) => c.id),
  );
  await setColumnValues(
    ctx,
    items.map((item, i) => {
      const column = columns.get(item.custom_column_id)!;
      const { text, options: chosen } = planned[i]!;
      return {
        companyId: companies[i]!.id,
        columnId: column.id,
        columnName: column.name,
        text,
        options: column.type === 'text' ? null : chosen,
      };
    }),
  );
  return items.map((item, i) => {
    const { text, options: chosen } = planned[i]!;
    return {
      company_id: companies[i]!.id,
      company_slug: companies[i]!.slug,
      custom_column_id: item.custom_column_id,
      value: text ?? chosen.map((o) => o.value).join(', '),
      selected_options: chosen.map((o) => ({ option_id: o.id, value: o.value, color: o.color })),
    };
  });
}
