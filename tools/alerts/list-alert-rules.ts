import { z } from 'zod';
import { defineTool, readOnly } from '../define.ts';
import { AlertRule, storedRule, visibleRule } from './rule.ts';

export const listAlertRules = defineTool({
  name: 'list_alert_rules',
  title: 'List KPI alert rules',
  description: "The firm's KPI alert rules with their condition and scope, oldest first.",
  input: z.object({}),
  output: z.object({ count: z.number().int(), results: z.array(AlertRule) }),
  annotations: readOnly,
  // Over MCP, list_alerts shows each alert's rule; the rules themselves are listed over REST.
  mcp: false,
  routes: [{ method: 'GET', path: '/v1/alert-rules/', summary: 'List KPI alert rules' }],
  async handler(ctx) {
    const rules = await ctx.repos.alerts.listRules(ctx.principal.firm.id);
    const results = rules.flatMap((r) => visibleRule(ctx, r) ?? []);
    return { count: results.length, results };
  },
});

export const getAlertRule = defineTool({
  name: 'get_alert_rule',
  title: 'Get a KPI alert rule',
  description: 'One KPI alert rule by id, with its condition and scope.',
  input: z.object({ rule_id: z.string().min(1).describe('Rule id.') }),
  output: AlertRule,
  annotations: readOnly,
  mcp: false,
  routes: [{ method: 'GET', path: '/v1/alert-rules/:rule_id/', summary: 'Get one KPI alert rule' }],
  async handler(ctx, input) {
    return visibleRule(ctx, await storedRule(ctx, input.rule_id))!;
  },
});
