import { z } from 'zod';
import { defineTool, readOnly, restPaging } from '../define.ts';
import { CustomColumn, toCustomColumn } from '../schemas/custom-column.ts';
import { listOf, pageFields, pageResult, toPage } from '../schemas/page.ts';

export const getCustomColumnOptions = defineTool({
  name: 'get_custom_column_options',
  title: 'Get custom column definitions',
  description:
    "The firm's custom columns with their type (text, select, multi_select) and the options of select columns.",
  input: z.object({ ...pageFields }),
  output: listOf(CustomColumn),
  annotations: readOnly,
  routes: [
    {
      method: 'GET',
      path: '/v1/custom-columns/options/',
      summary: 'List custom columns and their options',
      rename: restPaging,
      envelope: 'page',
    },
  ],
  async handler(ctx, input) {
    const counted = await ctx.repos.customColumns.listColumns(ctx.principal.firm.id, toPage(input));
    const options = await ctx.repos.customColumns.options(counted.rows.map((r) => r.id));
    return pageResult(input, counted, (row) => toCustomColumn(row, options.get(row.id) ?? []));
  },
});
