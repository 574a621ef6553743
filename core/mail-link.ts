import { escapeHtml } from './html.ts';

// A message that carries a founder link carries a live credential; once it is sent, the stored copy
// keeps a note in its place. The templates mark the link's anchor so that the outbox finds it again.

/** The attribute on the `<a>` that holds the founder link in a message's HTML. */
export const LINK_MARK = 'data-founder-link';

/** What a sent message's stored bodies say where the link was. */
export const SCRUBBED_LINK_NOTE = '[link removed from the stored copy once sent]';

const unescaped: Record<string, string> = {
  '&amp;': '&',
  '&lt;': '<',
  '&gt;': '>',
  '&quot;': '"',
  '&#39;': "'",
};

/** The reverse of escapeHtml, for an attribute value it wrote. */
function unescapeHtml(text: string): string {
  return text.replace(/&(amp|lt|gt|quot|#39);/g, (e) => unescaped[e]!);
}

/** The founder link in a message's HTML: the href of the anchor with LINK_MARK, if there is one. */
export function markedLink(html: string): string | undefined {
  const anchor = new RegExp(`<a\\s[^>]*${LINK_MARK}[^>]*>`).exec(html)?.[0];
  const href = anchor && /\shref="([^"]*)"/.exec(anchor)?.[1];
  return href ? unescapeHtml(href) : undefined;
}

export interface MailBodies {
  subject: string;
  text: string;
  html: string;
}

/** The bodies with every occurrence of `link` replaced by the note (escaped as the HTML has it). */
export function scrubLink(bodies: MailBodies, link: string): MailBodies {
  const note = SCRUBBED_LINK_NOTE;
  return {
    subject: bodies.subject.replaceAll(link, note),
    text: bodies.text.replaceAll(link, note),
    html: bodies.html.replaceAll(escapeHtml(link), escapeHtml(note)).replaceAll(link, escapeHtml(note)),
  };
}
