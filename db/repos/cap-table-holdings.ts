import type { Knex } from 'knex';
import type { Scope } from '../../core/principal.ts';
import {
  flagOrNull,
  ID_BATCH,
  type MoneyColumns,
  moneyColumns,
  parseDetails,
  type Raw,
  readMoney,
  SECURITY,
  type SecurityRow,
  SHARE_CLASS,
  type ShareClassRow,
  TRANSACTION,
  type TransactionRow,
  tableRow,
  textOrNull,
  withCompanyName,
} from './cap-table-rows.ts';
import type {
  NewSecurity,
  NewShareClass,
  NewTransaction,
  SecurityFilter,
  SecurityRecord,
  ShareClassFilter,
  ShareClassRecord,
  ShareClassRef,
  TransactionFilter,
  TransactionRecord,
} from './cap-table-types.ts';
import { chunk, insertBatched, scoped } from './util.ts';

/** The holdings of the cap table: share classes, the funds' securities and their transactions. */
export function holdingsRepo(db: Knex) {
  return {
    /** Every visible share class that matches, by its round's closing date, then name, then id. */
    async shareClasses(scope: Scope, filter: ShareClassFilter): Promise<ShareClassRecord[]> {
      const qb = withCompanyName(scoped(db('share_classes'), scope, 'share_classes'), 'share_classes').join(
        'financings',
        'financings.id',
        'share_classes.financing_id',
      );
      if (filter.companyIds) qb.whereIn('share_classes.company_id', filter.companyIds);
      if (filter.shareClassIds) qb.whereIn('share_classes.id', filter.shareClassIds);
      if (filter.purchaseType) qb.where('share_classes.purchase_type', filter.purchaseType);
      const raws = (await qb
        .select(
          'share_classes.id',
          'share_classes.company_id',
          'companies.name as company_name',
          'share_classes.financing_id',
          'financings.closing_date',
          'share_classes.purchase_type',
          'share_classes.type',
          'share_classes.name',
          ...moneyColumns('share_classes', 'price_per_share'),
          'share_classes.include_in_fair_value',
        )
        .orderBy([
          { column: 'financings.closing_date' },
          { column: 'share_classes.name' },
          { column: 'share_classes.id' },
        ])) as ShareClassRow[];
      return raws.map((r) => ({
        id: r.id,
        company_id: r.company_id,
        company_name: r.company_name,
        financing_id: r.financing_id,
        closing_date: r.closing_date,
        purchase_type: r.purchase_type,
        type: r.type,
        name: r.name,
        price_per_share: readMoney(r, 'price_per_share'),
        include_in_fair_value: flagOrNull(r.include_in_fair_value),
      }));
    },

    /** Every visible security that matches, by issue date, then id. */
    async securities(scope: Scope, filter: SecurityFilter): Promise<SecurityRecord[]> {
      const qb = withCompanyName(scoped(db('securities'), scope, 'securities'), 'securities')
        .join('funds', 'funds.id', 'securities.fund_id')
        .leftJoin('share_classes', 'share_classes.id', 'securities.share_class_id');
      if (filter.companyIds) qb.whereIn('securities.company_id', filter.companyIds);
      if (filter.securityIds) qb.whereIn('securities.id', filter.securityIds);
      if (filter.fundId) qb.where('securities.fund_id', filter.fundId);
      const raws = (await qb
        .select(
          'securities.id',
          'securities.company_id',
          'companies.name as company_name',
          'securities.fund_id',
          'funds.name as fund_name',
          'securities.financing_id',
          'securities.share_class_id',
          'share_classes.name as share_class_name',
          'securities.type',
          'securities.issue_date',
          'securities.details',
        )
        .orderBy([{ column: 'securities.issue_date' }, { column: 'securities.id' }])) as SecurityRow[];
      return raws.map((r) => ({
        id: r.id,
        company_id: r.company_id,
        company_name: r.company_name,
        fund_id: r.fund_id,
        fund_name: r.fund_name,
        financing_id: textOrNull(r.financing_id),
        share_class_id: textOrNull(r.share_class_id),
        share_class_name: textOrNull(r.share_class_name),
        type: r.type,
        issue_date: r.issue_date,
        details: parseDetails(r.details),
      }));
    },

    /** Every visible transaction that matches, by date, then id. */
    async transactions(scope: Scope, filter: TransactionFilter): Promise<TransactionRecord[]> {
      const qb = withCompanyName(scoped(db('transactions'), scope, 'transactions'), 'transactions');
      if (filter.companyIds) qb.whereIn('transactions.company_id', filter.companyIds);
      if (filter.transactionIds) qb.whereIn('transactions.id', filter.transactionIds);
      if (filter.event) qb.where('transactions.event', filter.event);
      if (filter.inputSecurityId) qb.where('transactions.input_security_id', filter.inputSecurityId);
      if (filter.outputSecurityId) qb.where('transactions.output_security_id', filter.outputSecurityId);
      if (filter.inputSecurityIds) qb.whereIn('transactions.input_security_id', filter.inputSecurityIds);
      const raws = (await qb
        .select(
          'transactions.id',
          'transactions.company_id',
          'companies.name as company_name',
          'transactions.input_security_id',
          'transactions.output_security_id',
          'transactions.date',
          'transactions.event',
          'transactions.shares',
          ...moneyColumns('transactions', 'investment_amount'),
          ...moneyColumns('transactions', 'proceeds'),
        )
        .orderBy([{ column: 'transactions.date' }, { column: 'transactions.id' }])) as TransactionRow[];
      return raws.map((r) => ({
        id: r.id,
        company_id: r.company_id,
        company_name: r.company_name,
        input_security_id: textOrNull(r.input_security_id),
        output_security_id: textOrNull(r.output_security_id),
        date: r.date,
        event: r.event,
        shares: textOrNull(r.shares),
        investment_amount: readMoney(r, 'investment_amount'),
        proceeds: readMoney(r, 'proceeds'),
      }));
    },

    /** The firm's funds among `ids` (funds belong to the firm, not to companies). */
    async fundRefs(firmId: string, ids: string[]): Promise<Set<string>> {
      const out = new Set<string>();
      for (const batch of chunk([...new Set(ids)], ID_BATCH)) {
        const rows = (await db('funds').where('firm_id', firmId).whereIn('id', batch).select('id')) as {
          id: string;
        }[];
        for (const r of rows) out.add(r.id);
      }
      return out;
    },

    /** The visible share classes among `ids`, with their round's closing date and share count. */
    async shareClassRefs(scope: Scope, ids: string[]): Promise<Map<string, ShareClassRef>> {
      const out = new Map<string, ShareClassRef>();
      for (const batch of chunk([...new Set(ids)], ID_BATCH)) {
        const raws = (await scoped(db('share_classes'), scope, 'share_classes')
          .join('financings', 'financings.id', 'share_classes.financing_id')
          .whereIn('share_classes.id', batch)
          .select(
            'share_classes.id',
            'share_classes.company_id',
            'share_classes.financing_id',
            'share_classes.name',
            'financings.closing_date',
            'financings.fully_diluted_shares',
            ...moneyColumns('share_classes', 'price_per_share'),
          )) as Raw[];
        for (const r of raws) {
          out.set(r.id as string, {
            id: r.id as string,
            company_id: r.company_id as string,
            financing_id: r.financing_id as string,
            name: r.name as string,
            closing_date: r.closing_date as string,
            price_per_share: readMoney(r as MoneyColumns<'price_per_share'>, 'price_per_share'),
            fully_diluted_shares: textOrNull(r.fully_diluted_shares),
          });
        }
      }
      return out;
    },

    /** Inserts share classes; the caller runs it in the write's transaction. */
    async addShareClasses(firmId: string, rows: NewShareClass[]): Promise<void> {
      await insertBatched(
        db,
        'share_classes',
        rows.map((r) => tableRow(SHARE_CLASS, r, { firm_id: firmId })),
      );
    },

    /** Inserts securities; the caller runs it in the write's transaction. */
    async addSecurities(firmId: string, rows: NewSecurity[]): Promise<void> {
      await insertBatched(
        db,
        'securities',
        rows.map((r) => tableRow(SECURITY, r, { firm_id: firmId })),
      );
    },

    /** Inserts transactions; the caller runs it in the write's transaction, after their securities. */
    async addTransactions(firmId: string, rows: NewTransaction[]): Promise<void> {
      await insertBatched(
        db,
        'transactions',
        rows.map((r) => tableRow(TRANSACTION, r, { firm_id: firmId })),
      );
    },
  };
}
