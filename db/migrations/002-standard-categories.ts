import type { Knex } from 'knex';
import { STANDARD_CATEGORIES, standardCategoryId } from '../../core/categories.ts';

export async function up(knex: Knex): Promise<void> {
  const createdAt = '2020-01-01T00:00:00.000Z';
  await knex('metric_categories').insert(
    STANDARD_CATEGORIES.map((c) => ({
      id: standardCategoryId(c.name),
      firm_id: null,
      name: c.name,
      is_standard: true,
      category_type: c.kind,
      is_point_in_time: c.pointInTime,
      is_archived: false,
      is_multiple: false,
      choices: null,
      created_at: createdAt,
    })),
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex('metric_categories').whereNull('firm_id').delete();
}
