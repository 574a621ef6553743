import type { NextFunction, Request, Response } from 'express';
import { isExactJsonNumber } from '../core/decimal.ts';
import { type FieldError, InvalidInput } from '../tools/errors.ts';
import { fieldName } from '../tools/run.ts';

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

/** Keys that would reach an object's prototype when copied by assignment (`Object.assign`, `obj[k] = v`). */
const PROTOTYPE_KEYS = new Set(['__proto__']);

/** The path of the first prototype key anywhere in a parsed JSON value, or undefined when there is none. */
export function prototypeKeyPath(value: unknown): string | undefined {
  const stack: [unknown, string][] = [[value, 'body']];
  while (stack.length > 0) {
    const [node, path] = stack.pop()!;
    if (!node || typeof node !== 'object') continue;
    // JSON.parse defines `__proto__` as an own property, so Object.keys sees it.
    for (const key of Object.keys(node)) {
      const childPath = Array.isArray(node) ? `${path}[${key}]` : `${path}.${key}`;
      if (PROTOTYPE_KEYS.has(key)) return childPath;
      const child = (node as Record<string, unknown>)[key];
      if (child && typeof child === 'object') stack.push([child, childPath]);
    }
  }
  return undefined;
}

/**
 * Refuses, with a 400, a JSON body nested deeper than MAX_JSON_DEPTH (before anything recursive, such
 * as key sorting for Idempotency-Key or JSON.stringify, can overflow the stack on it and answer a
 * 500) and a body holding a `__proto__` key anywhere (it would become the prototype of the input).
 */
export function checkJsonBody(req: Request, _res: Response, next: NextFunction): void {
  if (jsonDepth(req.body, MAX_JSON_DEPTH) > MAX_JSON_DEPTH) {
    next(InvalidInput.field('body', `is nested more than ${MAX_JSON_DEPTH} levels deep`));
    return;
  }
  const path = prototypeKeyPath(req.body);
  if (path !== undefined) {
    next(InvalidInput.field(path, 'is a reserved key name (__proto__) and is not accepted'));
    return;
  }
  next();
}

/** A JSON number whose text means a value no double holds; it stands in the parsed body until refused. */
export class InexactNumber {
  constructor(readonly source: string) {}
}

/**
 * The `JSON.parse` reviver of every JSON body: a number whose source text differs in value from the
 * double it parses to (more digits than a double keeps) becomes an InexactNumber, never a rounded value.
 */
export function exactNumbers(_key: string, value: unknown, context?: { source?: string }): unknown {
  if (
    typeof value === 'number' &&
    context?.source !== undefined &&
    !isExactJsonNumber(context.source, value)
  ) {
    return new InexactNumber(context.source);
  }
  return value;
}

/** The path of every InexactNumber in a parsed body, in document order. */
export function inexactNumberPaths(value: unknown): PropertyKey[][] {
  const found: PropertyKey[][] = [];
  const stack: [unknown, PropertyKey[]][] = [[value, []]];
  while (stack.length > 0) {
    const [node, path] = stack.pop()!;
    if (node instanceof InexactNumber) found.push(path);
    else if (node && typeof node === 'object') {
      const entries = Object.entries(node).reverse();
      for (const [key, child] of entries)
        stack.push([child, [...path, Array.isArray(node) ? Number(key) : key]]);
    }
  }
  return found;
}

/**
 * Refuses, with one 400 naming each field, a body holding a number that JSON cannot carry exactly;
 * `fieldOf` names a body path as the tool's input field (`items[3].value`).
 */
export function refuseInexactNumbers(fieldOf: (path: PropertyKey[]) => string) {
  return (req: Request, _res: Response, next: NextFunction): void => {
    const paths = inexactNumberPaths(req.body);
    if (paths.length === 0) {
      next();
      return;
    }
    const errors: FieldError[] = paths.map((path) => ({
      field: fieldOf(path) || 'body',
      message:
        'is a JSON number with more digits than a JSON number holds exactly; send it as a string (such as "0.1000000000000000055511151231257827") to keep every digit',
    }));
    next(
      new InvalidInput(`invalid body: ${errors.map((e) => `${e.field}: ${e.message}`).join('; ')}`, errors),
    );
  };
}

/** A body path named as it is in the body itself (`fx_rate`, `[3].value`). */
export const bodyField = (path: PropertyKey[]): string => fieldName(path);
