import { z } from 'zod';
import { type Item, MAX_ITEMS, type Raw } from '../../services/cap-table.ts';
import { MissingParameter } from '../errors.ts';
import { inputError } from '../run.ts';

// The item lists of a cap-table write. An item that fails its schema is kept, with its issues and the
// raw value, instead of failing the whole parse: then the service adds what only the database knows
// (an invisible company, a share class of another company) and answers one 400 naming every field.

export { MAX_ITEMS };

const REJECTED = Symbol('rejected item');
interface Rejected {
  issues: z.core.$ZodIssue[];
  raw: unknown;
}

/** An item schema that never fails the parse: a rejected item carries its issues to `unpack`. */
export function lenient<T extends z.ZodType>(schema: T): z.ZodCatch<T> {
  return schema.catch(
    (c) => ({ [REJECTED]: { issues: c.error.issues, raw: c.input } }) as unknown as z.output<T>,
  );
}

/** The items of the list `name`, each with its schema errors named `name[i].field`. */
export function unpack<T>(name: string, items: readonly T[]): Item<T>[] {
  return items.map((item, index) => {
    const rejected = (item as { [REJECTED]?: Rejected })[REJECTED];
    const at = `${name}[${index}]`;
    if (!rejected) return { at, index, ok: item, raw: item as unknown as Raw, errors: [] };
    const issues = rejected.issues.map((issue) => ({ ...issue, path: [name, index, ...issue.path] }));
    const raw =
      rejected.raw && typeof rejected.raw === 'object' && !Array.isArray(rejected.raw)
        ? (rejected.raw as Raw)
        : null;
    return { at, index, ok: null, raw, errors: [...inputError(new z.ZodError(issues)).errors] };
  });
}

/**
 * The lists of a write body that takes several kinds of item (securities, transactions, overrides),
 * each unpacked under its own name; refused when every list is empty.
 */
export function unpackLists<K extends string>(
  input: Record<K, readonly unknown[]>,
  keys: readonly K[],
  verb: string,
  what: string,
) {
  if (keys.every((k) => input[k].length === 0)) {
    const message = `give at least one ${what}`;
    throw new MissingParameter(
      `nothing to ${verb}: ${message}`,
      keys.map((field) => ({ field, message })),
    );
  }
  return keys.map((k) => [k, unpack(k, input[k])] as const);
}

/** An item list of a write: 1 to MAX_ITEMS items (`min` 0 for lists that may stay empty). */
export function itemList<T extends z.ZodType>(item: T, description: string, min = 1) {
  const message = `must hold ${min} to ${MAX_ITEMS} items`;
  return z
    .array(lenient(item))
    .min(min, { error: message })
    .max(MAX_ITEMS, { error: message })
    .describe(description);
}

/** An optional item list of a write that takes several lists: at most MAX_ITEMS items, default empty. */
export function optionalList<T extends z.ZodType>(item: T, description: string) {
  return z
    .array(lenient(item))
    .max(MAX_ITEMS, { error: `must hold at most ${MAX_ITEMS} items` })
    .default([])
    .describe(description);
}
