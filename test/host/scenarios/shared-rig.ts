/**
 * One gateway per (host line, engine) serving every scenario of the suite, each in its
 * own session `agent:<agent>:<name>` (agent `main` unless the scenario names one or has an
 * agent of its own for its model shape or plugin settings). One mock model sits behind it
 * and routes each request to the scenario it belongs to by a tag that every user message
 * sent through that scenario's `chatSend` carries (`[scenario <name>]`; the newest genuine
 * user message is always in a request), and numbers `turn`/`indexInTurn` per scenario.
 */
import type { ChatTurn } from "../gateway.js";
import { startHostRig, type HostRig } from "../gateway-session.js";
import type { EngineChoice } from "../host-env.js";
import type { HostVersion } from "../host-install.js";
import { markLogs, readHostLog, readPluginEvents } from "../logs.js";
import type { MockScript } from "../mock-model.js";
import { mockProvider, WIRE_AGENTS, wireAgentsConfig } from "../wire-agents.js";
import { WIRES } from "../wires.js";
import type { SentUserMessage } from "../prompt-contract.js";
import {
  FULL_EXEC_AGENT,
  FULL_EXEC_AGENT_ENTRIES,
  FULL_EXEC_BG_AGENT,
  SCENARIO_MODEL,
  SHARED_LEDGER_CONFIG,
  type ScenarioAgent,
  type ScenarioModel,
  type ScenarioSession,
} from "./scenario.js";

/** Options for {@link startSharedRig}. */
export interface SharedRigOptions {
  version: HostVersion;
  engine: EngineChoice;
  /**
   * `plugins.entries["context-ledger"].config`, instead of {@link SHARED_LEDGER_CONFIG} (then without
   * {@link FULL_EXEC_AGENT}). The {@link agents}' sections are added to it.
   */
  ledgerConfig?: Record<string, unknown>;
  /** Agents with a model shape or context-ledger settings of their own, besides the default model's agents. */
  agents?: readonly ScenarioAgent[];
  /**
   * The mock answers as a strict OpenAI endpoint of the model's window (see `openai-rules.ts`): `enforce` refuses
   * what the provider would, `observe` answers everything and counts provider usage, naming broken rules.
   * The other wires ({@link WIRE_AGENTS}) are strict in any case: `enforce` for context-ledger, else `observe`.
   * @default lenient on the chat-completions wire
   */
  strict?: "enforce" | "observe";
}

/** A running gateway that hands out scenario sessions. */
export interface SharedRig {
  rig: HostRig;
  /**
   * Opens scenario `name`'s session `agent:<agentId>:<name>` (agent "main" by default): its tag, its
   * script, its requests, and its agent's model shape.
   */
  open(name: string, agentId?: string): Promise<ScenarioSession>;
  close(): Promise<void>;
}

/** The tag that routes a user message (and every model request of its turn) to scenario `name`. */
export function scenarioTag(name: string): string {
  return `[scenario ${name}]`;
}

const TAG = /\[scenario ([a-z0-9][a-z0-9-]*)\]/;

/** The scenario a user message belongs to, from its tag. */
export function scenarioOfText(text: string | undefined): string | undefined {
  return text === undefined ? undefined : TAG.exec(text)?.[1];
}

/**
 * The message a scenario's `chatSend` sends: the text, then the tag on a line of its
 * own. Slash commands (`/reset`, `/new`) go as they are: the host parses them, and a
 * request they cause is routed to the scenario that sent last.
 */
export function taggedMessage(name: string, message: string): string {
  return message.trimStart().startsWith("/") ? message : `${message}\n\n${scenarioTag(name)}`;
}

/** The provider and model id of an agent's own model: its own entry, at the same mock. */
export function ownModelRef(
  agent: Pick<ScenarioAgent, "id">,
  mockModelId: string,
): { provider: string; model: string } {
  return { provider: `mock-${agent.id}`, model: `${mockModelId}-${agent.id}` };
}

/**
 * Starts the mock model and one gateway for `version` and `engine`, its default model of
 * {@link SCENARIO_MODEL}'s shape, and each of `agents` with its own model entry (its shape,
 * its own model id, so that no host cache keyed by model id mixes two windows) and its own
 * section of context-ledger's config. Requests without a tag (none seen so far; the host's
 * own summaries keep the user's message) go to the scenario that sent last.
 */
export async function startSharedRig(options: SharedRigOptions): Promise<SharedRig> {
  const scripts = new Map<string, MockScript>();
  let active = "";
  const model = SCENARIO_MODEL;
  const fallback: MockScript = () => ({ text: "OK." });
  const agents = options.agents ?? [];
  const ids = new Set(agents.map((a) => a.id));
  if (
    ids.size !== agents.length ||
    ["main", FULL_EXEC_AGENT, FULL_EXEC_BG_AGENT, ...WIRE_AGENTS.map((a) => a.agentId)].some((id) => ids.has(id))
  )
    throw new Error(`Expected agent ids of their own, unique, got ${agents.map((a) => a.id).join(", ")}`);
  const shapeOf = (agentId: string): ScenarioModel => agents.find((a) => a.id === agentId)?.model ?? model;
  const sharedAgents = options.engine === "context-ledger" && options.ledgerConfig === undefined;
  const ownSections = Object.fromEntries(
    agents.flatMap((a) => (a.ledgerConfig ? [[a.id, { ...a.ledgerConfig }]] : [])),
  );
  const base = sharedAgents ? SHARED_LEDGER_CONFIG : (options.ledgerConfig ?? {});
  const ledgerConfig =
    options.engine !== "context-ledger"
      ? options.ledgerConfig
      : {
          ...base,
          agents: { ...((base.agents as Record<string, unknown> | undefined) ?? {}), ...ownSections },
        };
  const mockModelId = "mock-model";
  // The strict mock judges each agent's own model at its window, with a prefix cache of its own.
  const ownWindows = Object.fromEntries(
    agents.flatMap((a) => (a.model ? [[ownModelRef(a, mockModelId).model, a.model.contextWindow]] : [])),
  );
  const rig = await startHostRig({
    version: options.version,
    engine: options.engine,
    contextWindow: model.contextWindow,
    maxTokens: model.maxTokens,
    ledgerConfig,
    extraConfig: (mock) => {
      const wires = wireAgentsConfig(mock, model);
      const providers: Record<string, unknown> = { ...wires.providers };
      const own = agents.map((a) => {
        if (!a.model) return { id: a.id };
        const ref = ownModelRef(a, mockModelId);
        providers[ref.provider] = mockProvider(mock.baseUrl, "openai-completions", ref.model, a.model);
        return { id: a.id, model: `${ref.provider}/${ref.model}` };
      });
      // The host answers a session of an agent it does not list with "Agent ... no longer exists".
      const list = [
        { id: "main", default: true },
        ...(sharedAgents ? FULL_EXEC_AGENT_ENTRIES : []),
        ...wires.agents,
        ...own,
      ];
      return { models: { providers }, agents: { list } };
    },
    mock: {
      modelId: mockModelId,
      maxRequestsTotal: 100_000,
      strict: {
        contextWindow: model.contextWindow,
        windows: ownWindows,
        enforce: options.strict ? options.strict === "enforce" : options.engine === "context-ledger",
        wires: options.strict ? WIRES : WIRE_AGENTS.map((a) => a.wire),
      },
      partition: (userText) => {
        const name = scenarioOfText(userText);
        return name !== undefined && scripts.has(name) ? name : active;
      },
    },
    script: (request) => (scripts.get(request.partition) ?? fallback)(request),
  });
  return {
    rig,
    async open(name, agentId = "main") {
      if (scripts.has(name)) throw new Error(`Expected scenario names to be unique on a gateway, got "${name}" twice`);
      scripts.set(name, fallback);
      const sessionKey = `agent:${agentId}:${name}`;
      const sent: SentUserMessage[] = [];
      const mark = await markLogs(rig.env);
      return {
        version: options.version,
        engineId: rig.env.engineId,
        sessionKey,
        env: rig.env,
        model: shapeOf(agentId),
        setScript(script) {
          scripts.set(name, script);
        },
        requests: () => rig.mock.requests.filter((r) => r.partition === name),
        gatewayRequests: () => rig.mock.requests,
        chatSend(message, timeoutMs): Promise<ChatTurn> {
          active = name;
          const text = taggedMessage(name, message);
          sent.push({ text, requestsBefore: rig.mock.requests.length });
          return rig.gateway.chatSend(sessionKey, text, timeoutMs);
        },
        sentMessages: () => [...sent],
        call: (method, params, timeoutMs) => {
          // A reset through the gateway starts a new conversation, as `/reset` typed in the chat does.
          if (method === "sessions.reset") sent.push({ text: "/reset", requestsBefore: rig.mock.requests.length });
          return rig.gateway.call(method, params, timeoutMs);
        },
        hostLog: () => readHostLog(rig.env, [], mark),
        pluginEvents: () => readPluginEvents(rig.env, mark),
        restartGateway: () => rig.restartGateway(),
      };
    },
    close: () => rig.close(),
  };
}
