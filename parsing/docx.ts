import type { ZipReader } from '../core/zip.ts';
import { type TextOutput, Unparseable } from './output.ts';
import { readXml } from './xml.ts';

/**
 * A Word document's body text, streamed from word/document.xml: `w:t` text, `w:tab` a tab, `w:br` and
 * `w:cr` a line break, each paragraph followed by a blank line. Only counters are kept, so nesting
 * (content controls in content controls …) costs nothing. Of an `mc:AlternateContent`, only the
 * fallback is read, as it repeats the choice.
 */
export function readDocx(zip: ZipReader, out: TextOutput): void {
  const document = zip.entry('word/document.xml');
  if (!document) throw new Unparseable('a Word file without word/document.xml');
  let inText = 0;
  let inRun = 0;
  let skipped = 0;
  let paragraph = '';
  const flush = (end: string) => {
    out.add(paragraph + end);
    paragraph = '';
  };
  readXml(zip, document, {
    open(name, _attrs, selfClosing) {
      if (name === 'mc:Choice') {
        if (!selfClosing) skipped++;
      } else if (skipped > 0 || selfClosing) {
        if (skipped > 0 || inRun === 0) return;
        if (name === 'w:tab') paragraph += '\t';
        else if (name === 'w:br' || name === 'w:cr') paragraph += '\n';
      } else if (name === 'w:t') inText++;
      else if (name === 'w:r') inRun++;
    },
    close(name) {
      if (name === 'mc:Choice') skipped = Math.max(0, skipped - 1);
      else if (skipped > 0) return;
      else if (name === 'w:t') inText = Math.max(0, inText - 1);
      else if (name === 'w:r') inRun = Math.max(0, inRun - 1);
      else if (name === 'w:p') flush('\n\n');
    },
    text(t) {
      if (skipped > 0 || inText === 0) return;
      paragraph += t;
      if (paragraph.length > out.room) flush('');
    },
  });
  flush('');
}
