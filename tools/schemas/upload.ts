import { z } from 'zod';
import type { FileFormat } from '../../core/file-types.ts';

/** 1 MiB: upload limits are stated in MB and counted in these. */
export const MB = 1024 * 1024;

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
