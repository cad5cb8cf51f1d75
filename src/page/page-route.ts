/**
 * The Ledger page on the gateway: a read-only plugin HTTP route under the gateway's own auth (every line from
 * 2026.4.24 serves plugin routes), and on 2026.9.x a Control UI sidebar tab whose frame is that route. The host
 * authenticates before the handler runs; the handler answers GET and HEAD only.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { OpenClawPluginApi } from "openclaw/plugin-sdk/plugin-entry";
import { errorMessage } from "../errors.js";
import type { PageDeps } from "./page-data.js";
import { PAGE_CSP, esc, pageHtml } from "./page-html.js";
import { artifactPage, indexPage, sessionPage } from "./page-views.js";

/** Where the page lives on the gateway. */
export const LEDGER_PAGE_PATH = "/plugins/context-ledger";
/** The Control UI tab's id. */
export const LEDGER_TAB_ID = "ledger";

/** One answer of the page: status and HTML. */
export interface PageAnswer {
  status: number;
  html: string;
}

/** What the page writes of a response (the gateway's `ServerResponse`). */
export interface PageResponse {
  statusCode: number;
  setHeader(name: string, value: string): unknown;
  end(body?: string): unknown;
}

/** What the tab descriptor and route registration need of the host's api (absent members: not offered). */
type PageApi = Pick<OpenClawPluginApi, "registerHttpRoute"> & {
  config?: unknown;
  session?: { controls?: { registerControlUiDescriptor?: (d: Record<string, unknown>) => void } };
  registerControlUiDescriptor?: (d: Record<string, unknown>) => void;
};

const registered = new WeakSet<object>();

/** Registers the route (every line) and the tab (where the host offers Control UI descriptors), once per api. */
export function registerLedgerPage(api: OpenClawPluginApi, deps: PageDeps): void {
  const page = api as unknown as PageApi;
  if (typeof page.registerHttpRoute !== "function" || registered.has(api)) return;
  registered.add(api);
  page.registerHttpRoute({
    path: LEDGER_PAGE_PATH,
    auth: "gateway",
    match: "prefix",
    handler: (req: IncomingMessage, res: ServerResponse) => servePage(deps, req, res, () => page.config),
  });
  const registerDescriptor = page.session?.controls?.registerControlUiDescriptor ?? page.registerControlUiDescriptor;
  registerDescriptor?.call(page.session?.controls ?? page, {
    surface: "tab",
    id: LEDGER_TAB_ID,
    label: "Ledger",
    description: "context-ledger: each session's prompt against its budget, what left it and why, the summary",
    icon: "book",
    group: "agent",
    path: `${LEDGER_PAGE_PATH}/`,
  });
}

/** Answers one request on the page's route. Never throws: a failure is a 500 page saying what failed. */
export async function servePage(
  deps: PageDeps,
  req: Pick<IncomingMessage, "method" | "url">,
  res: PageResponse,
  hostConfig: () => unknown,
): Promise<boolean> {
  const method = req.method ?? "GET";
  let answer: PageAnswer;
  if (method !== "GET" && method !== "HEAD") {
    res.setHeader("Allow", "GET, HEAD");
    answer = { status: 405, html: pageHtml("Ledger", "<p>The Ledger page is read-only: GET only.</p>") };
  } else {
    answer = await answerPage(deps, req.url ?? "/", hostConfig).catch((err: unknown) => ({
      status: 500,
      html: pageHtml("Ledger", `<p>The Ledger page failed: ${esc(errorMessage(err))}</p>`),
    }));
  }
  res.statusCode = answer.status;
  res.setHeader("Content-Type", "text/html; charset=utf-8");
  res.setHeader("Content-Security-Policy", PAGE_CSP);
  res.setHeader("X-Content-Type-Options", "nosniff");
  res.setHeader("Referrer-Policy", "no-referrer");
  res.setHeader("Cache-Control", "no-store");
  res.end(method === "HEAD" ? undefined : answer.html);
  return true;
}

/** The page a URL names, by its path under {@link LEDGER_PAGE_PATH} and its query. */
export async function answerPage(deps: PageDeps, url: string, hostConfig: () => unknown): Promise<PageAnswer> {
  const parsed = new URL(url, "http://gateway.invalid");
  const sub = parsed.pathname.startsWith(LEDGER_PAGE_PATH)
    ? parsed.pathname.slice(LEDGER_PAGE_PATH.length).replace(/^\/+|\/+$/g, "")
    : "";
  const q = parsed.searchParams;
  const notFound = (what: string): PageAnswer => ({
    status: 404,
    html: pageHtml("Ledger", `<p>${esc(what)}</p><p><a href="${LEDGER_PAGE_PATH}/">All sessions</a></p>`),
  });
  if (sub === "") return { status: 200, html: await indexPage(deps, LEDGER_PAGE_PATH) };
  const agent = q.get("agent") ?? "";
  const key = q.get("key") ?? "";
  if (!/^[\w.-]{1,128}$/.test(agent)) return notFound(`Expected an agent id, got \`${agent}\``);
  const target = { base: LEDGER_PAGE_PATH, agentId: agent, sessionKey: key };
  if (sub === "session") {
    const html = await sessionPage(deps, target, hostConfig());
    return html ? { status: 200, html } : notFound(`No session \`${key}\` for agent ${agent}`);
  }
  if (sub === "artifact") {
    const handle = q.get("handle") ?? "";
    const html = await artifactPage(deps, target, handle);
    return html ? { status: 200, html } : notFound(`No stored output \`${handle}\` for agent ${agent}`);
  }
  return notFound(`No page \`${sub}\``);
}
