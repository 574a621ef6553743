import type { NextFunction, Request, Response } from 'express';
import { InvalidInput } from '../tools/errors.ts';

/** No request of this API nests deeper than a handful of levels; far deeper is an attack or a bug. */
export const MAX_JSON_DEPTH = 64;

/** The nesting depth of a parsed JSON value, measured without recursion (so any depth is safe to measure). */
export function jsonDepth(value: unknown, limit = Number.POSITIVE_INFINITY): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (!node || typeof node !== 'object') continue;
    const level = depth + 1;
    if (level > deepest) deepest = level;
    if (deepest > limit) return deepest;
    for (const child of Object.values(node))
      if (child && typeof child === 'object') stack.push([child, level]);
  }
  return deepest;
}

/**
 * Rejects a JSON body nested deeper than MAX_JSON_DEPTH with a 400, before anything recursive (key
 * sorting for Idempotency-Key, JSON.stringify) can overflow the stack on it and answer a 500.
 */
export function rejectDeepJson(req: Request, _res: Response, next: NextFunction): void {
  if (jsonDepth(req.body, MAX_JSON_DEPTH) > MAX_JSON_DEPTH) {
    next(InvalidInput.field('body', `is nested more than ${MAX_JSON_DEPTH} levels deep`));
    return;
  }
  next();
}
