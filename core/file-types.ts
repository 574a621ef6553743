/** A file format an upload may have: the extensions that name it, its media type and its signature. */
export interface FileFormat {
  extensions: readonly string[];
  contentType: string;
  /** Whether the content starts the way files of this format do. */
  matches(bytes: Uint8Array): boolean;
}

function startsWith(bytes: Uint8Array, signature: readonly number[], offset = 0): boolean {
  if (bytes.length < offset + signature.length) return false;
  return signature.every((b, i) => bytes[offset + i] === b);
}

const ascii = (text: string) => [...text].map((c) => c.charCodeAt(0));

// A ZIP archive starts with a local file header; DOCX, XLSX, PPTX and ODS are ZIP archives.
const zip = (bytes: Uint8Array) => startsWith(bytes, [0x50, 0x4b, 0x03, 0x04]);

export const PDF: FileFormat = {
  extensions: ['.pdf'],
  contentType: 'application/pdf',
  matches: (b) => startsWith(b, ascii('%PDF-')),
};
export const DOCX: FileFormat = {
  extensions: ['.docx'],
  contentType: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  matches: zip,
};
export const XLSX: FileFormat = {
  extensions: ['.xlsx'],
  contentType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  matches: zip,
};
export const PPTX: FileFormat = {
  extensions: ['.pptx'],
  contentType: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  matches: zip,
};
export const ODS: FileFormat = {
  extensions: ['.ods'],
  contentType: 'application/vnd.oasis.opendocument.spreadsheet',
  matches: zip,
};
export const JPEG: FileFormat = {
  extensions: ['.jpg', '.jpeg'],
  contentType: 'image/jpeg',
  matches: (b) => startsWith(b, [0xff, 0xd8, 0xff]),
};
export const PNG: FileFormat = {
  extensions: ['.png'],
  contentType: 'image/png',
  matches: (b) => startsWith(b, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
};
export const WEBP: FileFormat = {
  extensions: ['.webp'],
  contentType: 'image/webp',
  matches: (b) => startsWith(b, ascii('RIFF')) && startsWith(b, ascii('WEBP'), 8),
};
export const GIF: FileFormat = {
  extensions: ['.gif'],
  contentType: 'image/gif',
  matches: (b) => startsWith(b, ascii('GIF87a')) || startsWith(b, ascii('GIF89a')),
};

/** The formats a document upload accepts. */
export const DOCUMENT_FORMATS: readonly FileFormat[] = [PDF, DOCX, XLSX, PPTX, ODS, JPEG, PNG, WEBP, GIF];
/** The formats a company logo accepts. */
export const IMAGE_FORMATS: readonly FileFormat[] = [JPEG, PNG, GIF, WEBP];

/** The lower-cased extension of a file name (`.pdf`), or '' when it has none. */
export function extensionOf(filename: string): string {
  const dot = filename.lastIndexOf('.');
  return dot > 0 ? filename.slice(dot).toLowerCase() : '';
}

/** Every extension of the formats, for messages: `.pdf, .docx, …`. */
export function extensionList(formats: readonly FileFormat[]): string {
  return formats.flatMap((f) => f.extensions).join(', ');
}

/** The format a file name says, or undefined when its extension is not one of the formats'. */
export function formatByName(formats: readonly FileFormat[], filename: string): FileFormat | undefined {
  const extension = extensionOf(filename);
  return formats.find((f) => f.extensions.includes(extension));
}
