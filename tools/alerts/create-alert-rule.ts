import { z } from 'zod';
import { newId } from '../../db/ids.ts';
import { createRule } from '../../services/alerts.ts';
import { defineTool } from '../define.ts';
import { AlertRule, checkedRule, ruleFields, visibleRule } from './rule.ts';

export const createAlertRule = defineTool({
  name: 'create_alert_rule',
  title: 'Create a KPI alert rule',
  description:
    'Alerts once per company when its figure meets the condition, until it clears: runway_months lt 9, stale eq true. Over every company, a fund or a list. Editor or admin role; see list_alerts.',
  input: z.object({
    name: ruleFields.name.optional(),
    figure: ruleFields.figure,
    op: ruleFields.op,
    value: ruleFields.value,
    fund_id: ruleFields.fund_id.optional(),
    company_ids: ruleFields.company_ids.optional(),
  }),
  output: AlertRule,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  write: true,
  permission: 'edit_alert_rules',
  routes: [
    {
      method: 'POST',
      path: '/v1/alert-rules/',
      summary: 'Create a KPI alert rule',
      body: 'merge',
      status: 201,
    },
  ],
  async handler(ctx, input) {
    const at = ctx.clock.now().toISOString();
    const rule = await checkedRule(
      ctx,
      {
        id: newId(),
        firm_id: ctx.principal.firm.id,
        name: input.name ?? `${input.figure} ${input.op} ${input.value}`,
        figure: input.figure,
        op: input.op,
        value: '',
        fund_id: input.fund_id ?? null,
        company_ids: input.company_ids ?? null,
        created_by: ctx.principal.user.id,
        created_at: at,
        updated_at: at,
      },
      input.value,
    );
    await createRule(ctx, rule);
    return visibleRule(ctx, rule)!;
  },
});
