import { z } from 'zod';
import { thresholdValue } from '../../alerts/rules.ts';
import { ruleToChange, updateRule } from '../../services/alerts.ts';
import { defineTool } from '../define.ts';
import { AlertRule, checkedRule, ruleFields, visibleRule } from './rule.ts';

export const updateAlertRule = defineTool({
  name: 'update_alert_rule',
  title: 'Change a KPI alert rule',
  description:
    'Changes fields of an alert rule; open alerts under a changed condition clear and the rule is evaluated again. Editor or admin role.',
  input: z.object({
    rule_id: z.string().min(1).describe('Rule id.'),
    name: ruleFields.name.optional(),
    figure: ruleFields.figure.optional(),
    op: ruleFields.op.optional(),
    value: ruleFields.value.optional(),
    fund_id: ruleFields.fund_id.nullable().optional(),
    company_ids: ruleFields.company_ids.nullable().optional(),
  }),
  output: AlertRule,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  write: true,
  permission: 'edit_alert_rules',
  routes: [
    {
      method: 'PATCH',
      path: '/v1/alert-rules/:rule_id/',
      summary: 'Change fields of a KPI alert rule',
      body: 'merge',
    },
  ],
  async handler(ctx, input) {
    // A rule reaching companies the caller cannot see is unknown to them, before any field is checked.
    const rule = await ruleToChange(ctx, input.rule_id);
    const at = ctx.clock.now().toISOString();
    const changed = await checkedRule(
      ctx,
      {
        ...rule,
        name: input.name ?? rule.name,
        figure: input.figure ?? rule.figure,
        op: input.op ?? rule.op,
        fund_id: input.fund_id === undefined ? rule.fund_id : input.fund_id,
        company_ids: input.company_ids === undefined ? rule.company_ids : input.company_ids,
        updated_at: at,
      },
      input.value ?? thresholdValue(rule.value),
    );
    await updateRule(ctx, changed);
    return visibleRule(ctx, changed)!;
  },
});
