import { z } from 'zod';

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
export function idsFilter(what: string, source: string) {
  return z
    .array(z.string())
    .max(1000)
    .nullish()
    .describe(
      `Only these ${what} ids (${source}); ids you cannot see are simply absent. Omitted, null or empty: all.`,
    );
}

export const companyIdsFilter = idsFilter('company', 'from list_companies or search_companies');

export const includeFxDetails = z
  .boolean()
  .default(false)
  .describe(
    'When true, every money amount also carries fx_rate and is_custom_rate (the rate used to convert value ' +
      "into the firm's preferred currency, and whether it was a custom rate). Default false.",
  );

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
