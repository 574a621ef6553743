import type { ZipReader } from '../core/zip.ts';
import { MARKUP_COMPATIBILITY, WORD } from './namespaces.ts';
import { type TextOutput, Unparseable } from './output.ts';
import { readXml } from './xml.ts';

/**
 * A Word document's body text, streamed from word/document.xml: `t` text, `tab` a tab, `br` and `cr` a
 * line break, each paragraph followed by a blank line (all in the WordprocessingML namespace, whatever
 * its prefix). Only counters are kept, so nesting (content controls in content controls …) costs
 * nothing. Of an `AlternateContent`, only the fallback is read, as it repeats the choice.
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
    open({ uri, local }) {
      if (uri === MARKUP_COMPATIBILITY && local === 'Choice') skipped++;
      else if (skipped > 0 || !WORD.has(uri)) return;
      else if (local === 't') inText++;
      else if (local === 'r') inRun++;
      else if (inRun === 0) return;
      else if (local === 'tab') paragraph += '\t';
      else if (local === 'br' || local === 'cr') paragraph += '\n';
    },
    close({ uri, local }) {
      if (uri === MARKUP_COMPATIBILITY && local === 'Choice') skipped = Math.max(0, skipped - 1);
      else if (skipped > 0 || !WORD.has(uri)) return;
      else if (local === 't') inText = Math.max(0, inText - 1);
      else if (local === 'r') inRun = Math.max(0, inRun - 1);
      else if (local === 'p') flush('\n\n');
    },
    text(t) {
      if (skipped > 0 || inText === 0) return;
      paragraph += t;
      if (paragraph.length > out.room) flush('');
    },
  });
  flush('');
}
