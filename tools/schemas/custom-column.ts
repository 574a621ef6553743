import { z } from 'zod';
import type {
  CustomColumnOptionRow,
  CustomColumnRow,
  CustomColumnValueRow,
} from '../../db/repos/custom-columns.ts';

export const CustomColumnOption = z.object({
  id: z.string().describe('Option identifier.'),
  value: z.string().describe('Option label.'),
  color: z.string().describe('Display colour, #rrggbb.'),
});
export type CustomColumnOption = z.infer<typeof CustomColumnOption>;

const CompanyLink = z
  .object({ id: z.string(), name: z.string(), slug: z.string() })
  .describe('The company the value belongs to.');

const valueFields = {
  id: z.string().describe('Custom column identifier (as in get_custom_column_options).'),
  name: z.string().describe('Custom column name.'),
  company: CompanyLink,
};

/** One company's value of one custom column, shaped by the column type. */
export const CustomColumnValue = z.discriminatedUnion('type', [
  z.object({
    ...valueFields,
    type: z.literal('text'),
    value: z.string().nullable().describe('The text, or null when empty.'),
  }),
  z.object({
    ...valueFields,
    type: z.literal('select'),
    value: CustomColumnOption.nullable().describe('The chosen option, or null when none is chosen.'),
  }),
  z.object({
    ...valueFields,
    type: z.literal('multi_select'),
    value: z.array(CustomColumnOption).describe('The chosen options, in display order.'),
  }),
]);
export type CustomColumnValue = z.infer<typeof CustomColumnValue>;

export const CustomColumn = z.object({
  id: z.string().describe('Custom column identifier.'),
  name: z.string(),
  type: z.enum(['text', 'select', 'multi_select']),
  options: z
    .array(CustomColumnOption)
    .describe('The options a select or multi_select column offers, in display order; empty for text.'),
});
export type CustomColumn = z.infer<typeof CustomColumn>;

function toOption(row: CustomColumnOptionRow): CustomColumnOption {
  return { id: row.id, value: row.value, color: row.color };
}

export function toCustomColumn(row: CustomColumnRow, options: CustomColumnOptionRow[]): CustomColumn {
  return { id: row.id, name: row.name, type: row.type, options: options.map(toOption) };
}

/** Chosen options in the column's display order; ids of options since removed are dropped. */
export function toCustomColumnValue(
  row: CustomColumnValueRow,
  options: CustomColumnOptionRow[],
): CustomColumnValue {
  const base = {
    id: row.column_id,
    name: row.column_name,
    company: { id: row.company_id, name: row.company_name, slug: row.company_slug },
  };
  const chosen = new Set(row.option_ids);
  const picked = options.filter((o) => chosen.has(o.id)).map(toOption);
  switch (row.column_type) {
    case 'select':
      return { ...base, type: 'select', value: picked[0] ?? null };
    case 'multi_select':
      return { ...base, type: 'multi_select', value: picked };
    default:
      return { ...base, type: 'text', value: row.value_text };
  }
}
