// The view's side of the MCP Apps protocol: the ext-apps App class over postMessage to the host. The view
// holds no token and reaches the service only through the host (tools/call proxied by the host).
import {
  App,
  applyDocumentTheme,
  applyHostStyleVariables,
  type McpUiHostContext,
  PostMessageTransport,
} from '@modelcontextprotocol/ext-apps';

export interface ToolResult {
  structuredContent?: Record<string, unknown>;
  content?: { type: string; text?: string }[];
  isError?: boolean;
}

export interface ViewHost {
  /** Calls a tool of the same server through the host; resolves to its structuredContent, rejects on an error result. */
  call<T>(name: string, args: Record<string, unknown>): Promise<T>;
}

export interface ViewOptions {
  name: string;
  /** The arguments the model called the tool with (when the host sends them). */
  onInput?(args: Record<string, unknown>): void;
  /** The tool's result: the first one, and any the host sends later. */
  onResult(result: ToolResult, host: ViewHost): void;
}

/** Milliseconds a size must hold before the host is told, so a redraw sends one notification, not many. */
const RESIZE_DEBOUNCE_MS = 120;

function applyContext(ctx: McpUiHostContext | undefined): void {
  if (!ctx) return;
  if (ctx.theme) applyDocumentTheme(ctx.theme);
  if (ctx.styles?.variables) applyHostStyleVariables(ctx.styles.variables);
}

export function errorText(result: ToolResult): string {
  return (result.content ?? []).map((c) => c.text ?? '').join(' ') || 'the tool returned an error';
}

/** Tells the host the document's size after it settled, and only when it changed. */
function watchSize(app: App): void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let sent = '';
  const send = () => {
    const el = document.documentElement;
    const width = Math.ceil(el.scrollWidth);
    const height = Math.ceil(el.scrollHeight);
    const key = `${width}x${height}`;
    if (key === sent) return;
    sent = key;
    void app.sendSizeChanged({ width, height });
  };
  new ResizeObserver(() => {
    clearTimeout(timer);
    timer = setTimeout(send, RESIZE_DEBOUNCE_MS);
  }).observe(document.body);
}

export async function startView(options: ViewOptions): Promise<void> {
  // Prefer the system theme until the host says otherwise.
  applyDocumentTheme(matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light');
  const app = new App({ name: options.name, version: '1.0.0' }, {}, { autoResize: false });
  const host: ViewHost = {
    async call<T>(name: string, args: Record<string, unknown>): Promise<T> {
      const result = (await app.callServerTool({ name, arguments: args })) as ToolResult;
      if (result.isError || !result.structuredContent) throw new Error(errorText(result));
      return result.structuredContent as T;
    },
  };
  app.ontoolinput = (params) => options.onInput?.(params.arguments ?? {});
  app.ontoolresult = (result) => options.onResult(result as ToolResult, host);
  app.onhostcontextchanged = (ctx) => applyContext(ctx);
  await app.connect(new PostMessageTransport(window.parent, window.parent));
  applyContext(app.getHostContext());
  watchSize(app);
}

/** Runs `work` over `items` with at most `limit` calls under way at once. */
export async function eachLimited<T>(
  items: T[],
  limit: number,
  work: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
