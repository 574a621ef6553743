import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import busboy from 'busboy';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { extensionList, extensionOf, formatByName } from '../core/file-types.ts';
import { InvalidInput, ToolError } from '../tools/errors.ts';
import { type FileUpload, storedFileName, type UploadedFile } from '../tools/schemas/upload.ts';

/** A route that takes one file in a multipart/form-data body, besides plain form fields. */
export type Upload = FileUpload;

/**
 * Refuses an upload (by throwing) on what is known before its file is read: called once before the
 * body is read, with no fields, and again when the file part starts, with the fields sent before it.
 */
export type UploadGate = (
  req: Request,
  res: Response,
  soFar: { fields?: Record<string, string[]>; fileBytesAtLeast?: number },
) => Promise<void>;

/** What a multipart body holds beyond the file: small text fields. */
const FIELD_BYTES = 64 * 1024;
const MAX_FIELDS = 20;
/** Room for the form's boundaries, part headers and fields around the file. */
const FORM_OVERHEAD = MAX_FIELDS * FIELD_BYTES;

/**
 * The most a form can hold besides its file: each field at its limit, and each part's headers at
 * busboy's 16 KiB with a boundary line. What a Content-Length declares beyond it is the file's.
 */
const MOST_BESIDES_FILE = MAX_FIELDS * FIELD_BYTES + (MAX_FIELDS + 1) * (16 * 1024 + 128);

/** Enough of a file's start to hold the signature of any accepted format. */
const SIGNATURE_BYTES = 16;

const files = new WeakMap<Request, UploadedFile>();

/** The file a multipart body carried, once `multipartBody` has read it. */
export function uploadedFileOf(req: Request): UploadedFile | undefined {
  return files.get(req);
}

function tooLarge(upload: Upload): ToolError {
  const mb = Math.floor(upload.maxBytes / (1024 * 1024));
  const message = `is larger than ${mb} MB`;
  return new ToolError(413, 'payload_too_large', `${upload.field}: ${message}; send a smaller file`, [
    { field: upload.field, message },
  ]);
}

function unsupported(upload: Upload, message: string): ToolError {
  return new ToolError(415, 'unsupported_media_type', `${upload.field}: ${message}`, [
    { field: upload.field, message },
  ]);
}

/** The last part of a name a client may have sent with a directory (`C:\scans\deck.pdf`). */
function baseName(filename: string): string {
  return filename.slice(Math.max(filename.lastIndexOf('/'), filename.lastIndexOf('\\')) + 1);
}

function hasBody(req: Request): boolean {
  return Number(req.get('Content-Length') ?? 0) > 0 || req.get('Transfer-Encoding') !== undefined;
}

/** What becomes of one file part: read whole, or refused (its stream is then drained). */
export interface FilePartOutcome {
  file(file: UploadedFile): void;
  refused(err: Error): void;
}

/**
 * Reads one file part of a multipart body as it streams in, with an upload's checks: refused (413) past
 * its size limit, (415) as soon as its name or its first bytes show a format not accepted, or when its
 * whole content is not of the format its name says, and refused when it is empty. Exactly one of the
 * outcome's callbacks is called, at the latest when the part ends.
 */
export function readFilePart(
  upload: Upload,
  stream: Readable,
  info: { filename?: string },
  outcome: FilePartOutcome,
): void {
  let done = false;
  const refuse = (err: Error) => {
    stream.resume();
    if (done) return;
    done = true;
    outcome.refused(err);
  };
  let filename: string;
  try {
    filename = storedFileName(upload.field, baseName(info.filename ?? ''));
  } catch (err) {
    refuse(err as Error);
    return;
  }
  const format = formatByName(upload.formats, filename);
  if (!format) {
    const what = extensionOf(filename) ? `a ${extensionOf(filename)} file is` : 'a file without extension is';
    refuse(unsupported(upload, `${what} not accepted; send one of ${extensionList(upload.formats)}`));
    return;
  }
  const notOfFormat = () =>
    unsupported(
      upload,
      `${JSON.stringify(filename)} is not a ${format.extensions[0]} file, whatever its name says`,
    );
  const chunks: Buffer[] = [];
  let received = 0;
  let checked = false;
  stream.on('data', (chunk: Buffer) => {
    if (done) return;
    chunks.push(chunk);
    received += chunk.length;
    // Every signature fits in the first 16 bytes: a file of another format is refused there.
    if (!checked && received >= SIGNATURE_BYTES) {
      checked = true;
      if (!format.matches(Buffer.concat(chunks))) refuse(notOfFormat());
    }
  });
  // A form that ends inside the file destroys its stream with an error: unheard, it would end the process.
  stream.on('error', () =>
    refuse(InvalidInput.field('body', 'ended before the multipart body was complete')),
  );
  stream.on('limit', () => refuse(tooLarge(upload)));
  stream.on('end', () => {
    if (done) return;
    const bytes = Buffer.concat(chunks, received);
    if (bytes.length === 0) refuse(InvalidInput.field(upload.field, 'is empty'));
    else if (!format.contentMatches(bytes)) refuse(notOfFormat());
    else {
      done = true;
      outcome.file({ filename, content_type: format.contentType, bytes });
    }
  });
}

/**
 * Reads a multipart/form-data body as it streams in: the file into memory up to the limit (413 beyond
 * it), refused with 415 as soon as its name or its first bytes show a format not accepted, and the other
 * fields as text. `req.body` then holds the fields and a fingerprint of the file (its name, size and
 * SHA-256), which is what makes two requests the same for Idempotency-Key; the bytes are kept aside
 * for `uploadedFileOf`. A `gate` can refuse the request before the body is read, and again when the
 * file part starts, on the fields sent before it: a refused file is dropped unread.
 */
export function multipartBody(upload: Upload, gate?: UploadGate): RequestHandler {
  return async (req: Request, res: Response, next: NextFunction) => {
    if (!hasBody(req)) {
      req.body = {};
      next();
      return;
    }
    if (!req.is('multipart/form-data')) {
      next(
        new ToolError(
          415,
          'unsupported_media_type',
          `send the request body as multipart/form-data, with the file in the field "${upload.field}"`,
        ),
      );
      return;
    }
    const declared = Number(req.get('Content-Length') ?? 0);
    if (declared > upload.maxBytes + FORM_OVERHEAD) {
      next(tooLarge(upload));
      return;
    }
    try {
      const fileBytesAtLeast = declared > MOST_BESIDES_FILE ? declared - MOST_BESIDES_FILE : undefined;
      await gate?.(req, res, { fileBytesAtLeast });
    } catch (err) {
      // Refused before a byte of the body was read: what the client still sends is dropped.
      req.resume();
      next(err);
      return;
    }
    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers: req.headers,
        defParamCharset: 'utf8',
        limits: {
          // busboy reports the limit on reaching it: one byte more tells a file over the limit.
          fileSize: upload.maxBytes + 1,
          files: 1,
          fields: MAX_FIELDS,
          fieldSize: FIELD_BYTES,
          parts: MAX_FIELDS + 1,
        },
      });
    } catch {
      next(InvalidInput.field('body', 'is not a readable multipart/form-data body (no boundary)'));
      return;
    }

    // No prototype: a field named __proto__ is just a field.
    const fields = Object.create(null) as Record<string, string[]>;
    let file: UploadedFile | undefined;
    let finished = false;
    // The first problem answers the request; whatever the client still sends is read and dropped.
    const fail = (err: Error) => {
      if (finished) return;
      finished = true;
      req.unpipe(parser);
      req.resume();
      next(err);
    };

    parser.on('file', (name, stream, info) => {
      if (name !== upload.field) {
        stream.resume();
        fail(InvalidInput.field(name, `is not a file field; send the file in the field "${upload.field}"`));
        return;
      }
      readFilePart(upload, stream, info, {
        file: (read) => {
          if (!finished) file = read;
        },
        refused: fail,
      });
      // The fields sent before the file (its company, say) may refuse it: it waits unread meanwhile.
      if (gate && Object.keys(fields).length > 0) {
        stream.pause();
        gate(req, res, { fields: { ...fields } }).then(
          () => stream.resume(),
          (err: Error) => {
            fail(err);
            stream.resume();
          },
        );
      }
    });
    parser.on('field', (name, value, info) => {
      if (name === upload.field) {
        fail(InvalidInput.field(name, 'must be a file part (with a filename), not a text field'));
        return;
      }
      if (info.valueTruncated) {
        fail(InvalidInput.field(name, `is longer than ${FIELD_BYTES} bytes`));
        return;
      }
      fields[name] = [...(fields[name] ?? []), value];
    });
    parser.on('filesLimit', () => fail(InvalidInput.field(upload.field, 'send exactly one file')));
    parser.on('fieldsLimit', () => fail(InvalidInput.field('body', `holds more than ${MAX_FIELDS} fields`)));
    parser.on('partsLimit', () =>
      fail(InvalidInput.field('body', `holds more than ${MAX_FIELDS + 1} parts`)),
    );
    parser.on('error', () => fail(InvalidInput.field('body', 'is not a readable multipart/form-data body')));
    parser.on('close', () => {
      if (finished) return;
      finished = true;
      const body: Record<string, unknown> = { ...fields };
      if (file) {
        files.set(req, file);
        body[upload.field] = {
          filename: file.filename,
          size: file.bytes.length,
          sha256: createHash('sha256').update(file.bytes).digest('hex'),
        };
      }
      req.body = body;
      next();
    });
    req.on('error', () => fail(InvalidInput.field('body', 'ended before the multipart body was complete')));
    req.pipe(parser);
  };
}
