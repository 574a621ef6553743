// Evaluates a firm's alert rules: for the companies that the events since the stored cursor touched,
// or (once a day) for every rule and company. The firm's cursor row is locked for the whole pass, so
// two nodes never evaluate one firm at once; each change of an alert appends its event in the same
// transaction as the change.

import type { ReadContext } from '../analytics/context.ts';
import { loadPortfolio } from '../analytics/portfolio.ts';
import { figuresOf } from '../analytics/screen.ts';
import type { FigureName } from '../analytics/screen-figures.ts';
import type { Clock } from '../core/clock.ts';
import { utcDate } from '../core/clock.ts';
import type { Logger } from '../core/logger.ts';
import type { Firm, Principal, User } from '../core/principal.ts';
import { newId } from '../db/ids.ts';
import type { AlertRow, AlertRuleRow } from '../db/repos/alerts.ts';
import type { EventRow } from '../db/repos/events.ts';
import { inTransaction, type Repos } from '../db/repos/index.ts';
import { type Recorded, type Recorder, record, SYSTEM_ACTOR } from '../services/changes.ts';
import { conditionHolds, isScreenFigure, type RuleOp, thresholdValue } from './rules.ts';

export const DAY_MS = 86_400_000;
/** Events read per pass; a longer backlog is worked through over the next passes. */
const EVENTS_PER_PASS = 5000;

export interface EvaluatorDeps {
  repos: Repos;
  clock: Clock;
  logger: Logger;
}

export interface PassResult {
  /** False when another node held the firm's cursor. */
  ran: boolean;
  daily: boolean;
  triggered: number;
  cleared: number;
}

/** What a pass re-evaluates: every rule over these companies (null: all), and these rules over all of theirs. */
interface Targets {
  companies: Set<string> | null;
  rules: Set<string>;
}

/**
 * One pass over a firm: `changes` evaluates what the new events touched, `all` every rule and company,
 * `auto` the daily pass when the last one is a day old and the change pass otherwise.
 */
export async function evaluateFirm(
  deps: EvaluatorDeps,
  firmId: string,
  mode: 'changes' | 'all' | 'auto' = 'auto',
): Promise<PassResult> {
  return inTransaction(deps.repos, async (repos) => {
    const cursor = await repos.alerts.lockCursor(firmId);
    const firm = await repos.firms.get(firmId);
    if (!cursor || !firm) return { ran: false, daily: false, triggered: 0, cleared: 0 };
    const now = deps.clock.now();
    const daily =
      mode === 'all' ||
      (mode === 'auto' && (cursor.dailyAt === null || now.getTime() - Date.parse(cursor.dailyAt) >= DAY_MS));
    const events = await repos.events.list(firmId, { afterSeq: cursor.afterSeq, limit: EVENTS_PER_PASS });
    const targets: Targets = daily ? { companies: null, rules: new Set() } : targetsOf(events);
    const idle = targets.companies?.size === 0 && targets.rules.size === 0;
    const counts = idle
      ? { triggered: 0, cleared: 0 }
      : await evaluate({ ...deps, repos }, firm, targets, now);
    await repos.alerts.setCursor(firmId, {
      afterSeq: events.at(-1)?.seq ?? cursor.afterSeq,
      dailyAt: daily ? now.toISOString() : cursor.dailyAt,
    });
    return { ran: true, daily, ...counts };
  });
}

/** The companies and rules a batch of events touched; an event of no company touches them all. */
function targetsOf(events: EventRow[]): Targets {
  const targets: Targets = { companies: new Set(), rules: new Set() };
  for (const e of events) {
    if (e.type.startsWith('alert.')) continue;
    if (e.type.startsWith('alert_rule.')) {
      if (e.resource_id) targets.rules.add(e.resource_id);
    } else if (e.company_id === null) targets.companies = null;
    else targets.companies?.add(e.company_id);
  }
  return targets;
}

/** The service itself, seeing every company of the firm (with the cap-table permission, for its figures). */
function systemContext(deps: EvaluatorDeps, firm: Firm): ReadContext {
  const user: User = {
    id: 'system',
    firm_id: firm.id,
    email: '',
    first_name: 'alerts',
    last_name: '',
    password_hash: '',
    role: 'admin',
    all_companies: true,
    can_view_documents: false,
    can_edit_cap_table: true,
    is_active: true,
    created_at: firm.created_at,
  };
  const principal: Principal = {
    kind: 'user',
    key: 'system:alerts',
    tokenId: '',
    user,
    firm,
    scope: { firmId: firm.id, companyIds: null },
    scopes: ['read'],
  };
  return { principal, repos: deps.repos, clock: deps.clock };
}

/** Each rule's companies: its list, its fund's or every company of the firm. */
async function companiesOf(ctx: ReadContext, rules: AlertRuleRow[]): Promise<Map<string, string[]>> {
  const scope = ctx.principal.scope;
  const all = (await ctx.repos.companies.all(scope, {})).map((c) => c.id);
  const known = new Set(all);
  const byFund = new Map<string, string[]>();
  const out = new Map<string, string[]>();
  for (const rule of rules) {
    if (rule.company_ids)
      out.set(
        rule.id,
        rule.company_ids.filter((id) => known.has(id)),
      );
    else if (rule.fund_id) {
      if (!byFund.has(rule.fund_id)) {
        const members = await ctx.repos.companies.all(scope, { fundId: rule.fund_id });
        byFund.set(
          rule.fund_id,
          members.map((c) => c.id),
        );
      }
      out.set(rule.id, byFund.get(rule.fund_id)!);
    } else out.set(rule.id, all);
  }
  return out;
}

/** Every watched figure of these companies, by company then figure. */
async function valuesOf(
  ctx: ReadContext,
  companyIds: string[],
  figures: Set<string>,
): Promise<Map<string, Map<string, string | null>>> {
  const out = new Map<string, Map<string, string | null>>();
  if (companyIds.length === 0) return out;
  const portfolio = await loadPortfolio(ctx, { company_ids: companyIds });
  const screen = new Set([...figures].filter(isScreenFigure) as FigureName[]);
  const computed =
    screen.size > 0 ? await figuresOf(ctx, portfolio.companies, screen, undefined, portfolio) : [];
  const late = figures.has('late_information_report')
    ? await ctx.repos.alerts.lateReports(ctx.principal.firm.id, companyIds, utcDate(ctx.clock.now()))
    : new Map<string, string>();
  portfolio.companies.forEach((c, i) => {
    const values = new Map<string, string | null>();
    for (const f of screen) values.set(f, computed[i]!.cells[f].value);
    values.set('stale', String(c.stale));
    values.set('late_information_report', late.get(c.company.id) ?? '0');
    out.set(c.company.id, values);
  });
  return out;
}

async function evaluate(
  deps: EvaluatorDeps,
  firm: Firm,
  targets: Targets,
  now: Date,
): Promise<{ triggered: number; cleared: number }> {
  const ctx = systemContext(deps, firm);
  const { repos } = deps;
  const rules = await repos.alerts.listRules(firm.id);
  const members = await companiesOf(ctx, rules);
  // Per rule: the companies to evaluate, and whether that is all of them (then alerts of others close).
  const plan = rules.map((rule) => {
    const whole = targets.companies === null || targets.rules.has(rule.id);
    const companies = members.get(rule.id)!.filter((id) => whole || targets.companies!.has(id));
    return { rule, whole, companies };
  });
  const union = [...new Set(plan.flatMap((p) => p.companies))];
  const figures = new Set(plan.filter((p) => p.companies.length > 0).map((p) => p.rule.figure));
  const values = await valuesOf(ctx, union, figures);
  const open = new Map<string, AlertRow>();
  for (const a of await repos.alerts.openAlerts(firm.id)) open.set(`${a.rule_id}:${a.company_id}`, a);
  const at = now.toISOString();
  const counts = { triggered: 0, cleared: 0 };
  const names = new Map(
    (await repos.companies.all(ctx.principal.scope, { ids: union })).map((c) => [c.id, c.name]),
  );
  const recorder: Recorder = { repos, firmId: firm.id, actor: SYSTEM_ACTOR, at };

  const clear = async (alert: AlertRow, value: string | null) => {
    await repos.alerts.close(alert.id, at, value);
    await record(
      recorder,
      alertEvent('alert.cleared', alert, { ...alert, current_value: value, cleared_at: at }, names),
    );
    counts.cleared++;
  };
  for (const { rule, whole, companies } of plan) {
    for (const companyId of companies) {
      const value = values.get(companyId)?.get(rule.figure) ?? null;
      const holds = conditionHolds(value, rule.op as RuleOp, rule.value);
      let alert = open.get(`${rule.id}:${companyId}`);
      // A rule whose condition changed: its alerts under the old condition end.
      if (alert && (alert.figure !== rule.figure || alert.op !== rule.op || alert.threshold !== rule.value)) {
        await clear(alert, value);
        alert = undefined;
      }
      if (alert && !holds) await clear(alert, value);
      else if (alert && alert.current_value !== value) await repos.alerts.setCurrent(alert.id, value);
      else if (!alert && holds && value !== null) {
        const raised = newAlert(rule, companyId, value, at);
        await repos.alerts.open(raised);
        await record(recorder, alertEvent('alert.triggered', raised, raised, names, rule));
        counts.triggered++;
      }
    }
    if (whole) {
      const inScope = new Set(companies);
      for (const alert of open.values())
        if (alert.rule_id === rule.id && !inScope.has(alert.company_id)) await clear(alert, null);
    }
  }
  return counts;
}

function newAlert(rule: AlertRuleRow, companyId: string, value: string, at: string): AlertRow {
  return {
    id: newId(),
    firm_id: rule.firm_id,
    rule_id: rule.id,
    company_id: companyId,
    status: 'open',
    figure: rule.figure,
    op: rule.op,
    threshold: rule.value,
    value,
    current_value: value,
    since: at,
    cleared_at: null,
  };
}

/** An alert's change event; the service records it (an alert keeps no change-log row). */
function alertEvent(
  type: 'alert.triggered' | 'alert.cleared',
  alert: AlertRow,
  now: AlertRow,
  names: Map<string, string>,
  rule?: AlertRuleRow,
): Recorded {
  const event = {
    type,
    companyId: alert.company_id,
    resourceType: 'alert',
    resourceId: alert.id,
    data: {
      alert_id: alert.id,
      rule_id: alert.rule_id,
      ...(rule ? { rule_name: rule.name } : {}),
      company_id: alert.company_id,
      company_name: names.get(alert.company_id) ?? null,
      figure: alert.figure,
      op: alert.op,
      threshold: thresholdValue(alert.threshold),
      value: type === 'alert.triggered' ? alert.value : now.current_value,
      since: alert.since,
      ...(type === 'alert.cleared' ? { cleared_at: now.cleared_at } : {}),
    },
  };
  return { event };
}
