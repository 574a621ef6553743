// The company dashboard view, shown with get_company_performance.
import { Dashboard, type Performance, type Period } from './shared/dashboard.ts';
import { message } from './shared/format.ts';
import { errorText, startView } from './shared/host.ts';

const root = document.getElementById('app')!;
let asked: Period | undefined;
let dashboard: Dashboard | undefined;

void startView({
  name: 'company-dashboard',
  tool: 'get_company_performance',
  onInput(args) {
    if (args.period === 'month' || args.period === 'quarter' || args.period === 'year') asked = args.period;
  },
  onResult(result, host) {
    if (result.isError || !result.structuredContent) {
      root.replaceChildren(message(errorText(result), 'error'));
      return;
    }
    dashboard ??= new Dashboard(root, host);
    void dashboard.show(result.structuredContent as unknown as Performance, asked);
  },
});
