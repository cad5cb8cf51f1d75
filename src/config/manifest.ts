import { z } from "zod";
import { ENGINE_ID, PLUGIN_VERSION } from "../version.js";
import { configSchema } from "./schema.js";

/** UI labels for the options operators touch most. */
const UI_HINTS: Record<string, { label: string; help: string }> = {
  enabled: { label: "Enabled", help: "Master switch; false makes every agent a pass-through." },
  "budget.safetyMarginRatio": { label: "Safety margin", help: "Share of the host's budget kept free." },
  "offload.maxChars": {
    label: "Offload above (chars)",
    help: "Tool outputs longer than this move to the artifact store.",
  },
  "offload.previewChars": { label: "Preview length", help: "Chars of head-and-tail preview kept in the prompt." },
  "summary.maxInjectedChars": { label: "Summary size", help: "Upper bound of the injected session summary." },
  "maintenance.enabled": { label: "Debt paydown", help: "Rewrite oversized transcript entries into handle stubs." },
  "limits.maxStoreBytes": { label: "Store size cap", help: "gc first, then stashing is refused." },
  agents: {
    label: "Per-agent settings",
    help: '`{ "<agentId>": { "enabled": false } }` turns the engine off for one agent.',
  },
};

/** The JSON Schema of the plugin config, as operators write it (defaults optional). */
export function configJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(configSchema, { io: "input", unrepresentable: "any" }) as Record<string, unknown>;
  delete schema.$schema;
  return schema;
}

/** The full `openclaw.plugin.json` content. `npm run gen:manifest` writes it; a test fails on drift. */
export function buildManifest(): Record<string, unknown> {
  return {
    id: ENGINE_ID,
    name: "context-ledger",
    description:
      "Prompt-authoritative, token-budgeted context engine: exact BPE budgets, lossless artifact offload, maintenance-debt paydown, session summaries.",
    version: PLUGIN_VERSION,
    kind: "context-engine",
    contracts: {
      tools: ["ledger_fetch", "ledger_peek", "ledger_search"],
    },
    cliCommands: [
      {
        name: "context-ledger",
        description: "context-ledger: status, view, grep, artifacts, session cleaning, doctor",
        hasSubcommands: true,
      },
    ],
    commandAliases: [{ name: "ledger", kind: "runtime-slash", cliCommand: "context-ledger" }],
    uiHints: UI_HINTS,
    configSchema: configJsonSchema(),
  };
}
