import { newId } from '../db/ids.ts';
import { record, type ServiceContext, withRecorder } from './changes.ts';

/** One value to store: a column's text, or the options chosen (null for a text column). */
export interface ColumnValue {
  companyId: string;
  columnId: string;
  columnName: string;
  text: string | null;
  options: { id: string; value: string }[] | null;
}

/**
 * Stores custom column values (each replacing the company's value of its column), all or none, each
 * with its change-log row and a custom_column_value.updated event.
 */
export async function setColumnValues(ctx: ServiceContext, values: readonly ColumnValue[]): Promise<void> {
  await withRecorder(ctx, async (repos, recorder) => {
    for (const v of values) {
      const existing = await repos.customColumns.valueId(v.companyId, v.columnId);
      const id = existing ?? newId();
      const optionIds = v.options?.map((o) => o.id) ?? null;
      await repos.customColumns.setValue({
        id,
        column_id: v.columnId,
        company_id: v.companyId,
        value_text: v.text,
        option_ids: optionIds,
      });
      const changes = {
        company_id: v.companyId,
        column_id: v.columnId,
        value_text: v.text,
        option_ids: optionIds,
      };
      await record(recorder, {
        change: {
          entity: 'custom_column_values',
          entityId: id,
          action: existing ? 'update' : 'create',
          changes,
        },
        event: {
          type: 'custom_column_value.updated',
          companyId: v.companyId,
          resourceType: 'custom_column_value',
          resourceId: id,
          data: {
            id,
            company_id: v.companyId,
            custom_column_id: v.columnId,
            custom_column: v.columnName,
            value: v.text ?? v.options?.map((o) => o.value).join(', ') ?? '',
            selected_options: v.options?.map((o) => ({ option_id: o.id, value: o.value })) ?? [],
          },
        },
      });
    }
  });
}
