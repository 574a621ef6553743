import { z } from 'zod';
import { deleteRule } from '../../services/alerts.ts';
import { defineTool } from '../define.ts';

export const deleteAlertRule = defineTool({
  name: 'delete_alert_rule',
  title: 'Delete a KPI alert rule',
  description: 'Deletes a KPI alert rule and its alerts (open and closed). Editor or admin role.',
  input: z.object({ rule_id: z.string().min(1).describe('Rule id.') }),
  output: z.object({ success: z.boolean(), message: z.string() }),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  write: true,
  permission: 'edit_alert_rules',
  routes: [
    {
      method: 'DELETE',
      path: '/v1/alert-rules/:rule_id/',
      summary: 'Delete a KPI alert rule and its alerts',
    },
  ],
  async handler(ctx, input) {
    const rule = await deleteRule(ctx, input.rule_id);
    return { success: true, message: `alert rule ${rule.id} deleted` };
  },
});
