import { STATUS_CODES } from 'node:http';
import type { Response } from 'express';
import type { ErrorCode, FieldError } from '../tools/errors.ts';

export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: ErrorCode;
  errors?: FieldError[];
  request_id?: string;
}

/** The RFC 9457 problem body every error answer carries, from Express or from the raw socket. */
export function problemBody(
  status: number,
  code: ErrorCode,
  detail: string,
  errors?: FieldError[],
  requestId?: string,
): Problem {
  const body: Problem = {
    type: `urn:portfolio:problem:${code}`,
    title: STATUS_CODES[status] ?? 'Error',
    status,
    detail,
    code,
  };
  if (errors && errors.length > 0) body.errors = errors;
  if (requestId !== undefined) body.request_id = requestId;
  return body;
}

/** Writes an RFC 9457 problem+json body. */
export function sendProblem(
  res: Response,
  status: number,
  code: ErrorCode,
  detail: string,
  errors?: FieldError[],
): void {
  const requestId = res.getHeader('X-Request-Id');
  const body = problemBody(
    status,
    code,
    detail,
    errors,
    typeof requestId === 'string' ? requestId : undefined,
  );
  res.status(status).type('application/problem+json').send(JSON.stringify(body));
}
