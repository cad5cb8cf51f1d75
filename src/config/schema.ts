import { compileRedactPattern } from "../safe-regex.js";
import { z } from "zod";
import { TOOL_POLICIES } from "./tool-names.js";

/** Default JSON keys treated as schema material and stripped into the store. */
export const DEFAULT_SCHEMA_KEYS = ["schema", "$schema", "definitions", "$defs", "properties", "required"];

const tokenizerSchema = z
  .strictObject({
    encoding: z
      .enum(["auto", "o200k_base", "cl100k_base"])
      .default("auto")
      .describe("BPE encoding; `auto` picks by the model id the host passes (o200k_base when unknown)."),
  })
  .default({ encoding: "auto" });

const budgetSchema = z
  .strictObject({
    safetyMarginRatio: z
      .number()
      .min(0)
      .max(0.5)
      .default(0.02)
      .describe("Share of the host's token budget kept free as a safety margin."),
    safetyMarginTokens: z.int().min(0).max(100_000).default(64).describe("Tokens kept free in addition to the ratio."),
    fallbackBudgetTokens: z
      .int()
      .min(256)
      .max(10_000_000)
      .default(128_000)
      .describe("Budget used when the host passes none (undefined, NaN)."),
    minBudgetTokens: z
      .int()
      .min(1)
      .max(1_000_000)
      .default(512)
      .describe(
        "Budgets below this (the host passes 1 in one retry path) are raised to it; only the newest user turn is kept then.",
      ),
    refillRatio: z
      .number()
      .min(0.5)
      .max(1)
      .default(0.9)
      .describe(
        "Most of the message budget a re-plan fills; below it, the room left follows the session's observed growth per model call (see `headroomCalls`).",
      ),
    lowWaterRatio: z
      .number()
      .min(0.3)
      .max(0.95)
      .default(0.65)
      .describe(
        "Fewest tokens a window may hold, as a share of the host's budget, while older history could fill it, at host budgets of 100,000 tokens and more (a 128k window); smaller windows are sized by `cachePriceRatio`: a re-plan never fills less, and a kept window below it (planned under a smaller budget) is re-planned upward. When the host cuts the transcript's front into the window (2026.9.6), the share of what it passed that the re-plan keeps.",
      ),
    headroomCalls: z
      .int()
      .min(1)
      .max(200)
      .default(16)
      .describe(
        "Deprecated and ignored: `cachePriceRatio` sizes a re-plan's room now. Still accepted so configs that set it load.",
      ),
    cachePriceRatio: z
      .number()
      .min(1)
      .max(100)
      .default(10)
      .describe(
        "The provider's price of an uncached prompt token (or a cache write) over a cached read: 10 for OpenAI and Gemini, about 12.5 for Anthropic's 5-minute cache writes. A re-plan keeps the window as deep as keeps its one uncached send, spread over the calls until the next re-plan, no dearer than the cached reads of those calls (docs/design.md); the newest 3 turns are kept while they leave room for the next one (else fewer, down to none when the live question travels outside the history).",
      ),
  })
  .default({
    safetyMarginRatio: 0.02,
    safetyMarginTokens: 64,
    fallbackBudgetTokens: 128_000,
    minBudgetTokens: 512,
    refillRatio: 0.9,
    lowWaterRatio: 0.65,
    headroomCalls: 16,
    cachePriceRatio: 10,
  });

const clearingSchema = z
  .strictObject({
    enabled: z
      .boolean()
      .default(true)
      .describe(
        "Clear old tool results from the prompt when the window is re-planned (the prompt cache is lost then anyway); placeholders keep the artifact handle.",
      ),
    keepToolResults: z
      .int()
      .min(0)
      .max(1_000)
      .default(16)
      .describe("The newest tool results kept in full; older ones are cleared at the next re-plan."),
    clearAtLeastTokens: z
      .int()
      .min(0)
      .max(1_000_000)
      .default(4_000)
      .describe(
        "A re-plan frees at least this many tokens of room at once (whether or not results are cleared), so many turns append before the next one; never below `budget.lowWaterRatio`.",
      ),
    excludeTools: z
      .array(z.string().min(1))
      .default([])
      .describe(
        "Tools (names or globs `*`, `?`) whose results are never cleared; tools with the `full` offload policy never are either.",
      ),
    clearThinking: z
      .boolean()
      .default(true)
      .describe("Drop thinking blocks from assistant messages in the cleared part of the window."),
  })
  .default({ enabled: true, keepToolResults: 16, clearAtLeastTokens: 4_000, excludeTools: [], clearThinking: true });

const offloadSchema = z
  .strictObject({
    enabled: z.boolean().default(true).describe("Offload oversized tool outputs into the artifact store."),
    maxChars: z
      .int()
      .min(200)
      .max(10_000_000)
      .default(8_000)
      .describe("A tool output over this many chars is offloaded."),
    maxLines: z.int().min(10).max(1_000_000).default(200).describe("A tool output over this many lines is offloaded."),
    structuredMaxChars: z
      .int()
      .min(200)
      .max(10_000_000)
      .default(2_000)
      .describe("A structured output (JSON, HTML, XML, PDF text) over this many chars is offloaded."),
    previewChars: z
      .int()
      .min(100)
      .max(4_000)
      .default(600)
      .describe("Chars of head-and-tail preview kept in the prompt."),
    capture: z
      .boolean()
      .default(true)
      .describe("Capture raw tool output before the host truncates it (the `after_tool_call` hook)."),
    fullExecOutput: z
      .boolean()
      .default(false)
      .describe(
        "Keep the whole output of `exec` beyond the host's 200,000 chars: an eligible command (gateway host, no sandbox, no PTY, no approvals) is wrapped to tee its output into a private file.",
      ),
    maxCaptureBytes: z
      .int()
      .min(1_048_576)
      .max(1_073_741_824)
      .default(67_108_864)
      .describe("Most bytes of one `exec` output `fullExecOutput` keeps (the first ones; the stub says when it bit)."),
    tools: z
      .record(z.string().min(1), z.enum(TOOL_POLICIES))
      .default({})
      .describe("Per-tool policy by name or glob (`*`, `?`): full, strip, offload or ephemeral."),
  })
  .default({
    enabled: true,
    maxChars: 8_000,
    maxLines: 200,
    structuredMaxChars: 2_000,
    previewChars: 600,
    capture: true,
    fullExecOutput: false,
    maxCaptureBytes: 67_108_864,
    tools: {},
  });

const schemaStripSchema = z
  .strictObject({
    enabled: z.boolean().default(true).describe("Strip schema material out of JSON tool results into the store."),
    keys: z.array(z.string().min(1)).default(DEFAULT_SCHEMA_KEYS).describe("JSON keys treated as schema material."),
    maxFieldBytes: z
      .int()
      .min(256)
      .max(10_000_000)
      .default(10_240)
      .describe("Any JSON field larger than this moves into the store."),
  })
  .default({ enabled: true, keys: DEFAULT_SCHEMA_KEYS, maxFieldBytes: 10_240 });

const retrievalSchema = z
  .strictObject({
    defaultMaxChars: z.int().min(100).max(20_000).default(8_000).describe("Default cap of a `ledger_fetch` answer."),
    grepTimeoutMs: z.int().min(10).max(10_000).default(500).describe("Time limit of one grep over an artifact."),
    readableAgents: z
      .array(z.string().min(1))
      .default([])
      .describe("Other agents whose artifacts this agent may fetch by handle (`*` for all)."),
    chatFetchAnySession: z
      .boolean()
      .default(false)
      .describe(
        "Let `/ledger fetch` in a chat read outputs of the agent's other sessions (by default only the chat's own session).",
      ),
  })
  .default({ defaultMaxChars: 8_000, grepTimeoutMs: 500, readableAgents: [], chatFetchAnySession: false });

const summarySchema = z
  .strictObject({
    enabled: z.boolean().default(true).describe("Keep an incremental summary of what leaves the assembled window."),
    maxInjectedChars: z.int().min(200).max(40_000).default(4_000).describe("Upper bound of the injected summary."),
    injectAtShare: z
      .number()
      .min(0)
      .max(1)
      .default(0.8)
      .describe("Inject the summary when history was trimmed or the view uses more than this share of the budget."),
    userMessagesShare: z
      .number()
      .min(0)
      .max(0.5)
      .default(0.15)
      .describe(
        "Share of the prompt budget the summary may fill, beside maxInjectedChars, quoting the user's messages the window does not show; at least 6,000 chars; past it they are condensed to what no later message repeats, then shorter, and the prompt says so.",
      ),
  })
  .default({ enabled: true, maxInjectedChars: 4_000, injectAtShare: 0.8, userMessagesShare: 0.15 });

const maintenanceSchema = z
  .strictObject({
    enabled: z.boolean().default(true).describe("Pay down maintenance debt through the host's transcript rewrites."),
    maxEntriesPerCall: z
      .int()
      .min(1)
      .max(10_000)
      .default(64)
      .describe("Transcript entries rewritten per maintain() call at most."),
    minEntryChars: z
      .int()
      .min(200)
      .max(10_000_000)
      .default(4_000)
      .describe("Tool results smaller than this are left in the transcript."),
  })
  .default({ enabled: true, maxEntriesPerCall: 64, minEntryChars: 4_000 });

const limitsSchema = z
  .strictObject({
    maxStoreBytes: z
      .int()
      .min(1_048_576)
      .default(2 * 1024 ** 3)
      .describe("Cap of the artifact store (stored bytes); gc runs first, then stashing is refused."),
    maxSessionBytes: z
      .int()
      .min(65_536)
      .default(256 * 1024 ** 2)
      .describe("Cap of artifact bytes stashed per session."),
  })
  .default({ maxStoreBytes: 2 * 1024 ** 3, maxSessionBytes: 256 * 1024 ** 2 });

// Bucket names as AWS, R2, B2 and Ceph all accept them: 3-63 lowercase letters, digits, dots and hyphens.
const BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;
const KEY_PREFIX = /^[a-z0-9._-]+(\/[a-z0-9._-]+)*$/;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

const s3Schema = z
  .strictObject({
    endpoint: z
      .url({ protocol: /^https?$/ })
      // A key in the URL would be printed wherever the endpoint is (messages, status); keys come from the environment.
      .refine((u) => !/^[a-z]+:\/\/[^/]*@/i.test(u), {
        message:
          "Expected an endpoint URL without credentials (`user:key@`); put the keys in the environment variables",
      })
      .optional()
      .describe("S3 endpoint URL for a server other than AWS (Ceph RGW, Cloudflare R2, Backblaze B2, MinIO)."),
    bucket: z.string().regex(BUCKET, "Expected a bucket name: 3-63 of a-z, 0-9, `.` and `-`").describe("Bucket name."),
    prefix: z
      .string()
      .regex(KEY_PREFIX, "Expected `/`-separated segments of a-z, 0-9, `.`, `_` and `-`, no leading or trailing `/`")
      .default("context-ledger")
      .describe("Key prefix inside the bucket; each agent's objects go under `<prefix>/agents/<agent>/`."),
    region: z.string().min(1).default("us-east-1").describe("Region (R2: `auto`)."),
    pathStyle: z
      .boolean()
      .default(false)
      .describe("Path-style URLs (`endpoint/bucket/key`): Ceph RGW and MinIO need it."),
    accessKeyIdEnv: z
      .string()
      .regex(ENV_NAME)
      .default("AWS_ACCESS_KEY_ID")
      .describe("Name of the environment variable holding the access key id (the key itself never goes in config)."),
    // Not named `secret...`: the host blanks the value of any config key whose name looks secret in `config get`, so a
    // settings backup would lose the variable's name.
    signingKeyEnv: z
      .string()
      .regex(ENV_NAME)
      .optional()
      .describe(
        'Name of the environment variable holding the secret access key (the signing key). Default: "AWS_SECRET_ACCESS_KEY".',
      ),
    secretAccessKeyEnv: z
      .string()
      .regex(ENV_NAME)
      .optional()
      .describe("Deprecated name of `signingKeyEnv` (the host blanks it in `config get`); used when that is not set."),
    timeoutMs: z.int().min(1_000).max(600_000).default(30_000).describe("Deadline of one background S3 call."),
    gcGraceMs: z
      .int()
      .min(0)
      .default(86_400_000)
      .describe("`artifact gc` never removes from the bucket an object written less than this long ago (ms)."),
    gatewayStaleMs: z
      .int()
      .min(60_000)
      .default(7 * 86_400_000)
      .describe(
        "A gateway sharing the bucket that has not published its references (at its gc) for this long blocks every removal until it does or is retired (ms).",
      ),
  })
  .transform(({ secretAccessKeyEnv, signingKeyEnv, ...rest }) => ({
    ...rest,
    signingKeyEnv: signingKeyEnv ?? secretAccessKeyEnv ?? "AWS_SECRET_ACCESS_KEY",
  }));

const storeSchema = z
  .strictObject({
    backend: z
      .enum(["file", "s3"])
      .default("file")
      .describe("Where artifacts live: `file` (the state folder) or `s3` (a bucket, with a local spool and cache)."),
    s3: s3Schema.optional().describe("The bucket, when `backend` is `s3`."),
    spoolBytes: z
      .int()
      .min(1_048_576)
      .default(1024 ** 3)
      .describe("Cap of the local spool of outputs waiting to upload; beyond it a stash is refused (store_full)."),
    cacheBytes: z
      .int()
      .min(0)
      .default(1024 ** 3)
      .describe("Local copies of uploaded or fetched objects kept beyond the spool."),
  })
  .default({ backend: "file", spoolBytes: 1024 ** 3, cacheBytes: 1024 ** 3 });

const redactionSchema = z
  .strictObject({
    enabled: z
      .boolean()
      .default(true)
      .describe("Redact secrets in previews, summaries and logs (stored originals stay intact)."),
    patterns: z.array(z.string().min(1)).default([]).describe("Extra regular expressions whose matches are redacted."),
  })
  .default({ enabled: true, patterns: [] });

/** Sections every agent can override. */
const sectionShape = {
  tokenizer: tokenizerSchema,
  budget: budgetSchema,
  clearing: clearingSchema,
  offload: offloadSchema,
  schemaStrip: schemaStripSchema,
  retrieval: retrievalSchema,
  summary: summarySchema,
  maintenance: maintenanceSchema,
  limits: limitsSchema,
  redaction: redactionSchema,
};

/** Per-agent override: `enabled` plus any section, each partially. */
export const agentOverrideSchema = z.strictObject({
  enabled: z.boolean().optional().describe("false gives this agent an honest pass-through."),
  tokenizer: tokenizerSchema.unwrap().partial().optional(),
  budget: budgetSchema.unwrap().partial().optional(),
  clearing: clearingSchema.unwrap().partial().optional(),
  offload: offloadSchema.unwrap().partial().optional(),
  schemaStrip: schemaStripSchema.unwrap().partial().optional(),
  retrieval: retrievalSchema.unwrap().partial().optional(),
  summary: summarySchema.unwrap().partial().optional(),
  maintenance: maintenanceSchema.unwrap().partial().optional(),
  limits: limitsSchema.unwrap().partial().optional(),
  redaction: redactionSchema.unwrap().partial().optional(),
});

/** The plugin config (`plugins.entries["context-ledger"].config`). */
export const configSchema = z
  .strictObject({
    enabled: z.boolean().default(true).describe("Master switch; false makes every agent a pass-through."),
    stateDir: z
      .string()
      .min(1)
      .optional()
      .describe(
        "Where the ledger keeps its state; default `$OPENCLAW_STATE_DIR/context-ledger` (`~/.openclaw/context-ledger`).",
      ),
    logLevel: z.enum(["debug", "info", "warn", "error"]).default("info").describe("Lowest level the plugin logs."),
    ...sectionShape,
    store: storeSchema,
    agents: z
      .record(z.string().min(1), agentOverrideSchema)
      .default({})
      .describe("Per-agent toggle and overrides, by agent id."),
  })
  .superRefine((cfg, ctx) => {
    if (cfg.store.backend === "s3" && !cfg.store.s3) {
      ctx.addIssue({
        code: "custom",
        path: ["store", "s3"],
        message: 'Expected `store.s3` with at least `bucket` when `store.backend` is "s3", got none',
      });
    }
    if (cfg.offload.structuredMaxChars > cfg.offload.maxChars) {
      ctx.addIssue({
        code: "custom",
        path: ["offload", "structuredMaxChars"],
        message: `Expected offload.structuredMaxChars to be at most offload.maxChars (${cfg.offload.maxChars}), got ${cfg.offload.structuredMaxChars}`,
      });
    }
    if (cfg.retrieval.defaultMaxChars < 100) {
      ctx.addIssue({ code: "custom", path: ["retrieval", "defaultMaxChars"], message: "Expected at least 100" });
    }
    // The patterns run over every output shown: each goes through the vetted compiler the readers use.
    for (const pattern of cfg.redaction.patterns) {
      try {
        compileRedactPattern(pattern);
      } catch (err) {
        ctx.addIssue({
          code: "custom",
          path: ["redaction", "patterns"],
          message: `Expected a simple, valid regular expression, got \`${pattern}\` (${(err as Error).message})`,
        });
      }
    }
  });

/** The parsed, defaulted plugin config. */
export type LedgerConfig = z.output<typeof configSchema>;
/** The config as an operator writes it. */
export type LedgerConfigInput = z.input<typeof configSchema>;
/** Effective settings for one agent: the global config with the agent's overrides applied. */
export type AgentSettings = Omit<LedgerConfig, "agents"> & { agentId: string };
