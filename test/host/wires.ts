/**
 * The wires the mock model speaks, one per `api` that OpenClaw 2026.9.6 accepts for a custom
 * `baseUrl` and that the mock serves: `openai-completions` (`POST …/chat/completions`),
 * `anthropic-messages` (`POST …/v1/messages`) and `openai-responses` (`POST …/responses`).
 * Each endpoint reads its requests as chat-completions messages for the scripts, judges them
 * with its provider's rules when strict, and writes its provider's replies and errors.
 */
import type http from "node:http";
import { createAnthropicRules, thinkingEnabled } from "./anthropic-rules.js";
import type { AnthropicCacheUsage } from "./anthropic-cache.js";
import { anthropicChatView, anthropicToolNames, writeAnthropicReply } from "./anthropic-wire.js";
import { writeReply, type MockReply } from "./mock-wire.js";
import { createOpenAIRules } from "./openai-rules.js";
import { createResponsesRules } from "./responses-rules.js";
import { responsesChatView, responsesToolNames, writeResponsesReply } from "./responses-wire.js";
import type { TokenCounter } from "./token-count.js";

/** A provider wire (the host's `models.providers.<id>.api`). */
export type WireName = "openai-completions" | "anthropic-messages" | "openai-responses";

/** Every wire the mock serves. */
export const WIRES: readonly WireName[] = ["openai-completions", "anthropic-messages", "openai-responses"];

/** The wire a POST path belongs to, or undefined. */
export function wireOfPath(url: string): WireName | undefined {
  const path = url.split("?")[0] ?? "";
  if (path.endsWith("/chat/completions")) return "openai-completions";
  if (path.endsWith("/messages")) return "anthropic-messages";
  if (path.endsWith("/responses")) return "openai-responses";
  return undefined;
}

/** Prompt usage as the provider bills it (tokens). */
export interface WireUsage {
  /** The whole prompt: uncached input, cache reads and cache writes. */
  promptTokens: number;
  /** Read from the prompt cache. */
  cachedTokens: number;
  /** Written to the prompt cache (Anthropic bills them apart; OpenAI's wires write none). */
  cacheWriteTokens: number;
  /** The share of {@link cacheWriteTokens} written with a 1-hour TTL (billed higher). */
  cacheWrite1hTokens?: number;
}

/** What a strict endpoint makes of one request. */
export type WireJudgement =
  | { ok: true; usage: WireUsage; cache?: AnthropicCacheUsage; violation?: string }
  | { ok: false; usage: WireUsage; rejected: string; errorBody: unknown };

/** Options of {@link WireEndpoint.write}. */
export interface WireWriteOptions {
  model: string;
  requestIndex: number;
  body: Record<string, unknown>;
  /** The strict endpoint's judgement (accepted), when strict. */
  judgement?: WireJudgement & { ok: true };
  /** Prompt tokens reported when not strict. */
  fallbackPromptTokens: number;
}

/** One wire of the mock. */
export interface WireEndpoint {
  wire: WireName;
  /** The request as chat-completions messages, and the names of the tools offered. */
  view(body: Record<string, unknown>): { messages: unknown[]; toolNames: string[] };
  /** The provider's rules, when strict. */
  judge?(body: Record<string, unknown>): WireJudgement;
  write(res: http.ServerResponse, reply: MockReply, options: WireWriteOptions): void;
}

/** Strictness of an endpoint: the model's window, whether to refuse, the BPE. */
export interface WireStrictness {
  contextWindow: number;
  enforce?: boolean;
  counter: TokenCounter;
}

const usageOf = (promptTokens: number, cachedTokens: number, cacheWriteTokens = 0): WireUsage => ({
  promptTokens,
  cachedTokens,
  cacheWriteTokens,
});

function chatEndpoint(strict: WireStrictness | undefined): WireEndpoint {
  const rules = strict && createOpenAIRules(strict);
  return {
    wire: "openai-completions",
    view(body) {
      const tools = Array.isArray(body.tools) ? (body.tools as { function?: { name?: string } }[]) : [];
      const messages = Array.isArray(body.messages) ? (body.messages as unknown[]) : [];
      return { messages, toolNames: tools.map((t) => t.function?.name ?? "").filter(Boolean) };
    },
    ...(rules && { judge: openAIJudge(rules) }),
    write(res, reply, o) {
      const usage = o.judgement?.usage;
      writeReply(res, reply, {
        model: o.model,
        stream: o.body.stream === true,
        promptTokens: usage?.promptTokens ?? o.fallbackPromptTokens,
        ...(usage ? { cachedTokens: usage.cachedTokens } : {}),
        requestIndex: o.requestIndex,
      });
    },
  };
}

function anthropicEndpoint(strict: WireStrictness | undefined): WireEndpoint {
  const rules = strict && createAnthropicRules(strict);
  return {
    wire: "anthropic-messages",
    view: (body) => ({ messages: anthropicChatView(body), toolNames: anthropicToolNames(body) }),
    ...(rules && {
      judge(body): WireJudgement {
        const v = rules.check(body);
        if (!v.ok)
          return { ok: false, usage: usageOf(v.promptTokens, 0), rejected: v.error.error.message, errorBody: v.error };
        const cache = {
          inputTokens: v.inputTokens,
          cacheReadTokens: v.cacheReadTokens,
          cacheWriteTokens: v.cacheWriteTokens,
          cacheWrite5mTokens: v.cacheWrite5mTokens,
          cacheWrite1hTokens: v.cacheWrite1hTokens,
        };
        const usage = {
          ...usageOf(v.promptTokens, v.cacheReadTokens, v.cacheWriteTokens),
          cacheWrite1hTokens: v.cacheWrite1hTokens,
        };
        return { ok: true, usage, cache, ...(v.violation ? { violation: v.violation.error.message } : {}) };
      },
    }),
    write(res, reply, o) {
      const cache = o.judgement?.cache;
      const text = `Mock reasoning for request ${o.requestIndex}.`;
      writeAnthropicReply(res, reply, {
        model: o.model,
        stream: o.body.stream === true,
        requestIndex: o.requestIndex,
        usage: {
          inputTokens: cache?.inputTokens ?? o.fallbackPromptTokens,
          cacheReadTokens: cache?.cacheReadTokens ?? 0,
          cacheWrite5mTokens: cache?.cacheWrite5mTokens ?? 0,
          cacheWrite1hTokens: cache?.cacheWrite1hTokens ?? 0,
        },
        ...(thinkingEnabled(o.body)
          ? { thinking: { text, signature: rules ? rules.issueThinking(text) : "mock-signature" } }
          : {}),
      });
    },
  };
}

function responsesEndpoint(strict: WireStrictness | undefined): WireEndpoint {
  const rules = strict && createResponsesRules(strict);
  return {
    wire: "openai-responses",
    view: (body) => ({ messages: responsesChatView(body), toolNames: responsesToolNames(body) }),
    ...(rules && { judge: openAIJudge(rules) }),
    write(res, reply, o) {
      writeResponsesReply(res, reply, {
        model: o.model,
        stream: o.body.stream === true,
        requestIndex: o.requestIndex,
        promptTokens: o.judgement?.usage.promptTokens ?? o.fallbackPromptTokens,
        cachedTokens: o.judgement?.usage.cachedTokens ?? 0,
      });
    },
  };
}

/** The endpoint of `wire`, strict (with its provider's rules and cache) when `strict` is given. */
export function createWireEndpoint(wire: WireName, strict?: WireStrictness): WireEndpoint {
  if (wire === "anthropic-messages") return anthropicEndpoint(strict);
  if (wire === "openai-responses") return responsesEndpoint(strict);
  return chatEndpoint(strict);
}

/** The judgement of an OpenAI-style endpoint (chat completions, Responses): its error body, its usage. */
function openAIJudge(rules: OpenAIStyleRules): (body: Record<string, unknown>) => WireJudgement {
  return (body) => {
    const v = rules.check(body);
    if (!v.ok)
      return {
        ok: false,
        usage: usageOf(v.promptTokens, 0),
        rejected: v.error.code ?? v.error.message,
        errorBody: { error: v.error },
      };
    const violation = v.violation && (v.violation.code ?? v.violation.message);
    return { ok: true, usage: usageOf(v.promptTokens, v.cachedTokens), ...(violation ? { violation } : {}) };
  };
}

/** What {@link openAIJudge} needs of a rule set: both OpenAI rule sets answer with the same verdict shape. */
type OpenAIStyleRules = ReturnType<typeof createOpenAIRules> | ReturnType<typeof createResponsesRules>;
