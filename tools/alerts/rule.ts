import { z } from 'zod';
import { RULE_FIGURES, RULE_OPS, thresholdOf, thresholdValue } from '../../alerts/rules.ts';
import type { AlertRuleRow } from '../../db/repos/alerts.ts';
import type { ToolContext } from '../context.ts';
import { InvalidInput, NotFound } from '../errors.ts';

export const AlertRule = z.object({
  id: z.string(),
  name: z.string(),
  figure: z.string(),
  op: z.enum(RULE_OPS),
  value: z.union([z.number(), z.boolean()]),
  fund_id: z.string().nullable(),
  company_ids: z.array(z.string()).nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});

/** The fields of a rule that create takes and update may change. */
export const ruleFields = {
  name: z.string().min(1).max(255).describe('Default: "<figure> <op> <value>".'),
  figure: z
    .string()
    .min(1)
    .describe(
      'A screen_companies column, stale (true/false) or late_information_report (days a report is past due).',
    ),
  op: z.enum(RULE_OPS).describe('How the figure compares with value.'),
  value: z
    .union([z.number(), z.boolean()])
    .describe('The threshold: percent as 12.5, money in the firm currency; true/false for stale.'),
  fund_id: z.string().min(1).describe("Only this fund's companies."),
  company_ids: z.array(z.string().min(1)).min(1).max(500).describe('Only these companies.'),
};

/**
 * The rule a create or update would store, checked as a whole; every problem names its field. Whether
 * it stays within the caller's companies is the service's to decide (services/alerts.ts).
 */
export async function checkedRule(
  ctx: ToolContext,
  rule: AlertRuleRow,
  given: number | boolean,
): Promise<AlertRuleRow> {
  if (!RULE_FIGURES.includes(rule.figure))
    throw InvalidInput.field('figure', `must be one of: ${RULE_FIGURES.join(', ')}`);
  const threshold = thresholdOf(rule.figure, rule.op as (typeof RULE_OPS)[number], given);
  if ('field' in threshold) throw InvalidInput.field(threshold.field, threshold.message);
  if (rule.fund_id && rule.company_ids)
    throw InvalidInput.field('company_ids', 'give fund_id or company_ids, not both');
  const { firm, scope } = ctx.principal;
  if (rule.fund_id && !(await ctx.repos.funds.get(firm.id, rule.fund_id)))
    throw InvalidInput.field('fund_id', `no fund with id ${rule.fund_id}; list_funds lists valid ids`);
  if (rule.company_ids) {
    const found = await ctx.repos.companies.all(scope, { ids: rule.company_ids });
    const known = new Set(found.map((c) => c.id));
    const i = rule.company_ids.findIndex((id) => !known.has(id));
    if (i >= 0)
      throw InvalidInput.field(
        `company_ids[${i}]`,
        `no company with id ${rule.company_ids[i]} that you can see`,
      );
  }
  const companyIds = rule.company_ids && [...new Set(rule.company_ids)];
  return { ...rule, value: threshold.threshold, company_ids: companyIds };
}

/** A rule as the caller may see it: a list of companies shows only those visible to them. */
export function visibleRule(ctx: ToolContext, rule: AlertRuleRow): z.input<typeof AlertRule> | undefined {
  const visible = ctx.principal.scope.companyIds;
  let companyIds = rule.company_ids;
  if (companyIds && visible) {
    companyIds = companyIds.filter((id) => visible.includes(id));
    if (companyIds.length === 0) return undefined;
  }
  return {
    id: rule.id,
    name: rule.name,
    figure: rule.figure,
    op: rule.op as (typeof RULE_OPS)[number],
    value: thresholdValue(rule.value),
    fund_id: rule.fund_id,
    company_ids: companyIds,
    created_at: rule.created_at,
    updated_at: rule.updated_at,
  };
}

/** The stored rule with this id, when the caller may see it; otherwise NotFound, as for a rule that does not exist. */
export async function storedRule(ctx: ToolContext, id: string): Promise<AlertRuleRow> {
  const rule = await ctx.repos.alerts.getRule(ctx.principal.firm.id, id);
  if (!rule || !visibleRule(ctx, rule))
    throw new NotFound(`no alert rule with id ${id}; GET /v1/alert-rules/ lists them`);
  return rule;
}
