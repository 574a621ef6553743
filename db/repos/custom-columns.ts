import type { Knex } from 'knex';
import type { Scope } from '../../core/principal.ts';
import type { Counted, Page } from '../types.ts';
import { countAndPage, scoped } from './util.ts';

export type CustomColumnType = 'text' | 'select' | 'multi_select';

export interface CustomColumnRow {
  id: string;
  firm_id: string;
  name: string;
  type: CustomColumnType;
  created_at: string;
}

export interface CustomColumnOptionRow {
  id: string;
  column_id: string;
  value: string;
  color: string;
  position: number;
}

/** One company's value of one column; select columns hold option ids instead of text. */
export interface CustomColumnValueRow {
  id: string;
  column_id: string;
  company_id: string;
  column_name: string;
  column_type: CustomColumnType;
  company_name: string;
  company_slug: string;
  value_text: string | null;
  option_ids: string[];
}

function parseOptionIds(raw: unknown): string[] {
  if (typeof raw !== 'string' || raw === '') return [];
  const parsed: unknown = JSON.parse(raw);
  return Array.isArray(parsed) ? parsed.map(String) : [];
}

export function customColumnsRepo(db: Knex) {
  return {
    /** Stored values of the visible companies, by company name, then column name. */
    async listValues(
      scope: Scope,
      filter: { companyId?: string },
      page: Page,
    ): Promise<Counted<CustomColumnValueRow>> {
      const base = scoped(
        db('custom_column_values')
          .join('companies', 'companies.id', 'custom_column_values.company_id')
          .join('custom_columns', 'custom_columns.id', 'custom_column_values.column_id'),
        scope,
        'companies',
        'id',
      );
      if (filter.companyId) base.where('custom_column_values.company_id', filter.companyId);
      const result = await countAndPage<Omit<CustomColumnValueRow, 'option_ids'> & { option_ids: unknown }>(
        db,
        base,
        page,
        (qb) =>
          qb.orderBy([
            { column: 'companies.name' },
            { column: 'companies.id' },
            { column: 'custom_columns.name' },
            { column: 'custom_columns.id' },
          ]),
        (qb) =>
          qb.select(
            'custom_column_values.id',
            'custom_column_values.column_id',
            'custom_column_values.company_id',
            'custom_column_values.value_text',
            'custom_column_values.option_ids',
            'custom_columns.name as column_name',
            'custom_columns.type as column_type',
            'companies.name as company_name',
            'companies.slug as company_slug',
          ),
      );
      return {
        count: result.count,
        rows: result.rows.map((r) => ({ ...r, option_ids: parseOptionIds(r.option_ids) })),
      };
    },
    /** The firm's column definitions, by name. */
    async listColumns(firmId: string, page: Page): Promise<Counted<CustomColumnRow>> {
      const base = db('custom_columns').where('custom_columns.firm_id', firmId);
      return countAndPage<CustomColumnRow>(db, base, page, (qb) =>
        qb.orderBy([{ column: 'custom_columns.name' }, { column: 'custom_columns.id' }]),
      );
    },
    /** The options of these columns, each column's in its display order. */
    async options(columnIds: string[]): Promise<Map<string, CustomColumnOptionRow[]>> {
      const byColumn = new Map<string, CustomColumnOptionRow[]>();
      if (columnIds.length === 0) return byColumn;
      const rows = (await db('custom_column_options')
        .whereIn('column_id', [...new Set(columnIds)])
        .orderBy([
          { column: 'column_id' },
          { column: 'position' },
          { column: 'id' },
        ])) as CustomColumnOptionRow[];
      for (const row of rows) {
        const list = byColumn.get(row.column_id) ?? [];
        list.push({ ...row, position: Number(row.position) });
        byColumn.set(row.column_id, list);
      }
      return byColumn;
    },
    async createColumn(column: CustomColumnRow, options: Omit<CustomColumnOptionRow, 'column_id'>[] = []) {
      await db.transaction(async (trx) => {
        await trx('custom_columns').insert(column);
        if (options.length > 0) {
          await trx('custom_column_options').insert(options.map((o) => ({ ...o, column_id: column.id })));
        }
      });
    },
    /** The firm's columns among these ids. */
    async columnsByIds(firmId: string, ids: string[]): Promise<Map<string, CustomColumnRow>> {
      if (ids.length === 0) return new Map();
      const rows = (await db('custom_columns')
        .where('firm_id', firmId)
        .whereIn('id', [...new Set(ids)])) as CustomColumnRow[];
      return new Map(rows.map((r) => [r.id, r]));
    },
    /** The id of one company's value of one column, when it has one. */
    async valueId(companyId: string, columnId: string): Promise<string | undefined> {
      const row = (await db('custom_column_values')
        .where({ company_id: companyId, column_id: columnId })
        .first('id')) as { id: string } | undefined;
      return row?.id;
    },
    /** Sets one company's value of one column: text for text columns, option ids for the others. */
    async setValue(value: {
      id: string;
      column_id: string;
      company_id: string;
      value_text?: string | null;
      option_ids?: string[] | null;
    }): Promise<void> {
      const row = {
        id: value.id,
        column_id: value.column_id,
        company_id: value.company_id,
        value_text: value.value_text ?? null,
        option_ids: value.option_ids ? JSON.stringify(value.option_ids) : null,
      };
      await db('custom_column_values')
        .insert(row)
        .onConflict(['company_id', 'column_id'])
        .merge(['value_text', 'option_ids']);
    },
  };
}
export type CustomColumnsRepo = ReturnType<typeof customColumnsRepo>;
