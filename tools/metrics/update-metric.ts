import { z } from 'zod';
import type { User } from '../../core/principal.ts';
import { updateMetric as updateMetricValue } from '../../services/metrics.ts';
import { defineTool } from '../define.ts';
import { MissingParameter } from '../errors.ts';
import { CurrencyCode } from '../schemas/currency.ts';

/** At most 20 comments are added per call, so the latest 20 always hold every one just written. */
export const LATEST_COMMENTS = 20;

const Comment = z.object({
  content: z.string().describe('The comment text.'),
  updated_by: z.string().describe('Full name (or e-mail address) of the user who added the comment.'),
  updated_at: z.string().describe('When the comment was added, ISO 8601 UTC.'),
});

export const MetricUpdateResult = z.object({
  id: z.string().describe('Datum identifier.'),
  value: z.string().describe('The value after the update.'),
  currency: z
    .string()
    .nullable()
    .describe('Currency of value after the update; null for values that are not money.'),
  comments: z
    .array(Comment)
    .describe(
      `The latest ${LATEST_COMMENTS} comments of the datum (every one this call added among them), oldest first.`,
    ),
  comments_total: z.number().int().describe('How many comments the datum has in all.'),
});

/** `updated_by` of a comment: the caller's full name, or the e-mail address when no name is set. */
export function displayName(user: User): string {
  return `${user.first_name} ${user.last_name}`.trim() || user.email;
}

export const updateMetric = defineTool({
  name: 'update_metric',
  title: 'Update one metric value',
  description:
    "Changes one metric datum's value or currency, or appends comments (never replacing them). Datum ids come from get_company_metrics. Needs the editor or admin role; every change is kept in the metric history.",
  input: z.object({
    datum_id: z
      .string()
      .min(1)
      .describe('Id of the metric datum, as returned by get_company_metrics or GET /v1/metrics/.'),
    value: z
      .string()
      .min(1)
      .max(255)
      .optional()
      .describe(
        'New value as a string of 1 to 255 characters: a decimal number such as "1250000.50" for numeric ' +
          'categories (percentages as fractions, 0.25 = 25 %), one of the choices for select metrics.',
      ),
    currency: CurrencyCode.optional().describe(
      'New ISO 4217 currency code of the value; the converted value follows it.',
    ),
    comments: z
      .array(
        z.object({
          content: z.string().min(1).max(5000).describe('Comment text, 1 to 5000 characters.'),
        }),
      )
      .min(1)
      .max(LATEST_COMMENTS)
      .optional()
      .describe('1 to 20 comments to append; each is stamped with your name and the time.'),
  }),
  output: MetricUpdateResult,
  annotations: {
    readOnlyHint: false,
    destructiveHint: true,
    idempotentHint: false,
    openWorldHint: false,
  },
  permission: 'edit_metrics',
  write: true,
  routes: [
    {
      method: 'PATCH',
      path: '/v1/metrics/:datum_id/',
      summary: 'Change the value, currency or comments of one metric datum',
      body: 'merge',
    },
  ],
  async handler(ctx, input) {
    if (input.value === undefined && input.currency === undefined && input.comments === undefined) {
      const message = 'give at least one of value, currency and comments';
      throw new MissingParameter(`nothing to change: ${message}`, [
        { field: 'value', message },
        { field: 'currency', message },
        { field: 'comments', message },
      ]);
    }
    const updated = await updateMetricValue(
      ctx,
      input.datum_id,
      { value: input.value, currency: input.currency, comments: input.comments?.map((c) => c.content) },
      displayName(ctx.principal.user),
    );
    return {
      ...updated,
      comments: updated.comments.slice(-LATEST_COMMENTS),
      comments_total: updated.comments.length,
    };
  },
});
