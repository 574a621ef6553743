// PDFs written deterministically for the extraction corpus: each text placed at a point of the page in
// Helvetica, left-aligned, or right-aligned on its x as figures in a printed table are.

/** A text on the page: its position in points from the bottom left, its size (11 unless given). */
export interface PdfText {
  x: number;
  y: number;
  text: string;
  align?: 'left' | 'right';
  size?: number;
}

// Helvetica's advance widths (thousandths of the font size) for the printable ASCII characters.
const WIDTHS = [
  278, 278, 355, 556, 556, 889, 667, 191, 333, 333, 389, 584, 278, 333, 278, 278, 556, 556, 556, 556, 556,
  556, 556, 556, 556, 556, 278, 278, 584, 584, 584, 556, 1015, 667, 667, 722, 722, 667, 611, 778, 722, 278,
  500, 667, 556, 833, 722, 778, 667, 778, 722, 667, 611, 722, 667, 944, 667, 667, 611, 278, 278, 278, 469,
  556, 333, 556, 556, 500, 556, 556, 278, 556, 556, 222, 222, 500, 222, 833, 556, 556, 556, 556, 333, 500,
  278, 556, 500, 722, 500, 500, 500, 334, 260, 334, 584,
];

/** The width in points of a text in Helvetica at a size. */
export function textWidth(text: string, size: number): number {
  let units = 0;
  for (const c of text) units += WIDTHS[c.charCodeAt(0) - 32] ?? 556;
  return (units * size) / 1000;
}

const pdfString = (s: string) => s.replace(/[()\\]/g, (c) => `\\${c}`);

/** A PDF of US Letter pages, one per entry, each a list of placed texts. */
export function writePdf(pages: PdfText[][]): Buffer {
  const objects: string[] = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '', // the page tree, once the pages are numbered
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>',
  ];
  const kids: number[] = [];
  for (const texts of pages) {
    const stream = texts
      .map((t) => {
        const size = t.size ?? 11;
        const x = t.align === 'right' ? t.x - textWidth(t.text, size) : t.x;
        return `BT /F1 ${size} Tf ${x.toFixed(2)} ${t.y.toFixed(2)} Td (${pdfString(t.text)}) Tj ET`;
      })
      .join('\n');
    objects.push(`<< /Length ${Buffer.byteLength(stream, 'latin1')} >>\nstream\n${stream}\nendstream`);
    objects.push(
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents ${objects.length} 0 R /Resources << /Font << /F1 3 0 R >> >> >>`,
    );
    kids.push(objects.length);
  }
  objects[1] = `<< /Type /Pages /Kids [${kids.map((k) => `${k} 0 R`).join(' ')}] /Count ${kids.length} >>`;
  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(Buffer.byteLength(out, 'latin1'));
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = Buffer.byteLength(out, 'latin1');
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const o of offsets) out += `${String(o).padStart(10, '0')} 00000 n \n`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}

/**
 * A printed table: a label at the left margin, then each cell right-aligned on its column's edge, one
 * line per row from `top` down.
 */
export function pdfTable(
  rows: (string | undefined)[][],
  columns: number[],
  top: number,
  left = 72,
): PdfText[] {
  const texts: PdfText[] = [];
  rows.forEach((row, r) => {
    const y = top - r * 16;
    row.forEach((text, c) => {
      if (text === undefined || text === '') return;
      texts.push(c === 0 ? { x: left, y, text } : { x: columns[c - 1]!, y, text, align: 'right' });
    });
  });
  return texts;
}
