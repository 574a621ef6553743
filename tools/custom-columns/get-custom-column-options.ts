import { z } from 'zod';
import { defineTool, readOnly } from '../define.ts';
import { CustomColumn, toCustomColumn } from '../schemas/custom-column.ts';
import { listOf, pageFields, pageResult, toPage } from '../schemas/page.ts';

export const getCustomColumnOptions = defineTool({
  name: 'get_custom_column_options',
  title: 'Get custom column definitions',
  description:
    "Lists the firm's custom columns by name with their type (text, select, multi_select) and, for " +
    'select columns, the options they offer. Use it to interpret the values get_custom_columns returns.',
  input: z.object({ ...pageFields }),
  output: listOf(CustomColumn),
  annotations: readOnly,
  async handler(ctx, input) {
    const counted = await ctx.repos.customColumns.listColumns(ctx.principal.firm.id, toPage(input));
    const options = await ctx.repos.customColumns.options(counted.rows.map((r) => r.id));
    return pageResult(input, counted, (row) => toCustomColumn(row, options.get(row.id) ?? []));
  },
});
