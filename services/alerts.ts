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

/** Stores a checked new rule with its change-log row and `alert_rule.created` event. */
export function createRule(ctx: ServiceContext, rule: AlertRuleRow): Promise<void> {
  return withRecorder(
    ctx,
    async (repos, recorder) => {
      await repos.alerts.insertRule(rule);
      await record(recorder, ruleRecord('created', rule));
    },
    rule.created_at,
  );
}

/** Stores a checked change of a rule; the next evaluation pass clears and re-raises its alerts. */
export function updateRule(ctx: ServiceContext, rule: AlertRuleRow): Promise<void> {
  return withRecorder(
    ctx,
    async (repos, recorder) => {
      await repos.alerts.updateRule(rule);
      await record(recorder, ruleRecord('updated', rule));
    },
    rule.updated_at,
  );
}

/** Deletes a rule and its alerts. */
export function deleteRule(ctx: ServiceContext, rule: AlertRuleRow): Promise<void> {
  return withRecorder(ctx, async (repos, recorder) => {
    await repos.alerts.deleteRule(rule.firm_id, rule.id);
    await record(recorder, ruleRecord('deleted', rule));
  });
}
