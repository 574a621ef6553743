import { prefixedId } from '../../db/ids.ts';
import type {
  FairValueOverride,
  NewFinancing,
  NewSecurity,
  NewShareClass,
  NewTransaction,
  OwnershipOverride,
  PostMoneyOverride,
} from '../../db/repos/cap-table.ts';
import type { ChangeAction } from '../../db/repos/change-log.ts';
import { type Recorded, record, type ServiceContext, withRecorder } from '../changes.ts';

/** The change-log row and the event of one cap-table record; `data` is the record as written. */
export function capTableRecord(
  entity: string,
  type: string,
  row: { id: string; company_id: string; created_at?: string },
  action: ChangeAction = 'create',
  resourceId: string = row.id,
): Recorded {
  const { id, created_at: _, ...fields } = row;
  return {
    change: { entity, entityId: resourceId, action, changes: fields },
    event: {
      type,
      companyId: row.company_id,
      resourceType: entity,
      resourceId,
      data: { ...(id ? { id } : {}), ...fields },
    },
  };
}

/** Adds financing rounds (with their co-investors and pari passu links), all or none; one event per round. */
export async function writeFinancings(ctx: ServiceContext, rows: NewFinancing[], at: string): Promise<void> {
  await withRecorder(
    ctx,
    async (repos, recorder) => {
      await repos.capTable.addFinancings(ctx.principal.firm.id, rows);
      await record(recorder, ...rows.map((r) => capTableRecord('financings', 'financing_round.created', r)));
    },
    at,
  );
}

/** Adds share classes, all or none; one share_class.created event each. */
export async function writeShareClasses(
  ctx: ServiceContext,
  rows: NewShareClass[],
  at: string,
): Promise<void> {
  await withRecorder(
    ctx,
    async (repos, recorder) => {
      await repos.capTable.addShareClasses(ctx.principal.firm.id, rows);
      await record(recorder, ...rows.map((r) => capTableRecord('share_classes', 'share_class.created', r)));
    },
    at,
  );
}

/** Adds securities and transactions (new securities first: transactions point at them), all or none. */
export async function writeSecurities(
  ctx: ServiceContext,
  securities: NewSecurity[],
  transactions: NewTransaction[],
  at: string,
): Promise<void> {
  await withRecorder(
    ctx,
    async (repos, recorder) => {
      await repos.capTable.addSecurities(ctx.principal.firm.id, securities);
      if (transactions.length > 0) await repos.capTable.addTransactions(ctx.principal.firm.id, transactions);
      await record(
        recorder,
        ...securities.map((r) => capTableRecord('securities', 'security.created', r)),
        ...transactions.map((r) => capTableRecord('transactions', 'transaction.created', r)),
      );
    },
    at,
  );
}

export interface Overrides {
  ownerships: OwnershipOverride[];
  valuations: PostMoneyOverride[];
  fairValues: FairValueOverride[];
}

/**
 * Sets overrides, each replacing the one of the same company, fund and date; the change log and the
 * override.updated event name an override by what identifies it (company, fund and date).
 */
export async function writeOverrides(ctx: ServiceContext, o: Overrides, at: string): Promise<void> {
  const firmId = ctx.principal.firm.id;
  const key = (...parts: string[]) => parts.join('/');
  const recorded = (entity: string, kind: string, id: string, row: { company_id: string }): Recorded => {
    const r = capTableRecord(entity, 'override.updated', { ...row, id: '' }, 'create', id);
    return { ...r, event: { ...r.event!, data: { kind, key: id, ...row } } };
  };
  await withRecorder(
    ctx,
    async (repos, recorder) => {
      const log: Recorded[] = [];
      for (const row of o.ownerships) {
        await repos.capTable.upsertOwnershipOverride(firmId, prefixedId('own'), row, at);
        log.push(
          recorded('ownership_overrides', 'ownership', key(row.company_id, row.fund_id, row.date), row),
        );
      }
      for (const row of o.valuations) {
        await repos.capTable.upsertPostMoneyOverride(firmId, prefixedId('pmv'), row, at);
        log.push(
          recorded(
            'post_money_valuation_overrides',
            'post_money_valuation',
            key(row.company_id, row.date),
            row,
          ),
        );
      }
      for (const row of o.fairValues) {
        await repos.capTable.upsertFairValueOverride(firmId, row, at, prefixedId('fvo'));
        log.push(
          recorded('fair_value_overrides', 'fair_value', key(row.company_id, row.fund_id, row.date), row),
        );
      }
      await record(recorder, ...log);
    },
    at,
  );
}
