/**
 * One gateway per (host line, engine) serving every scenario of the suite, each in its
 * own session `agent:main:<name>`. One mock model sits behind it and routes each
 * request to the scenario it belongs to by a tag that every user message sent through
 * that scenario's `chatSend` carries (`[scenario <name>]`; the newest genuine user
 * message is always in a request), and numbers `turn`/`indexInTurn` per scenario.
 */
import type { ChatTurn } from "../gateway.js";
import { startHostRig, type HostRig } from "../gateway-session.js";
import type { EngineChoice } from "../host-env.js";
import type { HostVersion } from "../host-install.js";
import { markLogs, readHostLog, readPluginEvents } from "../logs.js";
import type { MockScript } from "../mock-model.js";
import { WIRE_AGENTS, wireAgentsConfig } from "../wire-agents.js";
import { WIRES } from "../wires.js";
import {
  FULL_EXEC_AGENT,
  SCENARIO_MODEL,
  SHARED_LEDGER_CONFIG,
  type ScenarioModel,
  type ScenarioSession,
} from "./scenario.js";

/** Options for {@link startSharedRig}. */
export interface SharedRigOptions {
  version: HostVersion;
  engine: EngineChoice;
  /** `plugins.entries["context-ledger"].config`. */
  ledgerConfig?: Record<string, unknown>;
  /** The model shape it advertises. @default SCENARIO_MODEL */
  model?: ScenarioModel;
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
  /** Opens the session of scenario `name` (its tag, its script, its requests). */
  /** Opens scenario `name`'s session `agent:<agentId>:<name>` (agent "main" by default). */
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

/**
 * Starts the mock model and one gateway for `version` and `engine` (with the given
 * model shape, by default {@link SCENARIO_MODEL}). Requests without a tag (none seen so
 * far; the host's own summaries keep the user's message) go to the scenario that sent last.
 */
export async function startSharedRig(options: SharedRigOptions): Promise<SharedRig> {
  const scripts = new Map<string, MockScript>();
  let active = "";
  const model = options.model ?? SCENARIO_MODEL;
  const fallback: MockScript = () => ({ text: "OK." });
  const sharedAgents = options.engine === "context-ledger" && options.ledgerConfig === undefined;
  const rig = await startHostRig({
    version: options.version,
    engine: options.engine,
    contextWindow: model.contextWindow,
    maxTokens: model.maxTokens,
    ledgerConfig: sharedAgents ? { ...SHARED_LEDGER_CONFIG } : options.ledgerConfig,
    extraConfig: (mock) => {
      const wires = wireAgentsConfig(mock, model);
      // The host answers a session of an agent it does not list with "Agent ... no longer exists".
      const list = [{ id: "main", default: true }, ...(sharedAgents ? [{ id: FULL_EXEC_AGENT }] : []), ...wires.agents];
      return { models: { providers: wires.providers }, agents: { list } };
    },
    mock: {
      maxRequestsTotal: 100_000,
      strict: {
        contextWindow: model.contextWindow,
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
      const mark = await markLogs(rig.env);
      return {
        version: options.version,
        engineId: rig.env.engineId,
        sessionKey,
        env: rig.env,
        model,
        setScript(script) {
          scripts.set(name, script);
        },
        requests: () => rig.mock.requests.filter((r) => r.partition === name),
        gatewayRequests: () => rig.mock.requests,
        chatSend(message, timeoutMs): Promise<ChatTurn> {
          active = name;
          return rig.gateway.chatSend(sessionKey, taggedMessage(name, message), timeoutMs);
        },
        call: (method, params, timeoutMs) => rig.gateway.call(method, params, timeoutMs),
        hostLog: () => readHostLog(rig.env, [], mark),
        pluginEvents: () => readPluginEvents(rig.env, mark),
      };
    },
    close: () => rig.close(),
  };
}
