import { ZipError, ZipReader } from './zip.ts';

/** A file format an upload may have: the extensions that name it, its media type and its signature. */
export interface FileFormat {
  extensions: readonly string[];
  contentType: string;
  /** Whether the content starts the way files of this format do: a cheap check of the first bytes. */
  matches(bytes: Uint8Array): boolean;
  /**
   * Whether the whole file is of this format: the signature and, for the zip-based formats, the parts
   * the format cannot do without (read from the zip's directory; nothing is inflated but ODS's
   * small `mimetype`).
   */
  contentMatches(bytes: Uint8Array): boolean;
}

function startsWith(bytes: Uint8Array, signature: readonly number[], offset = 0): boolean {
  if (bytes.length < offset + signature.length) return false;
  return signature.every((b, i) => bytes[offset + i] === b);
}

const ascii = (text: string) => [...text].map((c) => c.charCodeAt(0));

// A ZIP archive starts with a local file header; DOCX, XLSX, PPTX and ODS are ZIP archives.
const zip = (bytes: Uint8Array) => startsWith(bytes, [0x50, 0x4b, 0x03, 0x04]);

/** The zip-based document formats, told apart by their parts. */
export type ZipDocumentKind = 'docx' | 'xlsx' | 'pptx' | 'ods';

const ODS_MIMETYPE = 'application/vnd.oasis.opendocument.spreadsheet';

/**
 * Which zip-based document a zip archive is, by the names in its central directory (and ODS's
 * `mimetype`), or undefined when it is none. Throws a ZipError for an archive that cannot be read.
 */
export function zipDocumentKind(bytes: Uint8Array): ZipDocumentKind | undefined {
  const reader = new ZipReader(bytes);
  const names = new Set(reader.entries.map((e) => e.name));
  if (names.has('[Content_Types].xml')) {
    if (names.has('word/document.xml')) return 'docx';
    if (names.has('xl/workbook.xml')) return 'xlsx';
    if (names.has('ppt/presentation.xml')) return 'pptx';
  }
  if (!names.has('mimetype')) return undefined;
  try {
    const mimetype = new TextDecoder().decode(reader.readAll(reader.entry('mimetype')!, 256));
    return mimetype.trim() === ODS_MIMETYPE ? 'ods' : undefined;
  } catch (err) {
    if (err instanceof ZipError) return undefined;
    throw err;
  }
}

/** A check of the whole file for one zip-based kind: a damaged or foreign archive is no match. */
function zipOf(kind: ZipDocumentKind): (bytes: Uint8Array) => boolean {
  return (bytes) => {
    if (!zip(bytes)) return false;
    try {
      return zipDocumentKind(bytes) === kind;
    } catch (err) {
      if (err instanceof ZipError) return false;
      throw err;
    }
  };
}

/** A format whose signature is all there is to check. */
function signed(format: Omit<FileFormat, 'contentMatches'>): FileFormat {
  return { ...format, contentMatches: format.matches };
}

export const PDF: FileFormat = signed({
  extensions: ['.pdf'],
  contentType: 'application/pdf',
  matches: (b) => startsWith(b, ascii('%PDF-')),
});
export const DOCX: FileFormat = {
  extensions: ['.docx'],
  contentType: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  matches: zip,
  contentMatches: zipOf('docx'),
};
export const XLSX: FileFormat = {
  extensions: ['.xlsx'],
  contentType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  matches: zip,
  contentMatches: zipOf('xlsx'),
};
export const PPTX: FileFormat = {
  extensions: ['.pptx'],
  contentType: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  matches: zip,
  contentMatches: zipOf('pptx'),
};
export const ODS: FileFormat = {
  extensions: ['.ods'],
  contentType: ODS_MIMETYPE,
  matches: zip,
  contentMatches: zipOf('ods'),
};
export const JPEG: FileFormat = signed({
  extensions: ['.jpg', '.jpeg'],
  contentType: 'image/jpeg',
  matches: (b) => startsWith(b, [0xff, 0xd8, 0xff]),
});
export const PNG: FileFormat = signed({
  extensions: ['.png'],
  contentType: 'image/png',
  matches: (b) => startsWith(b, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
});
export const WEBP: FileFormat = signed({
  extensions: ['.webp'],
  contentType: 'image/webp',
  matches: (b) => startsWith(b, ascii('RIFF')) && startsWith(b, ascii('WEBP'), 8),
});
export const GIF: FileFormat = signed({
  extensions: ['.gif'],
  contentType: 'image/gif',
  matches: (b) => startsWith(b, ascii('GIF87a')) || startsWith(b, ascii('GIF89a')),
});

/** Whether bytes hold no NUL and no control character but tab, line breaks and form feed: text. */
function textual(bytes: Uint8Array): boolean {
  for (const b of bytes) if (b < 32 && b !== 9 && b !== 10 && b !== 12 && b !== 13) return false;
  return true;
}

export const CSV: FileFormat = {
  extensions: ['.csv'],
  contentType: 'text/csv',
  // The first bytes may end inside a UTF-8 sequence: only control bytes are checked there.
  matches: textual,
  contentMatches(bytes) {
    if (!textual(bytes)) return false;
    try {
      new TextDecoder('utf-8', { fatal: true }).decode(bytes);
      return true;
    } catch {
      return false;
    }
  },
};

/** The largest document accepted, as the reference states it (32 MB, counted in MiB). */
export const DOCUMENT_MAX_BYTES = 32 * 1024 * 1024;

/** The formats a document upload accepts. */
export const DOCUMENT_FORMATS: readonly FileFormat[] = [
  PDF,
  DOCX,
  XLSX,
  PPTX,
  ODS,
  CSV,
  JPEG,
  PNG,
  WEBP,
  GIF,
];
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
