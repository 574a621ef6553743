import { z } from 'zod';
import type { CustomColumnOptionRow, CustomColumnRow } from '../../db/repos/custom-columns.ts';
import { setColumnValues } from '../../services/custom-columns.ts';
import { defineTool } from '../define.ts';
import type { FieldError } from '../errors.ts';
import { resolveItemCompanies, throwFieldErrors } from '../schemas/item-company.ts';

export const MAX_VALUES = 100;
export const MAX_TEXT_LENGTH = 5000;

const itemsMessage = `must hold 1 to ${MAX_VALUES} values`;

const SelectedOption = z.object({
  option_id: z.string().min(1).optional().describe('Option id.'),
  value: z.string().min(1).optional().describe('Option label; or give option_id.'),
});

const ValueItem = z.object({
  company_id: z.string().min(1).optional().describe('Company id; or give company_slug.'),
  company_slug: z.string().min(1).optional().describe('Company slug.'),
  custom_column_id: z.string().min(1).describe('Custom column id.'),
  value: z
    .string()
    .max(MAX_TEXT_LENGTH, { error: `must be at most ${MAX_TEXT_LENGTH} characters` })
    .optional()
    .describe(
      'Text columns: the text ("" empties it). Select columns: an option label, if no selected_options.',
    ),
  selected_options: z
    .array(SelectedOption)
    .max(100)
    .optional()
    .describe(
      'Select and multi_select columns: the chosen options (at most one for select; none empties it).',
    ),
});
type ValueItem = z.infer<typeof ValueItem>;

const ValueOut = z.object({
  company_id: z.string(),
  company_slug: z.string(),
  custom_column_id: z.string(),
  value: z.string().describe('The text, or the labels of the chosen options joined by ", "; "" when empty.'),
  selected_options: z
    .array(z.object({ option_id: z.string(), value: z.string(), color: z.string() }))
    .describe('The chosen options in display order; empty for text columns.'),
});

/** What one item stores: text for a text column, option ids for the others. */
interface Planned {
  text: string | null;
  options: CustomColumnOptionRow[];
}

/** The value an item gives a column, or the errors that prevent it. */
function plan(
  item: ValueItem,
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

export const updateCustomColumnValues = defineTool({
  name: 'update_custom_column_values',
  title: 'Set custom column values',
  description:
    `Replaces 1 to ${MAX_VALUES} custom column values of companies, all or none (a 400 names items[i].field). ` +
    'Text columns take value; select and multi_select columns take selected_options (by option_id or label) ' +
    "among the column's options (get_custom_column_options). Needs the editor or admin role.",
  input: z.object({
    items: z
      .array(ValueItem)
      .min(1, { error: itemsMessage })
      .max(MAX_VALUES, { error: itemsMessage })
      .describe('The values; each (company, column) pair once.'),
  }),
  output: z.object({ results: z.array(ValueOut).describe('The values now stored, in request order.') }),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  permission: 'edit_companies',
  write: true,
  async handler(ctx, input) {
    const { principal } = ctx;
    const companies = await resolveItemCompanies(ctx, input.items);
    const columns = await ctx.repos.customColumns.columnsByIds(
      principal.firm.id,
      input.items.map((i) => i.custom_column_id),
    );
    const options = await ctx.repos.customColumns.options([...columns.keys()]);

    const errors: FieldError[] = [];
    const planned: Planned[] = [];
    const seen = new Map<string, number>();
    input.items.forEach((item, i) => {
      const at = `items[${i}]`;
      const column = columns.get(item.custom_column_id);
      if (!column) {
        errors.push({
          field: `${at}.custom_column_id`,
          message: `no custom column with id ${item.custom_column_id}; call get_custom_column_options for valid ids`,
        });
        return;
      }
      const pair = `${companies[i]!.id} ${column.id}`;
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

    await setColumnValues(
      ctx,
      input.items.map((item, i) => {
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

    return {
      results: input.items.map((item, i) => {
        const { text, options: chosen } = planned[i]!;
        return {
          company_id: companies[i]!.id,
          company_slug: companies[i]!.slug,
          custom_column_id: item.custom_column_id,
          value: text ?? chosen.map((o) => o.value).join(', '),
          selected_options: chosen.map((o) => ({ option_id: o.id, value: o.value, color: o.color })),
        };
      }),
    };
  },
});
