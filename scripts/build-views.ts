// `npm run build` step: the MCP Apps views into dist/views/, where the server reads them (tools/views.ts).
import { VIEWS_DIR } from '../tools/views.ts';
import { buildViews } from '../views/build.ts';

for (const view of await buildViews(VIEWS_DIR)) {
  console.log(
    `dist/views/${view.name}.html  ${(view.bytes / 1024).toFixed(1)} KB, ${(view.gzipped / 1024).toFixed(1)} KB gzipped`,
  );
}
