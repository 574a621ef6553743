import { z } from 'zod';

/** What an MCP call hears for a field its tool does not have. */
const UNKNOWN_FIELD = 'is not a field of this tool; see its input schema';

type Def = Record<string, unknown> & { type: string };

const defOf = (schema: z.ZodType) => schema._zod.def as unknown as Def;

/**
 * The same schema with every object closed: an unknown field is an error naming it, as the listed
 * JSON Schema (`additionalProperties: false`) says. Wrappers, unions, arrays and the input side of
 * pipes are rebuilt around their closed contents; refinements and defaults are kept.
 */
export function closeObjects<T extends z.ZodType>(schema: T): T {
  return close(schema, new Map()) as T;
}

function close(schema: z.ZodType, seen: Map<z.ZodType, z.ZodType>): z.ZodType {
  const known = seen.get(schema);
  if (known) return known;
  const def = defOf(schema);
  const rebuilt: Record<string, unknown> = {};
  if (def.type === 'object') {
    const shape = def.shape as Record<string, z.ZodType>;
    rebuilt.shape = Object.fromEntries(Object.entries(shape).map(([k, v]) => [k, close(v, seen)]));
    // An object that already says what an unknown key is (a catchall) keeps its own rule.
    if (!def.catchall) rebuilt.catchall = z.never({ error: UNKNOWN_FIELD }).optional();
  }
  for (const key of ['innerType', 'element', 'in', 'left', 'right'] as const) {
    if (def[key]) rebuilt[key] = close(def[key] as z.ZodType, seen);
  }
  if (Array.isArray(def.options)) rebuilt.options = (def.options as z.ZodType[]).map((o) => close(o, seen));
  if (Object.keys(rebuilt).length === 0) return schema;
  const closed = schema.clone({ ...def, ...rebuilt } as never);
  seen.set(schema, closed);
  return closed;
}
