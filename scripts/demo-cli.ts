/**
 * Command line of `npm run demo`: the options, their defaults, `--help`, and clear
 * errors for unknown flags or bad values. Pure (no host, no I/O) so it is unit-tested.
 */
import { parseArgs } from "node:util";

/** Host lines the demo can run (kept in sync with test/host/host-install.ts HOST_LINES). */
export const DEMO_HOSTS = ["2026.4.24", "2026.5.28", "2026.6.11", "2026.7.35", "2026.8.2", "2026.9.6"] as const;
/** One of {@link DEMO_HOSTS}. */
export type DemoHost = (typeof DEMO_HOSTS)[number];

/** Price per million tokens, in US dollars. */
export interface Prices {
  input: number;
  cachedInput: number;
  output: number;
}

/** Everything the demo run needs, parsed and validated. */
export interface DemoOptions {
  turns: number;
  host: DemoHost;
  /** Context window advertised for the model (tokens). */
  window: number;
  /** Characters the exec tool prints each turn. */
  output: number;
  /** Characters of the model's answer each turn. */
  answer: number;
  /** Output allowance configured for the model (`maxTokens`). */
  maxTokens: number;
  /** Report file (HTML); a JSON twin is written beside it. */
  out: string;
  /** Run the two engines one after the other instead of at the same time. */
  serial: boolean;
  /** Skip `tsc` (dist/ is already built). */
  build: boolean;
  /** Re-render the report from a saved JSON instead of running (no host). */
  rerender?: string;
  /** Keep the temporary host state (for debugging). */
  keepTemp: boolean;
  prices: Prices;
  baseUrl?: string;
  model: string;
  apiKey?: string;
}

/** Defaults: the reset-loop workload of HOST-FACTS on the host line that resets. */
export const DEMO_DEFAULTS = {
  turns: 6,
  host: "2026.4.24" as DemoHost,
  window: 32_000,
  output: 150_000,
  answer: 12_000,
  maxTokens: 4_096,
  out: "demo-report/report.html",
  // Stated list prices (US$ per million tokens) of a mid-range hosted model; override with --price.
  prices: { input: 2, cachedInput: 0.5, output: 8 } satisfies Prices,
  model: "mock-model",
};

/** The text `--help` prints. */
export const DEMO_HELP = `npm run demo [-- OPTIONS]

Runs a real OpenClaw gateway offline (temporary state, nothing touches ~/.openclaw) against a
scripted OpenAI-compatible model on 127.0.0.1, twice at the same time: once with context-ledger,
once with the host's built-in "legacy" engine. Each turn the model calls exec, which prints a large
report, then answers at length: the reset-loop workload. Prints each turn as it completes, a table
a verdict (answered turns, resets, cost per answered turn, cached share of each engine, side by
side) and writes an HTML report that leads with that verdict (charts + table) and its JSON data.

Options:
  --turns N          turns per engine (default ${DEMO_DEFAULTS.turns}; on 2026.4.24 legacy's session was reset
                     within 6 turns in our runs, at turns 3 and 6, at turn 4 or at turn 5: the verdict says
                     what yours showed)
  --host VERSION     OpenClaw release: ${DEMO_HOSTS.join(", ")}
                     (default ${DEMO_DEFAULTS.host}, the release whose overflow precheck resets sessions;
                     installed on demand into .cache/, ~1 min and ~650 MB the first time)
  --window TOKENS    the model's context window (default ${DEMO_DEFAULTS.window.toLocaleString("en-US")})
  --output CHARS     characters the exec tool prints each turn (default ${DEMO_DEFAULTS.output.toLocaleString("en-US")})
  --answer CHARS     characters of the model's answer each turn (default ${DEMO_DEFAULTS.answer.toLocaleString("en-US")})
  --max-tokens N     output allowance configured for the model (default ${DEMO_DEFAULTS.maxTokens.toLocaleString("en-US")});
                     requests the host sends with less are reported as clamped
  --out FILE         report path (default ${DEMO_DEFAULTS.out}, next to the project; git-ignored);
                     FILE.json beside it holds the data
  --price IN,CACHED,OUT
                     US$ per million tokens for uncached input, cached input and output
                     (default ${DEMO_DEFAULTS.prices.input},${DEMO_DEFAULTS.prices.cachedInput},${DEMO_DEFAULTS.prices.output}); tokens are counted as a strict OpenAI
                     endpoint counts them (o200k_base, tool schemas included) and cached as its
                     prefix cache serves them (shared prefix from 1,024 tokens, 128-token steps)
  --serial           run the two engines one after the other (default: at the same time)
  --no-build         do not run tsc first (dist/ is current)
  --keep-temp        keep the temporary host state and print where it is
  --rerender FILE    rewrite the report from a saved FILE.json (no host, nothing runs)
  --base-url URL     a real OpenAI-compatible endpoint instead of the mock (needs --model)
  --model ID         model id at --base-url (default ${DEMO_DEFAULTS.model})
  --api-key KEY      key for --base-url (default $OPENAI_API_KEY)
  -h, --help         print this help and exit

Ctrl-C stops every process the demo started and removes its temporary folder.`;

/** What the command line asks for: help, a run, or an error to print (exit 2). */
export type DemoCommand = { kind: "help" } | { kind: "run"; options: DemoOptions } | { kind: "error"; message: string };

function positiveInt(flag: string, raw: string | undefined, fallback: number, [min, max] = [1, 10_000_000]): number {
  if (raw === undefined) return fallback;
  const value = Number(raw.replace(/[_,]/g, ""));
  if (!/^\d[\d_,]*$/.test(raw) || !Number.isSafeInteger(value) || value < min || value > max) {
    throw new Error(
      `--${flag}: expected a whole number from ${min.toLocaleString("en-US")} to ${max.toLocaleString("en-US")}, got "${raw}"`,
    );
  }
  return value;
}

function parsePrices(raw: string | undefined): Prices {
  if (raw === undefined) return { ...DEMO_DEFAULTS.prices };
  const parts = raw.split(",").map((p) => p.trim());
  const nums = parts.map(Number);
  if (parts.length !== 3 || nums.some((n, i) => parts[i] === "" || !Number.isFinite(n) || n < 0)) {
    throw new Error(
      `--price: expected three non-negative numbers IN,CACHED,OUT (US$ per million tokens), got "${raw}"`,
    );
  }
  return { input: nums[0] ?? 0, cachedInput: nums[1] ?? 0, output: nums[2] ?? 0 };
}

/** Parses the demo's arguments (without `node` and the script). Never throws: bad input becomes `{ kind: "error" }`. */
export function parseDemoArgs(argv: readonly string[]): DemoCommand {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      allowNegative: true,
      options: {
        turns: { type: "string" },
        host: { type: "string" },
        window: { type: "string" },
        output: { type: "string" },
        answer: { type: "string" },
        "max-tokens": { type: "string" },
        out: { type: "string" },
        price: { type: "string" },
        serial: { type: "boolean" },
        build: { type: "boolean" },
        "keep-temp": { type: "boolean" },
        rerender: { type: "string" },
        "base-url": { type: "string" },
        model: { type: "string" },
        "api-key": { type: "string" },
        help: { type: "boolean", short: "h" },
      },
    }));
  } catch (error) {
    const text = error instanceof Error ? error.message : String(error);
    return {
      kind: "error",
      message: `${text.replace(/\. To specify a positional argument.*$/s, "")} (see npm run demo -- --help)`,
    };
  }
  if (values.help) return { kind: "help" };
  try {
    const host = (values.host as string | undefined) ?? DEMO_DEFAULTS.host;
    if (!(DEMO_HOSTS as readonly string[]).includes(host))
      throw new Error(`--host: expected one of ${DEMO_HOSTS.join(", ")}, got "${host}"`);
    const baseUrl = values["base-url"] as string | undefined;
    if (baseUrl !== undefined && !/^https?:\/\/\S+$/.test(baseUrl))
      throw new Error(`--base-url: expected an http(s) URL, got "${baseUrl}"`);
    if (baseUrl !== undefined && values.model === undefined)
      throw new Error("--base-url: also pass --model ID (the model id at that endpoint)");
    const out = (values.out as string | undefined) ?? DEMO_DEFAULTS.out;
    if (out.trim() === "") throw new Error('--out: expected a file path, got ""');
    const options: DemoOptions = {
      turns: positiveInt("turns", values.turns as string | undefined, DEMO_DEFAULTS.turns, [1, 100]),
      host: host as DemoHost,
      window: positiveInt("window", values.window as string | undefined, DEMO_DEFAULTS.window, [1_000, 2_000_000]),
      output: positiveInt("output", values.output as string | undefined, DEMO_DEFAULTS.output, [0, 5_000_000]),
      answer: positiveInt("answer", values.answer as string | undefined, DEMO_DEFAULTS.answer, [1, 1_000_000]),
      maxTokens: positiveInt(
        "max-tokens",
        values["max-tokens"] as string | undefined,
        DEMO_DEFAULTS.maxTokens,
        [1, 1_000_000],
      ),
      out,
      serial: values.serial === true,
      build: values.build !== false,
      keepTemp: values["keep-temp"] === true,
      prices: parsePrices(values.price as string | undefined),
      model: (values.model as string | undefined) ?? DEMO_DEFAULTS.model,
      ...(baseUrl !== undefined ? { baseUrl } : {}),
      ...(values.rerender !== undefined ? { rerender: values.rerender as string } : {}),
      ...(values["api-key"] !== undefined ? { apiKey: values["api-key"] as string } : {}),
    };
    return { kind: "run", options };
  } catch (error) {
    return {
      kind: "error",
      message: `${error instanceof Error ? error.message : String(error)} (see npm run demo -- --help)`,
    };
  }
}
