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

/** Errors a tool throws once; `rest/` maps them to problem+json and `tools/mcp.ts` to `isError`. */
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
