// The founder's form as it arrives: CSRF checked without a session, and a multipart body read as it
// streams, each file through the same checks as any API upload (rest/upload.ts). A file refused there is
// a problem of its field, not of the request, so the page can show it beside the values typed.
import { createHmac, randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import busboy from 'busboy';
import { DOCUMENT_FORMATS, DOCUMENT_MAX_BYTES } from '../../../core/file-types.ts';
import { constantTimeEqual } from '../../../core/secrets.ts';
import { readFilePart } from '../../../rest/upload.ts';
import type { UploadedFile } from '../../../tools/schemas/upload.ts';
import { parseCookies } from '../sessions.ts';

const CSRF_COOKIE = 'pds_founder_csrf';
const CSRF_TTL_S = 7 * 86400;
const COOKIE_SHAPE = /^[\w-]{43}$/;

function cookieName(secure: boolean): string {
  return secure ? `__Host-${CSRF_COOKIE}` : CSRF_COOKIE;
}

/**
 * The form's CSRF token: an HMAC of the link's stored hash keyed by a random value this browser holds in
 * a SameSite=Strict, HttpOnly cookie (set here when it has none). A post must bring both: another site can
 * neither read the cookie nor make the browser send it, and a token is good for one link only.
 */
export function founderCsrf(
  req: IncomingMessage,
  res: ServerResponse,
  linkHash: string,
  secure: boolean,
): string {
  const name = cookieName(secure);
  let key = parseCookies(req.headers.cookie).get(name);
  if (!key || !COOKIE_SHAPE.test(key)) {
    key = randomBytes(32).toString('base64url');
    const attributes = [`${name}=${key}`, 'Path=/', `Max-Age=${CSRF_TTL_S}`, 'HttpOnly', 'SameSite=Strict'];
    if (secure) attributes.push('Secure');
    res.appendHeader('Set-Cookie', attributes.join('; '));
  }
  return csrfFor(key, linkHash);
}

function csrfFor(key: string, linkHash: string): string {
  return createHmac('sha256', key).update(`founder-form:${linkHash}`).digest('base64url');
}

/** Whether the browser holds a CSRF cookie at all: a post without one is refused before its body is read. */
export function hasFounderCsrfCookie(req: IncomingMessage, secure: boolean): boolean {
  const key = parseCookies(req.headers.cookie).get(cookieName(secure));
  return !!key && COOKIE_SHAPE.test(key);
}

/** Whether a post's token is the one its browser's cookie makes for this link. */
export function founderCsrfMatches(
  req: IncomingMessage,
  linkHash: string,
  submitted: string | undefined,
  secure: boolean,
): boolean {
  const key = parseCookies(req.headers.cookie).get(cookieName(secure));
  if (!key || !COOKIE_SHAPE.test(key) || typeof submitted !== 'string') return false;
  return constantTimeEqual(csrfFor(key, linkHash), submitted);
}

export interface FounderForm {
  /** Text fields, the last value of each name. */
  fields: Map<string, string>;
  /** Files read whole and of an accepted format, by field name. */
  files: Map<string, UploadedFile>;
  /** A file refused by the upload checks, by field name: its message. */
  fileProblems: Map<string, string>;
}

/** A form too large or malformed to read at all; its status and what to tell the founder. */
export class UnreadableForm extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

const FIELD_BYTES = 64 * 1024;

/** The limits of one page's form: its fields and files, each file at most DOCUMENT_MAX_BYTES. */
export interface FormLimits {
  fields: number;
  files: number;
}

function messageOf(err: Error): string {
  const errors = (err as { errors?: { message: string }[] }).errors;
  return errors?.[0]?.message ?? err.message;
}

/**
 * Reads the page's multipart body. Files go through readFilePart (size, name, signature and content
 * checks); a body declaring more than the form can hold is refused before it is read.
 */
export function readFounderForm(req: IncomingMessage, limits: FormLimits): Promise<FounderForm> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length'] ?? 0);
    const most =
      limits.files * DOCUMENT_MAX_BYTES + (limits.fields + limits.files + 1) * (FIELD_BYTES + 17 * 1024);
    if (declared > most) {
      req.resume();
      reject(
        new UnreadableForm(413, 'The files sent together are larger than this form takes (32 MB each).'),
      );
      return;
    }
    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers: req.headers,
        defParamCharset: 'utf8',
        limits: {
          fileSize: DOCUMENT_MAX_BYTES + 1,
          files: limits.files,
          fields: limits.fields,
          fieldSize: FIELD_BYTES,
          parts: limits.fields + limits.files,
        },
      });
    } catch {
      req.resume();
      reject(new UnreadableForm(400, 'The form could not be read; send it from the page again.'));
      return;
    }
    const form: FounderForm = { fields: new Map(), files: new Map(), fileProblems: new Map() };
    let failed = false;
    const fail = (status: number, message: string) => {
      if (failed) return;
      failed = true;
      req.unpipe(parser);
      req.resume();
      reject(new UnreadableForm(status, message));
    };
    const pending: Promise<void>[] = [];
    parser.on('file', (name, stream, info) => {
      // A file input left empty still sends a part, with no name and no bytes.
      if (!info.filename) {
        stream.resume();
        return;
      }
      const upload = { field: name, maxBytes: DOCUMENT_MAX_BYTES, formats: DOCUMENT_FORMATS };
      pending.push(
        new Promise<void>((done) =>
          readFilePart(upload, stream, info, {
            file: (file) => {
              form.files.set(name, file);
              done();
            },
            refused: (err) => {
              form.fileProblems.set(name, messageOf(err));
              done();
            },
          }),
        ),
      );
    });
    parser.on('field', (name, value, info) => {
      if (info.valueTruncated) fail(413, 'A field of the form is longer than it may be.');
      else form.fields.set(name, value);
    });
    const tooMany = () => fail(413, 'The form holds more fields or files than the page has.');
    parser.on('filesLimit', tooMany);
    parser.on('fieldsLimit', tooMany);
    parser.on('partsLimit', tooMany);
    parser.on('error', () => fail(400, 'The form could not be read; send it from the page again.'));
    parser.on('close', () => {
      if (failed) return;
      Promise.all(pending).then(() => resolve(form), reject);
    });
    req.on('error', () => fail(400, 'The form ended before it was complete.'));
    req.pipe(parser);
  });
}
