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
  /**
   * Calls a tool of the same server through the host, in the detailed form (a view reads exact fields);
   * resolves to its structuredContent, rejects on an error result.
   */
  call<T>(name: string, args: Record<string, unknown>): Promise<T>;
}

export interface ViewOptions {
  name: string;
  /** The tool the view shows. */
  tool: string;
  /** The arguments the model called the tool with (when the host sends them). */
  onInput?(args: Record<string, unknown>): void;
  /**
   * The arguments the view asks the tool again with when the model's result is not the detailed form;
   * the model's own by default. `first` is the model's result, in whichever form it came.
   */
  detailedArgs?(args: Record<string, unknown>, first: Record<string, unknown>): Record<string, unknown>;
  /** The tool's result in the detailed form: the first one, and any the host sends later. */
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
      const result = (await app.callServerTool({
        name,
        arguments: { ...args, response_format: 'detailed' },
      })) as ToolResult;
      if (result.isError || !result.structuredContent) throw new Error(errorText(result));
      return result.structuredContent as T;
    },
  };
  let input: Record<string, unknown> | undefined;
  let latest = 0;
  app.ontoolinput = (params) => {
    input = params.arguments ?? {};
    options.onInput?.(input);
  };
  app.ontoolresult = (result) => {
    const mine = ++latest;
    void detailedResult(options, host, result as ToolResult, input).then((detailed) => {
      // A later result (the host may send more than one) wins over this one.
      if (mine === latest) options.onResult(detailed, host);
    });
  };
  app.onhostcontextchanged = (ctx) => applyContext(ctx);
  await app.connect(new PostMessageTransport(window.parent, window.parent));
  applyContext(app.getHostContext());
  watchSize(app);
}

/**
 * The model's result in the detailed form. Over MCP a read tool answers concisely unless asked otherwise
 * (fields dropped, constants stated once, rows reshaped), so unless the model asked for `detailed`, the
 * tool is asked again through the host with the same arguments (MCP Apps hosts send the arguments before
 * the result). An error result is shown as it is.
 */
async function detailedResult(
  options: ViewOptions,
  host: ViewHost,
  result: ToolResult,
  input: Record<string, unknown> | undefined,
): Promise<ToolResult> {
  if (result.isError || !result.structuredContent) return result;
  if (input?.response_format === 'detailed') return result;
  const args = { ...(input ?? {}) };
  delete args.response_format;
  try {
    const detailed = await host.call<Record<string, unknown>>(
      options.tool,
      options.detailedArgs ? options.detailedArgs(args, result.structuredContent) : args,
    );
    return { ...result, structuredContent: detailed };
  } catch (err) {
    return { isError: true, content: [{ type: 'text', text: (err as Error).message }] };
  }
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
