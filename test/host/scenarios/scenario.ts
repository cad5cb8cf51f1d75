/**
 * The contract between real-host scenarios (what a user does and what they must see)
 * and the rigs that run them. A scenario never starts processes itself: a rig gives it
 * a session on a running gateway, so one gateway per host line and engine can serve
 * every scenario of the suite, each in its own session.
 */
import type { ChatTurn } from "../gateway.js";
import type { EngineChoice, HostEnv } from "../host-env.js";
import type { HostVersion } from "../host-install.js";
import type { PluginEvent } from "../logs.js";
import type { MockRequest, MockScript } from "../mock-model.js";

/** One scenario's session on a running gateway. */
export interface ScenarioSession {
  version: HostVersion;
  /** Engine in the context-engine slot (`context-ledger`, `legacy`, or a test engine id). */
  engineId: string;
  /** The gateway session key this scenario owns (e.g. `agent:main:fetch-back`). */
  sessionKey: string;
  /** The host env of the gateway (state dir, logs, plugin events). Shared with other scenarios. */
  env: HostEnv;
  /** The model shape the gateway advertises (the scenario's {@link HostScenario.model}). */
  model: ScenarioModel;
  /** Replaces this scenario's mock script; it sees only this scenario's requests. */
  setScript(script: MockScript): void;
  /**
   * Model requests of this scenario so far, in order. `turn` and `indexInTurn` count
   * within the scenario (turn 1 is the scenario's first user message).
   */
  requests(): MockRequest[];
  /**
   * Every model request the gateway's mock saw, of any scenario. A run the host starts on its own (its memory flush)
   * carries no scenario tag and is routed to whichever scenario sent last, so a scenario that owns a whole wire reads
   * that wire's requests here.
   */
  gatewayRequests(): MockRequest[];
  /** Sends one user message into this session and waits until the run settles. */
  chatSend(message: string, timeoutMs?: number): Promise<ChatTurn>;
  /** Any other gateway method (`sessions.compact`, `sessions.reset`, ...). */
  call(method: string, params?: Record<string, unknown>, timeoutMs?: number): Promise<unknown>;
  /**
   * The host log written since this scenario's session opened (gateway output and the
   * host's log file). Scenarios run one after another on a gateway, so this is this
   * scenario's, plus whatever the host did in the background meanwhile.
   */
  hostLog(): Promise<string>;
  /** The engine plugin's events written since this scenario's session opened. */
  pluginEvents(): Promise<PluginEvent[]>;
}

/** A user-visible behaviour, checked in a real host. */
export interface HostScenario {
  /** Unique, kebab-case; also the session name. */
  name: string;
  /** Host lines it runs on. */
  lines: readonly HostVersion[];
  /** Engines it runs with (legacy runs are controls and comparisons). */
  engines: readonly EngineChoice[];
  /**
   * The model shape it needs, when not {@link SCENARIO_MODEL}. Such a scenario gets a
   * gateway of its own (the window is a host config setting, fixed per gateway).
   */
  model?: ScenarioModel;
  /**
   * context-ledger's plugin config it needs (`plugins.entries["context-ledger"].config`), when
   * not the defaults. Such a scenario gets a gateway of its own, as for {@link model}.
   */
  ledgerConfig?: Readonly<Record<string, unknown>>;
  /**
   * The agent whose session it opens. @default "main". {@link FULL_EXEC_AGENT} shares the gateway
   * with its own plugin settings ({@link SHARED_LEDGER_CONFIG}).
   */
  agentId?: string;
  /** Runs the scenario and asserts with vitest's `expect`; throws on failure. */
  run(session: ScenarioSession): Promise<void>;
}

/** The model a gateway advertises: its context window and output allowance (tokens). */
export interface ScenarioModel {
  readonly contextWindow: number;
  readonly maxTokens: number;
}

/** An agent of every shared context-ledger gateway with `offload.fullExecOutput` on. */
export const FULL_EXEC_AGENT = "full";

/**
 * context-ledger's config on a shared gateway (a scenario naming its own gets a gateway of its own):
 * the defaults, and {@link FULL_EXEC_AGENT} with the opt-in, so the opt-in runs beside the defaults
 * without a gateway more per line.
 */
export const SHARED_LEDGER_CONFIG: Readonly<Record<string, unknown>> = {
  agents: { [FULL_EXEC_AGENT]: { offload: { fullExecOutput: true } } },
};

/** The model shape of every scenario that names none (one shared mock agent per gateway). */
export const SCENARIO_MODEL = { contextWindow: 32_000, maxTokens: 4_096 } as const satisfies ScenarioModel;
