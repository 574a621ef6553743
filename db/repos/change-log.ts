import type { Knex } from 'knex';
import { newId } from '../ids.ts';

export type ChangeAction = 'create' | 'update' | 'delete';

/** One write to record: which record, what happened, by whom and when, and what was written. */
export interface Change {
  firmId: string;
  /** The kind of record, named after its table: 'companies', 'notes', 'documents', … */
  entity: string;
  entityId: string;
  action: ChangeAction;
  /** The user who made the change; null for a firm-wide application token or the CLI. */
  changedBy: string | null;
  changedAt: string;
  /** The fields written, as given; stored as JSON. */
  changes?: Record<string, unknown>;
}

export interface ChangeRow {
  id: string;
  firm_id: string;
  entity: string;
  entity_id: string;
  action: ChangeAction;
  changed_by: string | null;
  changed_at: string;
  changes: string | null;
}

/** The change history of records other than metric values: written in the same transaction as the change. */
export function changeLogRepo(db: Knex) {
  return {
    async record(...changes: Change[]): Promise<void> {
      if (changes.length === 0) return;
      const rows = changes.map((c) => ({
        id: newId(),
        firm_id: c.firmId,
        entity: c.entity,
        entity_id: c.entityId,
        action: c.action,
        changed_by: c.changedBy,
        changed_at: c.changedAt,
        changes: c.changes === undefined ? null : JSON.stringify(c.changes),
      }));
      // Bounded batches keep every insert under SQLite's limit on bound parameters.
      for (let i = 0; i < rows.length; i += 500) await db('change_log').insert(rows.slice(i, i + 500));
    },

    /** The history of one record, oldest first. */
    async of(firmId: string, entity: string, entityId: string): Promise<ChangeRow[]> {
      return (await db('change_log')
        .where({ firm_id: firmId, entity, entity_id: entityId })
        .orderBy([{ column: 'changed_at' }, { column: 'id' }])
        .select('*')) as ChangeRow[];
    },
  };
}
export type ChangeLogRepo = ReturnType<typeof changeLogRepo>;
