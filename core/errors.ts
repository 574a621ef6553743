/** A field that was wrong, named as the caller spelled it (`page_size`, `financing_rounds[2].company_id`). */
export interface FieldError {
  field: string;
  message: string;
}

export type ErrorCode =
  | 'invalid_parameter'
  | 'missing_parameter'
  | 'unauthenticated'
  | 'permission_denied'
  | 'insufficient_scope'
  | 'not_found'
  | 'method_not_allowed'
  | 'conflict'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'rate_limited'
  | 'service_unavailable'
  | 'internal';

/** Errors a tool throws once; `rest/` maps them to problem+json and `mcp/server.ts` to `isError`. */
export class ToolError extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
    readonly errors: FieldError[] = [],
  ) {
    super(message);
    this.name = new.target.name;
  }
}

export class InvalidInput extends ToolError {
  constructor(message: string, errors: FieldError[] = []) {
    super(400, 'invalid_parameter', message, errors);
  }
  static field(field: string, message: string): InvalidInput {
    return new InvalidInput(`${field}: ${message}`, [{ field, message }]);
  }
}

export class MissingParameter extends ToolError {
  constructor(message: string, errors: FieldError[] = []) {
    super(400, 'missing_parameter', message, errors);
  }
}

export class NotFound extends ToolError {
  constructor(message: string) {
    super(404, 'not_found', message);
  }
}

export class PermissionDenied extends ToolError {
  constructor(message: string) {
    super(403, 'permission_denied', message);
  }
}

/** The token lacks the OAuth scope an operation needs (RFC 6750 §3.1): a 403 with a challenge naming it. */
export class InsufficientScope extends ToolError {
  constructor(readonly requiredScope: string) {
    super(
      403,
      'insufficient_scope',
      `this needs the "${requiredScope}" scope, which your token was not granted; sign in again and allow ${requiredScope} access`,
    );
  }
}

export class Conflict extends ToolError {
  constructor(message: string) {
    super(409, 'conflict', message);
  }
}

export class Unauthenticated extends ToolError {
  constructor(
    message: string,
    /** The RFC 6750 error code for WWW-Authenticate, when the token itself was bad. */
    readonly bearerError?: 'invalid_token' | 'invalid_request',
  ) {
    super(401, 'unauthenticated', message);
  }
}

const unknownCompanies = new WeakSet<FieldError>();

/**
 * The error of a field naming a company the caller cannot see (another firm's, or outside their list):
 * a write answers it with 404, as a read of that company does, through `throwIfUnknownCompany`.
 */
export function companyNotFound(field: string, id: string): FieldError {
  const error = {
    field,
    message: `no company with id ${id} that you can access; call list_companies or search_companies for valid ids`,
  };
  unknownCompanies.add(error);
  return error;
}

/**
 * Throws a 404 when a write's only faults are companies the caller cannot see; with other faults as
 * well, the caller's one 400 names every field, these among them.
 */
export function throwIfUnknownCompany(errors: readonly FieldError[]): void {
  const unknown = errors.filter((e) => unknownCompanies.has(e));
  if (unknown.length === 0 || unknown.length < errors.length) return;
  throw new ToolError(404, 'not_found', unknown.map((e) => `${e.field}: ${e.message}`).join('; '), unknown);
}
