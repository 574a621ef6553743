import { z } from 'zod';
import { defineTool, readOnly, restPaging } from '../define.ts';
import { companyRefFields, resolveCompany } from '../schemas/company-ref.ts';
import { CustomColumnValue, toCustomColumnValue } from '../schemas/custom-column.ts';
import { listOf, pageFields, pageResult, toPage } from '../schemas/page.ts';

export const getCustomColumns = defineTool({
  name: 'get_custom_columns',
  title: 'Get custom column values',
  description:
    "Companies' values of the firm's custom columns (owner, stage, tags …), by company then column. Column definitions and options: get_custom_column_options.",
  input: z.object({
    ...pageFields,
    ...companyRefFields('custom column values'),
  }),
  output: listOf(CustomColumnValue),
  annotations: readOnly,
  routes: [
    {
      method: 'GET',
      path: '/v1/custom-columns/',
      summary: "List a company's custom column values",
      rename: restPaging,
      requireOneOf: ['company_id', 'company_slug'],
      envelope: 'page',
    },
  ],
  async handler(ctx, input) {
    const company = await resolveCompany(ctx, input);
    const counted = await ctx.repos.customColumns.listValues(
      ctx.principal.scope,
      { companyId: company?.id },
      toPage(input),
    );
    const options = await ctx.repos.customColumns.options(counted.rows.map((r) => r.column_id));
    return pageResult(input, counted, (row) => toCustomColumnValue(row, options.get(row.column_id) ?? []));
  },
});
