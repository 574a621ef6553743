import { z } from 'zod';
import { cleanFileName } from '../../core/file-name.ts';
import type { FileFormat } from '../../core/file-types.ts';
import type { ToolContext } from '../context.ts';
import { InvalidInput } from '../errors.ts';

/** 1 MiB: upload limits are stated in MB and counted in these. */
export const MB = 1024 * 1024;

/** What is known of an upload before its file is read. */
export interface UploadSoFar {
  /** Tool input fields known so far: path parameters, and the form fields sent ahead of the file. */
  input: Record<string, unknown>;
  /** The fewest bytes the file can hold, from the request's Content-Length, when it declared one. */
  fileBytesAtLeast?: number;
}

/** A tool that takes one file: the field, its limits, and the checks that can refuse it before it is read. */
export interface FileUpload {
  /** The form field that carries the file. */
  field: string;
  /** The largest file accepted, in bytes. */
  maxBytes: number;
  /** The accepted formats: a file must have one of their extensions and content of that format. */
  formats: readonly FileFormat[];
  /**
   * The tool's own checks on what is known before the file arrives (the company it goes to, room
   * for it); the tool runs them again, with the rest, once the file is read.
   */
  authorize?(ctx: ToolContext, soFar: UploadSoFar): Promise<void>;
}

/**
 * A file received with a multipart request: its bytes, the name it was sent under and the media type
 * of the format its content was recognised as (not the one the client claimed).
 */
export function uploadedFile(formats: readonly FileFormat[], description: string) {
  return z
    .object({
      filename: z.string().min(1).max(255).describe('The name the file was sent under, without a directory.'),
      content_type: z
        .enum(formats.map((f) => f.contentType) as [string, ...string[]])
        .describe('Media type of the format the content was recognised as.'),
      bytes: z
        .instanceof(Uint8Array)
        .transform((b) => (Buffer.isBuffer(b) ? b : Buffer.from(b)))
        .describe('The content of the file.'),
    })
    .describe(description);
}
export type UploadedFile = z.infer<ReturnType<typeof uploadedFile>>;

/** The name a file is stored under: without control characters; a name left empty is refused. */
export function storedFileName(field: string, filename: string): string {
  const name = cleanFileName(filename);
  if (!name) throw InvalidInput.field(field, 'has no file name once control characters are removed');
  return name;
}
