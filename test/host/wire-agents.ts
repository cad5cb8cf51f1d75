/**
 * Agents of a shared gateway that talk to the mock over another wire: each has its own custom
 * provider (`models.providers.<id>.api`) pointing at the same mock server, and its own `model`,
 * so one gateway per engine serves every wire.
 */
import type { MockModel } from "./mock-model.js";
import type { WireName } from "./wires.js";

/** A wire besides the default `openai-completions`, with the agent and provider that use it. */
export interface WireAgent {
  wire: WireName;
  agentId: string;
  providerId: string;
}

/** The agents of every shared gateway that use another wire. */
export const WIRE_AGENTS: readonly WireAgent[] = [
  { wire: "anthropic-messages", agentId: "wire-anthropic", providerId: "mock-anthropic" },
  { wire: "openai-responses", agentId: "wire-responses", providerId: "mock-responses" },
];

/** The model shape the providers advertise. */
export interface WireModelShape {
  contextWindow: number;
  maxTokens: number;
}

/** A provider (`models.providers.<id>`) at the mock's `baseUrl`, speaking `wire`, with one model of that shape. */
export function mockProvider(baseUrl: string, wire: WireName, modelId: string, model: WireModelShape) {
  return {
    baseUrl,
    apiKey: "mock-key",
    api: wire,
    models: [
      {
        id: modelId,
        name: modelId,
        reasoning: false,
        input: ["text"],
        cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
        contextWindow: model.contextWindow,
        maxTokens: model.maxTokens,
      },
    ],
  };
}

/**
 * The providers (the mock at its base URL, with the wire as `api`) and the `agents.list` entries of
 * {@link WIRE_AGENTS}. The Anthropic provider gets the server root: the host appends `/v1/messages`.
 */
export function wireAgentsConfig(mock: Pick<MockModel, "baseUrl" | "modelId">, model: WireModelShape) {
  const providers: Record<string, unknown> = {};
  for (const { wire, providerId } of WIRE_AGENTS) {
    const baseUrl = wire === "anthropic-messages" ? mock.baseUrl.replace(/\/v1$/, "") : mock.baseUrl;
    providers[providerId] = mockProvider(baseUrl, wire, mock.modelId, model);
  }
  return {
    providers,
    agents: WIRE_AGENTS.map(({ agentId, providerId }) => ({ id: agentId, model: `${providerId}/${mock.modelId}` })),
  };
}
