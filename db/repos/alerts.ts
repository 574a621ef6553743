import type { Knex } from 'knex';
import type { Scope } from '../../core/principal.ts';
import { isPostgres } from '../knex.ts';

export interface AlertRuleRow {
  id: string;
  firm_id: string;
  name: string;
  figure: string;
  op: string;
  /** The threshold as text: a decimal, or true/false for `stale`. */
  value: string;
  fund_id: string | null;
  /** Null: every company (of the fund, when fund_id is set). */
  company_ids: string[] | null;
  created_by: string | null;
  created_at: string;
  updated_at: string;
}

export interface AlertRow {
  id: string;
  firm_id: string;
  rule_id: string;
  company_id: string;
  status: 'open' | 'closed';
  figure: string;
  op: string;
  threshold: string;
  /** The figure's value when the alert was raised. */
  value: string;
  /** The figure's value at the latest evaluation (null once it has no value). */
  current_value: string | null;
  since: string;
  cleared_at: string | null;
}

/** An open alert as listed: with its company's and rule's names. */
export interface ListedAlertRow extends AlertRow {
  company_name: string;
  rule_name: string;
}

type StoredRule = Omit<AlertRuleRow, 'company_ids'> & { company_ids: string | null };

const toRule = (r: StoredRule): AlertRuleRow => ({
  ...r,
  company_ids: r.company_ids === null ? null : (JSON.parse(r.company_ids) as string[]),
});

const openKey = (ruleId: string, companyId: string) => `${ruleId}:${companyId}`;

/** Alert rules, the alerts they raise and the evaluator's cursor per firm. */
export function alertsRepo(db: Knex) {
  return {
    async insertRule(rule: AlertRuleRow): Promise<void> {
      await db('alert_rules').insert({
        ...rule,
        company_ids: rule.company_ids === null ? null : JSON.stringify(rule.company_ids),
      });
    },
    async getRule(firmId: string, id: string): Promise<AlertRuleRow | undefined> {
      const row = (await db('alert_rules').where({ firm_id: firmId, id }).first()) as StoredRule | undefined;
      return row && toRule(row);
    },
    /** A firm's rules, oldest first. */
    async listRules(firmId: string): Promise<AlertRuleRow[]> {
      const rows = (await db('alert_rules')
        .where('firm_id', firmId)
        .orderBy([{ column: 'created_at' }, { column: 'id' }])) as StoredRule[];
      return rows.map(toRule);
    },
    async updateRule(rule: AlertRuleRow): Promise<void> {
      const { id, firm_id, ...rest } = rule;
      await db('alert_rules')
        .where({ firm_id, id })
        .update({
          ...rest,
          company_ids: rest.company_ids === null ? null : JSON.stringify(rest.company_ids),
        });
    },
    /** Deletes a rule and its alerts; false when there was none. */
    async deleteRule(firmId: string, id: string): Promise<boolean> {
      return (await db('alert_rules').where({ firm_id: firmId, id }).delete()) > 0;
    },
    /** Firms with at least one rule: the only ones the evaluator visits. */
    async firmsWithRules(): Promise<string[]> {
      const rows = (await db('alert_rules').distinct('firm_id').orderBy('firm_id')) as { firm_id: string }[];
      return rows.map((r) => r.firm_id);
    },

    /** Open alerts of a firm's rules (all, or of these rules). */
    async openAlerts(firmId: string, ruleIds?: readonly string[]): Promise<AlertRow[]> {
      const q = db('alerts').where({ firm_id: firmId, status: 'open' });
      if (ruleIds) q.whereIn('rule_id', ruleIds as string[]);
      return (await q.orderBy([{ column: 'since' }, { column: 'id' }])) as AlertRow[];
    },
    /** The visible open alerts, newest first, with company and rule names. */
    async listOpen(scope: Scope, filter: { companyId?: string; ruleId?: string }): Promise<ListedAlertRow[]> {
      const q = db('alerts')
        .join('companies', 'companies.id', 'alerts.company_id')
        .join('alert_rules', 'alert_rules.id', 'alerts.rule_id')
        .where({ 'alerts.firm_id': scope.firmId, 'alerts.status': 'open' });
      if (scope.companyIds) q.whereIn('alerts.company_id', scope.companyIds as string[]);
      if (filter.companyId) q.where('alerts.company_id', filter.companyId);
      if (filter.ruleId) q.where('alerts.rule_id', filter.ruleId);
      return (await q
        .orderBy([{ column: 'alerts.since', order: 'desc' }, { column: 'alerts.id' }])
        .select(
          'alerts.*',
          'companies.name as company_name',
          'alert_rules.name as rule_name',
        )) as ListedAlertRow[];
    },
    async open(alert: Omit<AlertRow, 'status' | 'cleared_at'>): Promise<void> {
      await db('alerts').insert({
        ...alert,
        status: 'open',
        open_key: openKey(alert.rule_id, alert.company_id),
        cleared_at: null,
      });
    },
    async close(id: string, clearedAt: string, currentValue: string | null): Promise<void> {
      await db('alerts')
        .where('id', id)
        .update({ status: 'closed', open_key: null, cleared_at: clearedAt, current_value: currentValue });
    },
    async setCurrent(id: string, currentValue: string | null): Promise<void> {
      await db('alerts').where('id', id).update({ current_value: currentValue });
    },
    /** Open alerts per rule over every firm, for /metrics. */
    async openCounts(): Promise<{ rule_id: string; count: number }[]> {
      const rows = (await db('alerts')
        .where('status', 'open')
        .groupBy('rule_id')
        .select('rule_id')
        .count({ count: '*' })) as { rule_id: string; count: number | string }[];
      return rows.map((r) => ({ rule_id: r.rule_id, count: Number(r.count) }));
    },

    /**
     * The firm's evaluator cursor, locked until the caller's transaction ends (PostgreSQL: the row is
     * locked FOR UPDATE; SQLite: the transaction already holds the single write lock). Undefined when
     * another node holds it: that node is evaluating the firm now.
     */
    async lockCursor(firmId: string): Promise<{ afterSeq: number; dailyAt: string | null } | undefined> {
      await db('alert_cursors')
        .insert({ firm_id: firmId, after_seq: 0, daily_at: null })
        .onConflict('firm_id')
        .ignore();
      const q = db('alert_cursors').where('firm_id', firmId);
      if (isPostgres(db)) q.forUpdate().skipLocked();
      const row = (await q.first()) as { after_seq: number | string; daily_at: string | null } | undefined;
      return row && { afterSeq: Number(row.after_seq), dailyAt: row.daily_at };
    },
    async setCursor(firmId: string, cursor: { afterSeq: number; dailyAt: string | null }): Promise<void> {
      await db('alert_cursors')
        .where('firm_id', firmId)
        .update({ after_seq: cursor.afterSeq, daily_at: cursor.dailyAt });
    },
    /** The newest event sequence number of a firm (0 when none). */
    async lastSeq(firmId: string): Promise<number> {
      const row = (await db('events').where('firm_id', firmId).max({ seq: 'seq' }).first()) as
        | { seq: number | string | null }
        | undefined;
      return Number(row?.seq ?? 0);
    },

    /**
     * Per company, how many days its most overdue information report is past its request's due date
     * without a submission; companies with none are absent.
     */
    async lateReports(
      firmId: string,
      companyIds: readonly string[],
      today: string,
    ): Promise<Map<string, string>> {
      const out = new Map<string, string>();
      for (let i = 0; i < companyIds.length; i += 500) {
        const rows = (await db('information_reports')
          .join(
            'information_requests',
            'information_requests.id',
            'information_reports.information_request_id',
          )
          .where('information_reports.firm_id', firmId)
          .whereIn('information_reports.company_id', companyIds.slice(i, i + 500) as string[])
          .whereNull('information_reports.submitted_at')
          // A closed request takes no more answers: its reports are no longer chased.
          .whereNot('information_requests.status', 'closed')
          .where('information_requests.due_date', '<', today)
          .groupBy('information_reports.company_id')
          .select('information_reports.company_id')
          .min({ due: 'information_requests.due_date' })) as { company_id: string; due: string }[];
        for (const r of rows) {
          const days = Math.round((Date.parse(today) - Date.parse(r.due)) / 86400000);
          out.set(r.company_id, String(days));
        }
      }
      return out;
    },
  };
}
export type AlertsRepo = ReturnType<typeof alertsRepo>;
