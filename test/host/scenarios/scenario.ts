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
import type { SentUserMessage } from "../prompt-contract.js";

/** One scenario's session on a running gateway. */
export interface ScenarioSession {
  version: HostVersion;
  /** Engine in the context-engine slot (`context-ledger`, `legacy`, or a test engine id). */
  engineId: string;
  /** The gateway session key this scenario owns (`agent:<agent>:<name>`, e.g. `agent:main:fetch-back`). */
  sessionKey: string;
  /** The host env of the gateway (state dir, logs, plugin events). Shared with other scenarios. */
  env: HostEnv;
  /** The model shape of the session's agent: the scenario's {@link HostScenario.model}, else {@link SCENARIO_MODEL}. */
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
  /**
   * Every message sent with {@link chatSend} (as the host got it, tagged), with the number of requests the mock had
   * seen before it: what the prompt contract checks each request against.
   */
  sentMessages(): SentUserMessage[];
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
  /**
   * Restarts the gateway every scenario of the line shares, on the same state (sessions survive it), and waits until
   * it is ready. Other scenarios' sessions see a restart between their turns, never during one.
   */
  restartGateway(): Promise<void>;
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
   * The model shape it needs, when not {@link SCENARIO_MODEL}. Such a scenario runs on an agent of
   * its own on the engine's gateway ({@link ownAgentOf}): the host sizes a run (its window, output
   * clamp, memory-flush threshold, transcript load cap) by the run's model, which is the agent's.
   */
  model?: ScenarioModel;
  /**
   * context-ledger's settings it needs, when not the defaults: per-agent sections of the plugin
   * config (`plugins.entries["context-ledger"].config.agents.<id>`, see `agentOverrideSchema`),
   * written for an agent of its own, as for {@link model}.
   */
  ledgerConfig?: Readonly<Record<string, unknown>>;
  /**
   * The agent whose session it opens. @default "main". {@link FULL_EXEC_AGENT} shares the gateway
   * with its own plugin settings ({@link SHARED_LEDGER_CONFIG}). Not with {@link model} or
   * {@link ledgerConfig}: those get an agent of their own, named after the scenario.
   */
  agentId?: string;
  /**
   * A cost or cache figure of a session at a model shape of its own, not a behaviour the user sees: it runs in
   * `npm run test:figures` ({@link FIGURES_ENV}=1) and is listed as skipped in `npm test`, whose time it would
   * otherwise lengthen by a few gateway-minutes.
   */
  figure?: boolean;
  /**
   * The lines where `npm test` runs the scenario's `legacy` control, when not every line of {@link lines}: on the
   * others legacy runs only with {@link CONTROLS_ENV}=all (`npm run test:controls`) or in `npm run test:figures`,
   * and is listed as skipped, so a comparison with legacy holds on those lines only there. context-ledger runs on
   * every line.
   */
  legacyLines?: readonly HostVersion[];
  /** Runs the scenario and asserts with vitest's `expect`; throws on failure. */
  run(session: ScenarioSession): Promise<void>;
}

/** The variable that adds the {@link HostScenario.figure} scenarios (and legacy's bills) to a host run. */
export const FIGURES_ENV = "LEDGER_HOST_FIGURES";

/** True in `npm run test:figures`: the figure scenarios run, and legacy's runs that only bill. */
export function figuresRun(): boolean {
  return process.env[FIGURES_ENV] === "1";
}

/** The variable that runs every legacy control on every line of its scenario ({@link HostScenario.legacyLines}). */
export const CONTROLS_ENV = "LEDGER_HOST_CONTROLS";

/** True where every legacy control runs: `npm run test:controls` ({@link CONTROLS_ENV}=all) and figure runs. */
export function allControlsRun(): boolean {
  return process.env[CONTROLS_ENV] === "all" || figuresRun();
}

/** Where `npm test` runs the legacy controls of the scenarios on every line: 2026.4.24 and the current line. */
export const LEGACY_CONTROL_LINES: readonly HostVersion[] = ["2026.4.24", "2026.9.6"];

/** Whether this run has `s`'s legacy control on `version` ({@link HostScenario.legacyLines}). */
export function legacyControlOn(
  s: Pick<HostScenario, "legacyLines">,
  version: HostVersion,
  allControls: boolean = allControlsRun(),
): boolean {
  return allControls || s.legacyLines === undefined || s.legacyLines.includes(version);
}

/** The model a gateway advertises: its context window and output allowance (tokens). */
export interface ScenarioModel {
  readonly contextWindow: number;
  readonly maxTokens: number;
}

/**
 * An agent of every shared context-ledger gateway with `offload.fullExecOutput` on. Its `exec` is sent to
 * the background only after 120 s (`tools.exec.backgroundMs`, the hosts' most): a 20 MB output that takes
 * longer than the default 10 s on a loaded machine still returns in its own call.
 */
export const FULL_EXEC_AGENT = "full";

/**
 * An agent of every shared context-ledger gateway with `offload.fullExecOutput` on whose `exec` is sent to
 * the background after 1 s (`tools.exec.backgroundMs`), so a command of a few seconds is backgrounded.
 */
export const FULL_EXEC_BG_AGENT = "full-bg";

/** The `agents.list` entries of the two opt-in agents. */
export const FULL_EXEC_AGENT_ENTRIES = [
  { id: FULL_EXEC_AGENT, tools: { exec: { backgroundMs: 120_000 } } },
  { id: FULL_EXEC_BG_AGENT, tools: { exec: { backgroundMs: 1_000 } } },
] as const;

/**
 * context-ledger's config on a shared gateway: the defaults, and {@link FULL_EXEC_AGENT} with the
 * opt-in, so the opt-in runs beside the defaults without a gateway more per line. A scenario naming
 * its own settings adds its agent's section ({@link ownAgentOf}).
 */
export const SHARED_LEDGER_CONFIG: Readonly<Record<string, unknown>> = {
  agents: {
    [FULL_EXEC_AGENT]: { offload: { fullExecOutput: true } },
    [FULL_EXEC_BG_AGENT]: { offload: { fullExecOutput: true } },
  },
};

/** The model shape of every scenario that names none (the gateway's default model). */
export const SCENARIO_MODEL = { contextWindow: 32_000, maxTokens: 4_096 } as const satisfies ScenarioModel;

/**
 * An agent of a shared gateway that serves one scenario with its own model shape or context-ledger
 * settings: its own provider and model entry (same mock), its own host state (`agents/<id>/`:
 * sessions, transcripts; workspace `workspace/<id>`) and its own ledger state and settings
 * (`agents.<id>`). Its system prompt is the default agent's at that window but for the host's
 * custodian skills, which 2026.9.6 lists to its owner agent (`main`) only: 4 skills, about 1,060
 * chars fewer (measured 2026-11-26 at 64k: 24,407 chars against 25,524 on a gateway of its own).
 */
export interface ScenarioAgent {
  id: string;
  model?: ScenarioModel;
  ledgerConfig?: Readonly<Record<string, unknown>>;
}

/** The agent of its own a scenario with a model shape or plugin settings runs on (id: its name); else undefined. */
export function ownAgentOf(scenario: Pick<HostScenario, "name" | "model" | "ledgerConfig">): ScenarioAgent | undefined {
  if (!scenario.model && !scenario.ledgerConfig) return undefined;
  return {
    id: scenario.name,
    ...(scenario.model ? { model: scenario.model } : {}),
    ...(scenario.ledgerConfig ? { ledgerConfig: scenario.ledgerConfig } : {}),
  };
}

/** The agent whose session `scenario` opens: its own ({@link ownAgentOf}), its `agentId`, or "main". */
export function agentIdOf(scenario: Pick<HostScenario, "name" | "model" | "ledgerConfig" | "agentId">): string {
  return ownAgentOf(scenario)?.id ?? scenario.agentId ?? "main";
}
