// The escaping lives in core/, where the mail templates reach it too; the pages import it from here.
export { escapeHtml, html, SafeHtml } from '../../core/html.ts';
