import { z } from 'zod';
import type { Counted, Page } from '../../db/types.ts';
import { NotFound } from '../errors.ts';

export const MAX_PER_PAGE = 100;

// The bounds and defaults say all there is to say, so the fields carry no description (tools/list size).
export const pageFields = {
  page: z.number().int().min(1).default(1),
  per_page: z.number().int().min(1).max(MAX_PER_PAGE).default(MAX_PER_PAGE),
};

export interface PageInput {
  page: number;
  per_page: number;
}

/** The shape every list tool returns; REST turns it into the `{count, next, previous, results}` envelope. */
export function listOf<T extends z.ZodType>(item: T) {
  return z.object({
    count: z.number().int().describe('Total number of results across all pages.'),
    page: z.number().int().describe('This page number.'),
    per_page: z.number().int().describe('Page size used.'),
    has_more: z.boolean().describe('True when a further page exists.'),
    results: z.array(item),
  });
}

export interface ListResult<T> {
  count: number;
  page: number;
  per_page: number;
  has_more: boolean;
  results: T[];
}

export function toPage(input: PageInput): Page {
  return { limit: input.per_page, offset: (input.page - 1) * input.per_page };
}

/** Wraps one page of rows; a page past the last (other than page 1) is an error, never an empty page. */
export function pageResult<R, T>(input: PageInput, counted: Counted<R>, map: (row: R) => T): ListResult<T> {
  const offset = (input.page - 1) * input.per_page;
  if (input.page > 1 && offset >= counted.count) {
    const last = Math.max(1, Math.ceil(counted.count / input.per_page));
    throw new NotFound(`page ${input.page} is past the last page (${last}); request page 1 to ${last}`);
  }
  return {
    count: counted.count,
    page: input.page,
    per_page: input.per_page,
    has_more: offset + counted.rows.length < counted.count,
    results: counted.rows.map(map),
  };
}
