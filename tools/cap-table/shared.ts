import { z } from 'zod';
import type { ToolContext } from '../context.ts';
import { NotFound } from '../errors.ts';
import { type DatedMoney, type MoneyConverter, moneyConverter } from '../schemas/money.ts';
import { MAX_PER_PAGE } from '../schemas/page.ts';

/**
 * The filter body of a cap-table read: every field optional, and an unknown field is an error
 * naming that field (the reference bodies allow no additional properties).
 */
export function filterObject<S extends z.ZodRawShape>(shape: S) {
  return z
    .object(shape)
    .catchall(z.never({ error: 'is not a filter of this operation; see the tool input schema' }).optional());
}

/** An optional list of ids; omitted, null or empty means no filter. */
export function idsFilter(what: string, source?: string) {
  return z
    .array(z.string())
    .max(1000)
    .nullish()
    .describe(`Only these ${what} ids${source ? ` (${source})` : ''}; omitted or empty: all.`);
}

export const companyIdsFilter = idsFilter('company');

export const includeFxDetails = z
  .boolean()
  .default(false)
  .describe('true: every amount also carries fx_rate and is_custom_rate.');

/** Paging of a cap-table read; the reference REST routes send no per_page and get every result. */
export const readPaging = {
  page: z.number().int().min(1).default(1),
  per_page: z
    .number()
    .int()
    .min(1)
    .max(MAX_PER_PAGE)
    .nullish()
    .describe('Omitted: every result on one page.'),
};

/** The filter body of a cap-table read: company_ids first, the read's own filters, include_fx_details and paging last. */
export function readFilter<S extends z.ZodRawShape>(shape: S) {
  return filterObject({
    company_ids: companyIdsFilter,
    ...shape,
    include_fx_details: includeFxDetails,
    ...readPaging,
  });
}

/** A list filter as the repositories take it: undefined when it should not filter. */
export function listFilter(ids: readonly string[] | null | undefined): string[] | undefined {
  return ids && ids.length > 0 ? [...ids] : undefined;
}

/** What every cap-table read returns over MCP; REST answers the bare `results` array. */
export function resultsOf<T extends z.ZodType>(item: T) {
  return z.object({
    count: z.number().int().describe('Number of results.'),
    results: z.array(item),
  });
}

/** What a cap-table read returns over MCP: one page, with the total; REST answers the bare `results` array. */
export function pageOf<T extends z.ZodType>(item: T) {
  return z.object({
    count: z.number().int().describe('Total number of results across all pages.'),
    page: z.number().int().describe('This page number.'),
    per_page: z.number().int().describe('Page size used.'),
    has_more: z.boolean().describe('True when a further page exists.'),
    results: z.array(item),
  });
}

export interface ReadPage {
  page: number;
  per_page?: number | null;
}

/** How a cap-table read turns its rows into results. */
export interface ResultShape<R, T, X = never> {
  /** The money amounts of a row, each with the date its rate applies on. */
  amounts: (row: R) => DatedMoney[];
  /** The row in the output shape, its amounts converted. */
  out: (row: R, fx: MoneyConverter) => T;
  /** An order other than the repository's, which may depend on converted values. */
  order?: (rows: readonly R[], fx: MoneyConverter) => readonly R[];
  /** Figures over every row the filters keep, not only one page's. */
  totals?: (rows: readonly R[], fx: MoneyConverter) => X;
}

/** The result of a cap-table read: every amount of every row converted with one batch of rate look-ups. */
export async function convertedResults<R, T, X = never>(
  ctx: ToolContext,
  rows: readonly R[],
  includeFxDetails: boolean,
  shape: ResultShape<R, T, X>,
): Promise<{ count: number; results: T[]; totals?: X }> {
  const fx = await moneyConverter(ctx, rows.flatMap(shape.amounts), { includeFxDetails });
  const ordered = shape.order ? shape.order(rows, fx) : rows;
  return {
    count: ordered.length,
    results: ordered.map((r) => shape.out(r, fx)),
    ...(shape.totals && { totals: shape.totals(rows, fx) }),
  };
}

/** One page of a cap-table read, ordered over every row first (an order may depend on converted values). */
export async function pagedResults<R, T, X = never>(
  ctx: ToolContext,
  rows: readonly R[],
  input: ReadPage & { include_fx_details: boolean },
  shape: ResultShape<R, T, X>,
): Promise<{ count: number; page: number; per_page: number; has_more: boolean; results: T[]; totals?: X }> {
  const all = await convertedResults(ctx, rows, input.include_fx_details, shape);
  const perPage = input.per_page ?? Math.max(1, all.count);
  const offset = (input.page - 1) * perPage;
  if (input.page > 1 && offset >= all.count) {
    const last = Math.max(1, Math.ceil(all.count / perPage));
    throw new NotFound(`page ${input.page} is past the last page (${last}); request page 1 to ${last}`);
  }
  return {
    count: all.count,
    page: input.page,
    per_page: perPage,
    has_more: offset + perPage < all.count,
    results: all.results.slice(offset, offset + perPage),
    ...(all.totals !== undefined && { totals: all.totals }),
  };
}
