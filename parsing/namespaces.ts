/**
 * The namespaces the readers match elements in. Office Open XML has two sets, Transitional (what Office
 * writes) and Strict (what it can save as); a reader takes either.
 */
const both = (transitional: string, strict: string) => new Set([transitional, strict]);

export const WORD = both(
  'http://schemas.openxmlformats.org/wordprocessingml/2006/main',
  'http://purl.oclc.org/ooxml/wordprocessingml/main',
);
export const SHEET = both(
  'http://schemas.openxmlformats.org/spreadsheetml/2006/main',
  'http://purl.oclc.org/ooxml/spreadsheetml/main',
);
export const DRAWING = both(
  'http://schemas.openxmlformats.org/drawingml/2006/main',
  'http://purl.oclc.org/ooxml/drawingml/main',
);
export const RELATIONSHIPS = both(
  'http://schemas.openxmlformats.org/officeDocument/2006/relationships',
  'http://purl.oclc.org/ooxml/officeDocument/relationships',
);
/** The package's relationship parts (`_rels/*.rels`): one namespace in both sets. */
export const PACKAGE_RELATIONSHIPS = 'http://schemas.openxmlformats.org/package/2006/relationships';
export const MARKUP_COMPATIBILITY = 'http://schemas.openxmlformats.org/markup-compatibility/2006';

export const ODF_TABLE = 'urn:oasis:names:tc:opendocument:xmlns:table:1.0';
export const ODF_TEXT = 'urn:oasis:names:tc:opendocument:xmlns:text:1.0';
export const ODF_OFFICE = 'urn:oasis:names:tc:opendocument:xmlns:office:1.0';
