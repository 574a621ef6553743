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

/** Writes an RFC 9457 problem+json body. */
export function sendProblem(
  res: Response,
  status: number,
  code: ErrorCode,
  detail: string,
  errors?: FieldError[],
): void {
  const body: Problem = {
    type: `urn:portfolio:problem:${code}`,
    title: STATUS_CODES[status] ?? 'Error',
    status,
    detail,
    code,
  };
  if (errors && errors.length > 0) body.errors = errors;
  const requestId = res.getHeader('X-Request-Id');
  if (typeof requestId === 'string') body.request_id = requestId;
  res.status(status).type('application/problem+json').send(JSON.stringify(body));
}
