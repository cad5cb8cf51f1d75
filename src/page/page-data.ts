import { createLedgerTools } from "../retrieval/tools.js";
import { redactSecrets } from "../results/redact.js";
import type { LedgerServices } from "../runtime/services.js";

/** What the page reads: config, settings, stores, session state, redaction. Never writes. */
export type PageDeps = Pick<LedgerServices, "config" | "root" | "settings" | "store" | "sessions" | "redactPatterns">;

/** Most characters of an original the page shows at once (the tool's own cap). */
export const PAGE_FETCH_MAX_CHARS = 20_000;

/**
 * A stored output as `ledger_fetch` answers it: bounded (head and tail), redacted over the whole output before the
 * cut, verified against its handle. Undefined with the tool's message when it cannot be read.
 */
export async function fetchOriginal(
  deps: PageDeps,
  agentId: string,
  handle: string,
): Promise<{ text: string } | { error: string }> {
  const settings = deps.settings(agentId);
  const [fetchTool] = createLedgerTools(
    {
      openStore: (a) => deps.store(a),
      readableAgents: () => [agentId],
      defaultMaxChars: PAGE_FETCH_MAX_CHARS,
      grepTimeoutMs: deps.config.retrieval.grepTimeoutMs,
      redactFetch: (text) => redactSecrets(text, deps.redactPatterns(settings)),
    },
    { agentId },
  );
  if (!fetchTool) return { error: "the fetch tool is unavailable" };
  const result = await fetchTool.execute("ledger-page", { handle, selector: { kind: "headtail" } });
  const error = result.details.error as { message?: unknown } | undefined;
  if (error) return { error: String(error.message) };
  return { text: result.content.map((c) => c.text).join("\n") };
}

/** The model's context window for an agent from the host's config, when the config names it (else null). */
export function contextWindowOf(hostConfig: unknown, agentId: string): number | null {
  const c = hostConfig as {
    agents?: { defaults?: { model?: unknown }; list?: { id?: unknown; model?: unknown }[] };
    models?: { providers?: Record<string, { models?: { id?: unknown; contextWindow?: unknown }[] }> };
  } | null;
  const own = c?.agents?.list?.find((a) => a.id === agentId)?.model;
  const model = own ?? c?.agents?.defaults?.model;
  const primary = typeof model === "string" ? model : (model as { primary?: unknown } | undefined)?.primary;
  if (typeof primary !== "string" || !primary.includes("/")) return null;
  const [provider, ...rest] = primary.split("/");
  const id = rest.join("/");
  const found = c?.models?.providers?.[provider ?? ""]?.models?.find((m) => m.id === id);
  return typeof found?.contextWindow === "number" ? found.contextWindow : null;
}
