import type { ZipReader } from '../core/zip.ts';
import { DRAWING } from './namespaces.ts';
import type { TextOutput } from './output.ts';
import { readXml } from './xml.ts';

/**
 * A PowerPoint deck as text: `Slide n`, then each paragraph with text on a line (DrawingML `p`, `t` and
 * `br`, whatever their prefix), slides in the order of their part names. A paragraph left open ends
 * with its slide.
 */
export function readPptx(zip: ZipReader, out: TextOutput, found: { pages: number | null }): void {
  const slides = zip.entries
    .map((entry) => ({ entry, number: /^ppt\/slides\/slide(\d{1,9})\.xml$/.exec(entry.name)?.[1] }))
    .filter((s) => s.number !== undefined)
    .sort((a, b) => Number(a.number) - Number(b.number));
  found.pages = slides.length;
  slides.forEach(({ entry }, i) => {
    out.add(`${i > 0 ? '\n\n' : ''}Slide ${i + 1}`);
    let paragraph: string | undefined;
    let inText = 0;
    const flush = () => {
      if (paragraph !== undefined && paragraph.trim() !== '') out.add(`\n${paragraph}`);
      paragraph = undefined;
    };
    readXml(zip, entry, {
      open({ uri, local }) {
        if (!DRAWING.has(uri)) return;
        if (local === 'p') {
          flush();
          paragraph = '';
        } else if (local === 't') inText++;
        else if (local === 'br' && paragraph !== undefined) paragraph += '\n';
      },
      close({ uri, local }) {
        if (!DRAWING.has(uri)) return;
        if (local === 'p') flush();
        else if (local === 't') inText = Math.max(0, inText - 1);
      },
      text(t) {
        if (paragraph === undefined || inText === 0) return;
        paragraph += t;
        if (paragraph.length > out.room) flush();
      },
    });
    flush();
  });
}
