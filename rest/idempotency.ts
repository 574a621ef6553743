import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Request, Response } from 'express';
import { DEFAULT_PRUNE_WINDOWS } from '../db/prune.ts';
import type { IdempotencyRow } from '../db/repos/idempotency.ts';
import { inTransaction } from '../db/repos/index.ts';
import { writable } from '../db/repos/writable.ts';
import type { ToolContext } from '../tools/context.ts';
import { type ErrorCode, type FieldError, InvalidInput, ToolError } from '../tools/errors.ts';
import { sendProblem } from './problem.ts';

export const IDEMPOTENCY_HEADER = 'Idempotency-Key';
export const REPLAYED_HEADER = 'Idempotent-Replayed';

/** What a write route answers: a status and a JSON body. */
export interface RouteResponse {
  status: number;
  body: unknown;
}

/** A key is remembered this long; an older one counts as never used. */
export const IDEMPOTENCY_TTL_MS = DEFAULT_PRUNE_WINDOWS.idempotencyTtlMs;

/**
 * An unanswered claim older than this is taken over: its request cannot still be running (requests
 * time out well before), so the process that made it died. A retry then runs the write again.
 */
export const IDEMPOTENCY_LEASE_MS = 2 * 60 * 1000;

/** How a request waits for another one that holds the same key (mutable so tests can shorten it). */
export const idempotencyTiming = { pollMs: 50, waitMs: 10_000 };

const KEY_PATTERN = /^[\x20-\x7e]{1,255}$/;

/** A stored error: the fields `sendProblem` needs to answer it again. */
interface StoredProblem {
  code: ErrorCode;
  detail: string;
  errors?: FieldError[];
}

/** JSON with object keys sorted at every level, so equal bodies hash equally whatever their key order. */
export function canonicalJson(value: unknown): string {
  const sort = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(sort);
    if (v && typeof v === 'object') {
      return Object.fromEntries(
        Object.keys(v)
          .sort()
          .map((k) => [k, sort((v as Record<string, unknown>)[k])]),
      );
    }
    return v;
  };
  return JSON.stringify(sort(value ?? null));
}

/** What makes two requests "the same": method, path (with its query) and the canonical JSON body. */
export function requestHash(req: Request): string {
  const text = canonicalJson({
    method: req.method,
    path: req.path,
    query: req.query,
    body: req.body ?? null,
  });
  return createHash('sha256').update(text).digest('hex');
}

function keyConflict(detail: string): ToolError {
  return new ToolError(409, 'conflict', detail, [{ field: IDEMPOTENCY_HEADER, message: detail }]);
}

function replay(res: Response, row: IdempotencyRow): void {
  res.setHeader(REPLAYED_HEADER, 'true');
  const status = row.status_code!;
  const body: unknown = JSON.parse(row.response_body!);
  if (status >= 400) {
    const problem = body as StoredProblem;
    sendProblem(res, status, problem.code, problem.detail, problem.errors);
    return;
  }
  res.status(status).json(body);
}

/** Waits while another request holds the key; undefined when that request gave the key up. */
async function awaitCompletion(
  ctx: ToolContext,
  row: IdempotencyRow,
  deadline: number,
): Promise<IdempotencyRow | undefined> {
  let current: IdempotencyRow | undefined = row;
  while (current && current.status_code === null) {
    if (Date.now() >= deadline) {
      throw keyConflict(
        'a request with this Idempotency-Key is still in progress; retry it with the same key later',
      );
    }
    await sleep(idempotencyTiming.pollMs);
    current = await writable(ctx.repos).idempotency.get(row.principal, row.key);
  }
  return current;
}

/**
 * Runs a claimed request once and stores what it answered (2xx and 4xx; anything else frees the key).
 * A success is stored in the write's own transaction, so no crash can leave the write without its
 * stored response (a retry would write again) or the response without its write.
 */
async function runClaimed(
  ctx: ToolContext,
  key: string,
  res: Response,
  run: (ctx: ToolContext) => Promise<RouteResponse>,
): Promise<void> {
  const repo = writable(ctx.repos).idempotency;
  const principal = ctx.principal.key;
  let result: RouteResponse;
  try {
    result = await inTransaction(writable(ctx.repos), async (repos) => {
      const answer = await run({ ...ctx, repos });
      if (answer.status < 500) {
        await repos.idempotency.complete(principal, key, answer.status, JSON.stringify(answer.body));
      }
      return answer;
    });
  } catch (err) {
    if (err instanceof ToolError && err.status < 500) {
      const problem: StoredProblem = { code: err.code, detail: err.message };
      if (err.errors.length > 0) problem.errors = err.errors;
      await repo.complete(principal, key, err.status, JSON.stringify(problem));
    } else {
      await repo.release(principal, key);
    }
    throw err;
  }
  if (result.status >= 500) await repo.release(principal, key);
  res.status(result.status).json(result.body);
}

/**
 * Serves a write request under its optional Idempotency-Key: the first request with a key claims it
 * and runs; a retry with the same key and the same request within 24 hours gets the stored response
 * (marked `Idempotent-Replayed: true`) and changes nothing; the same key with another request is 409.
 * Keys belong to the calling principal.
 */
export async function serveIdempotent(
  ctx: ToolContext,
  req: Request,
  res: Response,
  run: (ctx: ToolContext) => Promise<RouteResponse>,
): Promise<void> {
  const key = req.get(IDEMPOTENCY_HEADER);
  if (key === undefined) {
    const result = await run(ctx);
    res.status(result.status).json(result.body);
    return;
  }
  if (!KEY_PATTERN.test(key)) {
    throw InvalidInput.field(IDEMPOTENCY_HEADER, 'must be 1 to 255 printable ASCII characters');
  }
  const principal = ctx.principal.key;
  const hash = requestHash(req);
  const deadline = Date.now() + idempotencyTiming.waitMs;
  for (;;) {
    const now = ctx.clock.now();
    const expiredBefore = new Date(now.getTime() - IDEMPOTENCY_TTL_MS).toISOString();
    const abandonedBefore = new Date(now.getTime() - IDEMPOTENCY_LEASE_MS).toISOString();
    const claim = await writable(ctx.repos).idempotency.claim(
      principal,
      key,
      hash,
      now.toISOString(),
      expiredBefore,
      abandonedBefore,
    );
    if (claim.claimed) {
      await runClaimed(ctx, key, res, run);
      return;
    }
    const done =
      claim.existing.request_hash === hash && (await awaitCompletion(ctx, claim.existing, deadline));
    if (done === false || (done && done.request_hash !== hash)) {
      throw keyConflict(
        'this Idempotency-Key was already used for a different request; send a new key for a new request',
      );
    }
    if (done) {
      replay(res, done);
      return;
    }
    // The holder failed and freed the key: claim it and run this request instead.
  }
}
