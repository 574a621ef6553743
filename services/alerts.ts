import { InvalidInput, NotFound } from '../core/errors.ts';
import type { AlertRuleRow } from '../db/repos/alerts.ts';
import { type Recorded, record, type ServiceContext, withRecorder } from './changes.ts';

/** A rule's threshold as stored (a decimal string, or 'true'/'false' for stale) read back as given. */
export function thresholdValue(value: string): number | boolean {
  if (value === 'true' || value === 'false') return value === 'true';
  return Number(value);
}

function ruleRecord(type: 'created' | 'updated' | 'deleted', rule: AlertRuleRow): Recorded {
  const data = { ...rule, value: thresholdValue(rule.value) };
  return {
    change: {
      entity: 'alert_rules',
      entityId: rule.id,
      action: type === 'created' ? 'create' : type === 'updated' ? 'update' : 'delete',
      changes: type === 'deleted' ? undefined : data,
    },
    // A rule is firm-wide: its events carry no company.
    event: {
      type: `alert_rule.${type}`,
      companyId: null,
      resourceType: 'alert_rule',
      resourceId: rule.id,
      data,
    },
  };
}

type RuleScope = Pick<AlertRuleRow, 'firm_id' | 'fund_id' | 'company_ids'>;

/**
 * Whether the caller may see every company a rule covers: its list, every company of its fund (as
 * the fund is now), or, for a rule over the whole firm, every company there is or will be.
 */
export async function coversRule(ctx: ServiceContext, rule: RuleScope): Promise<boolean> {
  const visible = ctx.principal.scope.companyIds;
  if (visible === null) return true;
  if (rule.company_ids) return rule.company_ids.every((id) => visible.includes(id));
  if (!rule.fund_id) return false;
  const members = await ctx.repos.companies.all(
    { firmId: rule.firm_id, companyIds: null },
    { fundId: rule.fund_id },
  );
  return members.every((c) => visible.includes(c.id));
}

/**
 * The stored rule with this id when the caller may change or delete it: a rule reaching companies
 * they cannot see is answered exactly as a rule that does not exist.
 */
export async function ruleToChange(ctx: ServiceContext, id: string): Promise<AlertRuleRow> {
  const rule = await ctx.repos.alerts.getRule(ctx.principal.firm.id, id);
  if (!rule || !(await coversRule(ctx, rule)))
    throw new NotFound(`no alert rule with id ${id}; GET /v1/alert-rules/ lists them`);
  return rule;
}

/** A rule as it would be stored must stay within the caller's companies; the field says how. */
async function checkReach(ctx: ServiceContext, rule: AlertRuleRow): Promise<void> {
  if (await coversRule(ctx, rule)) return;
  if (rule.fund_id)
    throw InvalidInput.field(
      'fund_id',
      'the fund holds companies you cannot see; name yours in company_ids instead',
    );
  throw InvalidInput.field(
    'company_ids',
    'a rule over every company needs access to every company; give the companies (or a fund)',
  );
}

/** Stores a checked new rule with its change-log row and `alert_rule.created` event. */
export async function createRule(ctx: ServiceContext, rule: AlertRuleRow): Promise<void> {
  await checkReach(ctx, rule);
  return withRecorder(
    ctx,
    async (repos, recorder) => {
      await repos.alerts.insertRule(rule);
      await record(recorder, ruleRecord('created', rule));
    },
    rule.created_at,
  );
}

/**
 * Stores a checked change of a rule the caller may change, which stays within their companies; the
 * next evaluation pass clears and re-raises its alerts.
 */
export async function updateRule(ctx: ServiceContext, rule: AlertRuleRow): Promise<void> {
  await ruleToChange(ctx, rule.id);
  await checkReach(ctx, rule);
  return withRecorder(
    ctx,
    async (repos, recorder) => {
      await repos.alerts.updateRule(rule);
      await record(recorder, ruleRecord('updated', rule));
    },
    rule.updated_at,
  );
}

/** Deletes a rule the caller may change, and its alerts; the rule as it was. */
export async function deleteRule(ctx: ServiceContext, id: string): Promise<AlertRuleRow> {
  const rule = await ruleToChange(ctx, id);
  await withRecorder(ctx, async (repos, recorder) => {
    await repos.alerts.deleteRule(rule.firm_id, rule.id);
    await record(recorder, ruleRecord('deleted', rule));
  });
  return rule;
}
