import type { OpenClawPluginApi } from "openclaw/plugin-sdk/plugin-entry";
import { captureIndexOf, captureSessionOf } from "./capture/capture-index.js";
import { registerCapture } from "./capture/capture-hook.js";
import { registerFullExec } from "./capture/full-exec/full-exec-hook.js";
import { parseConfig } from "./config/parse-config.js";
import { createEngine } from "./engine/create-engine.js";
import { ENGINE_ID } from "./host/engine-info.js";
import { registerChatCommand } from "./chat/register-chat-command.js";
import { registerLedgerPage } from "./page/page-route.js";
import { runtimeVersionOf } from "./host/detect-host.js";
import { registerRequestOverheadProbe } from "./host/request-overhead.js";
import { registerHostCli } from "./cli/host-cli.js";
import { createLedgerRuntime, type LedgerRuntime } from "./runtime/ledger-runtime.js";
import { createLedgerToolFactory } from "./retrieval/tools.js";
import { storedOutputOfCall } from "./capture/full-exec/call-output.js";
import { listAgentIds } from "./state/agent-list.js";
import { PLUGIN_VERSION, processWideKey } from "./version.js";

// The host calls register() once per agent context and again on hot reload:
// one runtime per (config, state dir) per process keeps that idempotent.
const runtimes = new Map<string, LedgerRuntime>();
// Which copy of this module registered (2026.9.6 loads the plugin twice: `full` and `discovery`).
const COPIES = processWideKey("module-copies");
const g = globalThis as { [COPIES]?: number };
const MODULE_INSTANCE = (g[COPIES] = (g[COPIES] ?? 0) + 1);

function runtimeFor(api: OpenClawPluginApi): LedgerRuntime {
  const config = parseConfig(api.pluginConfig ?? {});
  const key = `${process.env.OPENCLAW_STATE_DIR ?? ""}\u0000${JSON.stringify(config)}`;
  let services = runtimes.get(key);
  if (!services) {
    services = createLedgerRuntime({ config, hostLogger: api.logger });
    runtimes.set(key, services);
  }
  return services;
}

/**
 * Registers the engine, the retrieval tools, raw-output capture, the CLI, the /ledger chat command and the Ledger page.
 * Wiring only.
 */
function register(api: OpenClawPluginApi): void {
  const services = runtimeFor(api);
  void services.events.write({
    op: "register",
    mode: String((api as { registrationMode?: unknown }).registrationMode ?? "unknown"),
    runtimes: runtimes.size,
    moduleInstance: MODULE_INSTANCE,
  });
  const hostVersion = runtimeVersionOf(api);
  api.registerContextEngine(ENGINE_ID, (ctx?: unknown) => createEngine(services, ctx, hostVersion));
  registerRequestOverheadProbe(api, services.requestOverhead);
  if (typeof api.registerTool === "function") {
    api.registerTool(
      createLedgerToolFactory({
        openStore: (agentId: string) => services.store(agentId),
        readableAgents: (agentId: string) => services.settings(agentId).retrieval.readableAgents,
        defaultMaxChars: services.config.retrieval.defaultMaxChars,
        grepTimeoutMs: services.config.retrieval.grepTimeoutMs,
        // `"*"` needs the list of agents; peek answers pass through the calling agent's redaction settings.
        listAgents: () => listAgentIds(services.root),
        redact: (text: string, agentId: string | undefined) =>
          services.redact(agentId ? services.settings(agentId) : services.config, text),
        outputOfCall: (agentId, context, toolCallId) =>
          storedOutputOfCall(services, agentId, { session: captureSessionOf(context), toolCallId }),
      }),
      { names: ["ledger_fetch", "ledger_peek", "ledger_search"] },
    );
  }
  if (services.config.offload.capture) {
    registerCapture(api, services, (agentId) => captureIndexOf(services, agentId), hostVersion);
    registerFullExec(api, services, hostVersion);
  }
  if (typeof api.registerCli === "function") registerHostCli(api);
  registerChatCommand(api, services);
  registerLedgerPage(api, services);
}

/** The plugin definition OpenClaw loads (`package.json#openclaw.extensions`). */
const plugin = {
  id: ENGINE_ID,
  name: "context-ledger",
  description: "Prompt-authoritative, token-budgeted context engine with lossless artifact offload",
  version: PLUGIN_VERSION,
  register,
};

export default plugin;
