// A minimal MCP Apps host page, bundled for the browser by test/mcp-apps.test.ts: it embeds a view in a
// sandboxed iframe under the CSP the resource declares, talks to it through the ext-apps AppBridge, and
// proxies the view's tools/call to the real server through `hostCallTool` (the test's MCP client).
import {
  AppBridge,
  type McpUiHostContext,
  PostMessageTransport,
} from '@modelcontextprotocol/ext-apps/app-bridge';

interface ToolCall {
  name: string;
  arguments?: Record<string, unknown>;
}

interface HostWindow {
  hostCallTool(call: ToolCall): Promise<Record<string, unknown>>;
  /** Every tools/call the view made, in order. */
  calls: ToolCall[];
  /** Every size the view reported. */
  sizes: { width?: number; height?: number }[];
  bridge?: AppBridge;
  embedView(options: EmbedOptions): Promise<void>;
  setTheme(theme: 'light' | 'dark'): Promise<void>;
}

interface EmbedOptions {
  html: string;
  csp: { connectDomains?: string[]; resourceDomains?: string[] };
  toolInput: Record<string, unknown>;
  toolResult: Record<string, unknown>;
  theme: 'light' | 'dark';
}

const w = window as unknown as HostWindow;
w.calls = [];
w.sizes = [];

/** The policy a host derives from `_meta.ui.csp`: inline code only, and only the origins it names. */
function policy(csp: EmbedOptions['csp']): string {
  const connect = csp.connectDomains?.length ? csp.connectDomains.join(' ') : "'none'";
  const resources = csp.resourceDomains?.join(' ') ?? '';
  return [
    "default-src 'none'",
    `script-src 'unsafe-inline' ${resources}`.trim(),
    `style-src 'unsafe-inline' ${resources}`.trim(),
    `img-src data: ${resources}`.trim(),
    `font-src ${resources || "'none'"}`,
    `connect-src ${connect}`,
    "frame-src 'none'",
  ].join('; ');
}

w.embedView = async (options) => {
  const iframe = document.createElement('iframe');
  iframe.setAttribute('sandbox', 'allow-scripts');
  iframe.style.cssText = 'width:900px;height:200px;border:0;display:block';
  document.body.replaceChildren(iframe);
  const hostContext: McpUiHostContext = { theme: options.theme, displayMode: 'inline', platform: 'web' };
  const bridge = new AppBridge(
    null,
    { name: 'test-host', version: '1.0.0' },
    { serverTools: {} },
    { hostContext },
  );
  bridge.oncalltool = async (params) => {
    w.calls.push({ name: params.name, arguments: params.arguments });
    return (await w.hostCallTool({ name: params.name, arguments: params.arguments })) as never;
  };
  bridge.onsizechange = ({ width, height }) => {
    w.sizes.push({ width, height });
    if (height !== undefined) iframe.style.height = `${height}px`;
  };
  const initialized = new Promise<void>((resolve) => {
    bridge.oninitialized = () => resolve();
  });
  const target = iframe.contentWindow!;
  // Listening before the page loads: the view says ui/initialize as soon as its script runs.
  await bridge.connect(new PostMessageTransport(target, target));
  iframe.srcdoc = options.html.replace(
    '<head>',
    `<head><meta http-equiv="Content-Security-Policy" content="${policy(options.csp)}">`,
  );
  await initialized;
  await bridge.sendToolInput({ arguments: options.toolInput });
  await bridge.sendToolResult(options.toolResult as never);
  w.bridge = bridge;
};

w.setTheme = async (theme) => {
  await w.bridge!.sendHostContextChange({ theme });
};
