import { z } from 'zod';
import { thresholdValue } from '../../alerts/rules.ts';
import { defineTool, readOnly } from '../define.ts';

const Alert = z.object({
  company_id: z.string(),
  company_name: z.string(),
  rule_id: z.string(),
  figure: z.string(),
  op: z.string(),
  threshold: z.union([z.number(), z.boolean()]),
  value: z.string().nullable(),
  since: z.string(),
});

export const listAlerts = defineTool({
  name: 'list_alerts',
  title: 'List open KPI alerts',
  description: 'Open KPI alerts, newest first: company, condition, current value.',
  input: z.object({
    company_id: z.string().min(1).optional().describe('Only this company.'),
    rule_id: z.string().min(1).optional().describe('Only this rule.'),
  }),
  output: z.object({ count: z.number().int(), results: z.array(Alert) }),
  annotations: readOnly,
  routes: [{ method: 'GET', path: '/v1/alerts/', summary: 'List open KPI alerts' }],
  async handler(ctx, input) {
    const rows = await ctx.repos.alerts.listOpen(ctx.principal.scope, {
      companyId: input.company_id,
      ruleId: input.rule_id,
    });
    return {
      count: rows.length,
      results: rows.map((r) => ({
        company_id: r.company_id,
        company_name: r.company_name,
        rule_id: r.rule_id,
        figure: r.figure,
        op: r.op,
        threshold: thresholdValue(r.threshold),
        value: r.current_value,
        since: r.since,
      })),
    };
  },
});
