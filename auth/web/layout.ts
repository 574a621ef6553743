import { html, SafeHtml } from './html.ts';

export const PRODUCT_NAME = 'Portfolio Data Service';

// Colours meet WCAG AA against their backgrounds: body text 15:1, muted text 7:1, links and the
// primary button 7:1, error text 7:1. Focus is a 3px ring that never depends on colour alone.
const css = `
*,*::before,*::after{box-sizing:border-box}
html{-webkit-text-size-adjust:100%}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;color:#16191f;background:#f3f4f6}
a{color:#1d4ed8;text-underline-offset:2px}
a:hover{color:#1e3a8a}
:focus-visible{outline:3px solid #1d4ed8;outline-offset:2px}
.skip{position:absolute;left:-999px;top:0;background:#fff;padding:.5rem 1rem;z-index:10}
.skip:focus{left:.5rem;top:.5rem}
.top{background:#fff;border-bottom:1px solid #d9dce1}
.top-inner{max-width:56rem;margin:0 auto;padding:.75rem 1rem;display:flex;flex-wrap:wrap;align-items:center;gap:.5rem 1.5rem}
.brand{font-weight:700;color:#16191f;text-decoration:none;margin-right:auto}
.brand:hover{color:#16191f}
nav ul{list-style:none;margin:0;padding:0;display:flex;flex-wrap:wrap;gap:.25rem 1rem;align-items:center}
nav a{text-decoration:none;padding:.25rem 0;border-bottom:2px solid transparent}
nav .who{color:#4b5161;font-size:.9rem;overflow-wrap:anywhere}
nav a[aria-current=page]{color:#16191f;border-bottom-color:#1d4ed8;font-weight:600}
main{max-width:56rem;margin:0 auto;padding:1.5rem 1rem 3rem}
main.narrow{max-width:28rem;padding-top:3rem}
.card{background:#fff;border:1px solid #d9dce1;border-radius:12px;padding:1.5rem;box-shadow:0 1px 2px rgba(16,24,40,.05)}
.card+.card,section+section{margin-top:1.5rem}
h1{font-size:1.6rem;line-height:1.25;margin:0 0 .5rem}
h2{font-size:1.2rem;margin:0 0 .25rem}
h3{font-size:1rem;margin:1.5rem 0 .5rem}
p{margin:.5rem 0}
.muted{color:#4b5161}
.lead{margin-bottom:1.25rem}
label{display:block;font-weight:600;margin:1rem 0 .35rem}
input[type=email],input[type=password],input[type=text],input[type=number]{display:block;width:100%;font:inherit;padding:.6rem .75rem;border:1px solid #8a909c;border-radius:8px;background:#fff;color:#16191f}
input:focus-visible{outline:3px solid #1d4ed8;outline-offset:1px;border-color:#1d4ed8}
.hint{font-size:.875rem;color:#4b5161;margin:.25rem 0 0}
.button{display:inline-flex;align-items:center;justify-content:center;font:inherit;font-weight:600;min-height:2.75rem;padding:.55rem 1.1rem;border-radius:8px;border:1px solid #1d4ed8;background:#1d4ed8;color:#fff;cursor:pointer;text-decoration:none}
.button:hover{background:#1e40af;border-color:#1e40af;color:#fff}
.button.secondary{background:#fff;color:#16191f;border-color:#8a909c}
.button.secondary:hover{background:#eef0f3}
.button.danger{background:#fff;color:#a11b1b;border-color:#c53030}
.button.danger:hover{background:#fdf0f0}
.button.link{background:none;border:none;color:#1d4ed8;padding:0;min-height:0;font-weight:400;text-decoration:underline;text-underline-offset:2px}
.actions{display:flex;flex-wrap:wrap;gap:.75rem;margin-top:1.5rem}
.actions .button{flex:1 1 10rem}
.full{width:100%;margin-top:1.5rem}
.alert{border-radius:8px;padding:.75rem 1rem;margin:1rem 0;border:1px solid}
.alert.error{background:#fdf0f0;border-color:#e8a3a3;color:#8a1414}
.alert.ok{background:#effaf3;border-color:#9bd3ad;color:#14532d}
.alert.warn{background:#fff8e6;border-color:#e9c46a;color:#5c4100}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:.4rem 1rem;margin:1rem 0}
dl.facts dt{color:#4b5161}
dl.facts dd{margin:0;font-weight:600;overflow-wrap:anywhere}
ul.plain{margin:.5rem 0;padding-left:1.25rem}
ul.items{list-style:none;margin:1rem 0 0;padding:0;border-top:1px solid #e3e5e9}
ul.items li{display:flex;flex-wrap:wrap;align-items:center;gap:.5rem 1rem;padding:.9rem 0;border-bottom:1px solid #e3e5e9}
.item-main{flex:1 1 16rem;min-width:0}
.item-title{font-weight:600;overflow-wrap:anywhere}
.item-meta{font-size:.875rem;color:#4b5161}
.badge{display:inline-block;font-size:.75rem;font-weight:600;padding:.05rem .5rem;border-radius:999px;background:#e8ecf7;color:#1e3a8a;margin-left:.35rem;vertical-align:middle}
code,.secret{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.9rem}
code{background:#eef0f3;padding:.1rem .35rem;border-radius:4px;overflow-wrap:anywhere}
.secret{display:block;width:100%;padding:.6rem .75rem;border:1px solid #8a909c;border-radius:8px;background:#f8f9fb;color:#16191f}
.inline-form{display:flex;flex-wrap:wrap;gap:.75rem;align-items:flex-end}
.inline-form .field{flex:1 1 14rem}
.inline-form .field.small{flex:0 1 8rem}
.inline-form label{margin-top:.5rem}
.empty{color:#4b5161;margin-top:1rem}
.signout{margin-top:1.25rem;font-size:.9rem;color:#4b5161;text-align:center}
textarea,select{display:block;width:100%;font:inherit;padding:.6rem .75rem;border:1px solid #8a909c;border-radius:8px;background:#fff;color:#16191f}
input[type=date]{font:inherit;padding:.5rem .75rem;border:1px solid #8a909c;border-radius:8px;background:#fff;color:#16191f}
[aria-invalid=true]{border-color:#a11b1b;border-width:2px}
.field-error{color:#8a1414;font-size:.9rem;font-weight:600;margin:.25rem 0 0}
fieldset{border:1px solid #d9dce1;border-radius:8px;margin:1.25rem 0 0;padding:.5rem 1rem 1rem}
legend{font-weight:700;padding:0 .35rem}
.check{display:flex;gap:.5rem;align-items:center;font-weight:400;margin:.4rem 0}
.check input{width:1.1rem;height:1.1rem}
.row{display:flex;flex-wrap:wrap;gap:0 .75rem;align-items:flex-start;border-bottom:1px solid #e3e5e9;padding-bottom:.5rem}
.row>div{flex:1 1 10rem;min-width:0}
table{width:100%;border-collapse:collapse;margin-top:1rem;font-size:.95rem}
th,td{text-align:left;padding:.5rem .4rem;border-bottom:1px solid #e3e5e9;vertical-align:top}
th{color:#4b5161;font-weight:600}
.table-wrap{overflow-x:auto}
tr.mapped th,tr.mapped td{background:#fff7d6}
table.sheet td[title]{font-variant-numeric:tabular-nums;text-align:right}
pre.mail{white-space:pre-wrap;overflow-wrap:anywhere;background:#f8f9fb;border:1px solid #d9dce1;border-radius:8px;padding:1rem;font-size:.9rem}
@media (max-width:30rem){
  main{padding:1rem .75rem 2rem}
  main.narrow{padding-top:1.25rem}
  .card{padding:1.1rem;border-radius:10px}
  h1{font-size:1.35rem}
  dl.facts{grid-template-columns:1fr;gap:0}
  dl.facts dd{margin-bottom:.5rem}
  ul.items li form,ul.items li .button{width:100%}
}
`;

export interface NavState {
  current: 'requests' | 'contacts' | 'outbox' | 'connections' | 'developer' | 'documents';
  csrfToken: string;
  email: string;
  /** Shows the outbox, which only admins with access to every company read. */
  outbox?: boolean;
}

export interface PageOptions {
  title: string;
  /** Sign-in and consent pages are a single narrow card; account pages have navigation. */
  narrow?: boolean;
  nav?: NavState;
  body: SafeHtml;
}

function navigation(nav: NavState): SafeHtml {
  const link = (key: NavState['current'], href: string, label: string) =>
    html`<li><a href="${href}"${nav.current === key ? html` aria-current="page"` : ''}>${label}</a></li>`;
  return html`<nav aria-label="Account">
      <ul>
        ${link('requests', '/account/information-requests', 'Information requests')}
        ${link('contacts', '/account/contacts', 'Contacts')}
        ${nav.outbox ? link('outbox', '/account/outbox', 'Outbox') : ''}
        ${link('connections', '/account/connections', 'Connections')}
        ${link('developer', '/account/developer', 'Developer settings')}
        <li class="who">${nav.email}</li>
        <li>
          <form method="post" action="/logout">
            <input type="hidden" name="csrf_token" value="${nav.csrfToken}">
            <button class="button link" type="submit">Sign out</button>
          </form>
        </li>
      </ul>
    </nav>`;
}

export function page(options: PageOptions): string {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${options.title} · ${PRODUCT_NAME}</title>
<style>${new SafeHtml(css)}</style>
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header class="top">
  <div class="top-inner">
    <a class="brand" href="/account/connections">${PRODUCT_NAME}</a>
    ${options.nav ? navigation(options.nav) : ''}
  </div>
</header>
<main id="main"${options.narrow ? html` class="narrow"` : ''}>
${options.body}
</main>
</body>
</html>
`.value;
}
