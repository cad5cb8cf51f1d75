/**
 * `npm run demo`: a real OpenClaw gateway, offline, in a temporary state dir,
 * with context-ledger installed from this working tree and a scripted model on
 * 127.0.0.1; the same tool-heavy session runs again with the `legacy` engine.
 * Prints a per-turn table and writes a self-contained HTML report.
 *
 *   --turns N            turns per engine (default 20)
 *   --host VERSION       2026.9.6 (default, the dev dependency) or 2026.4.24
 *   --window TOKENS      the model's context window (default 32000)
 *   --output CHARS       chars the exec tool prints each turn (default 40000)
 *   --base-url URL --model ID   a real OpenAI-compatible endpoint instead of the mock
 *   --api-key KEY        for --base-url (default $OPENAI_API_KEY)
 */
import { writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { startGateway } from "../test/host/gateway.js";
import { createHostEnv, type EngineChoice } from "../test/host/host-env.js";
import { NODE_BINARY, type HostVersion } from "../test/host/host-install.js";
import { countHostLogSignals, readHostLog, readPluginEvents } from "../test/host/logs.js";
import { startMockModel } from "../test/host/mock-model.js";
import { execTurnScript } from "../test/host/mock-scripts.js";
import { countMessageTokens, loadTokenCounter } from "../test/host/token-count.js";
import { renderDemoReport, type DemoRow } from "./demo-report.js";
import { stagePlugin } from "./stage-plugin.js";

function arg(name: string, fallback?: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : fallback;
}

const turns = Number(arg("turns", "20"));
const hostVersion = (arg("host", "2026.9.6") ?? "2026.9.6") as HostVersion;
const contextWindow = Number(arg("window", "32000"));
const outputChars = Number(arg("output", "40000"));
const baseUrl = arg("base-url");
const modelId = arg("model", "mock-model") ?? "mock-model";

async function runEngine(engine: EngineChoice, label: string): Promise<DemoRow[]> {
  const count = await loadTokenCounter();
  const mock = baseUrl ? undefined : await startMockModel({ script: execTurnScript({ outputChars, answerChars: 3_000, nodePath: NODE_BINARY }) });
  const env = await createHostEnv({
    version: hostVersion,
    baseUrl: baseUrl ?? (mock as { baseUrl: string }).baseUrl,
    modelId,
    contextWindow,
    engine,
    ledgerDir: staged.dir,
    ...(baseUrl ? { extraConfig: { models: { providers: { mock: { apiKey: arg("api-key", process.env.OPENAI_API_KEY ?? "none") } } } } } : {}),
  });
  const rows: DemoRow[] = [];
  const gateway = await startGateway(env);
  try {
    let resetsSoFar = 0;
    for (let turn = 1; turn <= turns; turn++) {
      process.stderr.write(`\r[demo] ${label}: turn ${turn}/${turns} ...`);
      const before = mock?.requests.length ?? 0;
      const sent = await gateway.chatSend("agent:main:main", `Turn ${turn}: run the report script and summarise what it printed.`);
      const requests = mock ? mock.requests.slice(before) : [];
      const promptTokens = requests.length ? Math.max(...requests.map((r) => countMessageTokens(r.messages, count))) : 0;
      const events = await readPluginEvents(env).catch(() => []);
      const debt = [...events].reverse().find((e) => e.op === "assemble" && e.debt) as { debt?: { rawHistoryTokens: number; debtTokens: number } } | undefined;
      const signals = countHostLogSignals(await readHostLog(env));
      const resets = signals.resetReply + signals.sessionRestarted;
      rows.push({
        engine: label,
        turn,
        promptTokens,
        requests: requests.length,
        rawTokens: debt?.debt?.rawHistoryTokens ?? null,
        debtTokens: debt?.debt?.debtTokens ?? null,
        artifacts: events.filter((e) => e.op === "capture").length,
        resets: resets - resetsSoFar,
        ms: Math.round(sent.ms),
      });
      resetsSoFar = resets;
    }
  } finally {
    await gateway.stop();
    await mock?.close();
    await env.cleanup();
  }
  process.stderr.write("\n");
  return rows;
}

function table(rows: DemoRow[]): string {
  const head = "turn | engine         | prompt tokens | requests | raw transcript | debt    | artifacts | resets | ms";
  const lines = rows.map((r) =>
    [
      String(r.turn).padStart(4),
      r.engine.padEnd(14),
      String(r.promptTokens).padStart(13),
      String(r.requests).padStart(8),
      String(r.rawTokens ?? "-").padStart(14),
      String(r.debtTokens ?? "-").padStart(7),
      String(r.artifacts).padStart(9),
      String(r.resets).padStart(6),
      String(r.ms),
    ].join(" | "),
  );
  return [head, "-".repeat(head.length), ...lines].join("\n");
}

const started = Date.now();
const staged = await stagePlugin();
console.log(`context-ledger demo: OpenClaw ${hostVersion}, window ${contextWindow} tokens, ${turns} turns, exec printing ${outputChars} chars each turn${baseUrl ? `, model ${modelId} at ${baseUrl}` : ", offline mock model"}`);
const ledger = await runEngine("context-ledger", "context-ledger");
const legacy = await runEngine("legacy", "legacy");
await staged.cleanup();
console.log(table([...ledger, ...legacy].sort((a, b) => a.turn - b.turn || a.engine.localeCompare(b.engine))));
const total = (rows: DemoRow[]) => rows.reduce((s, r) => s + r.promptTokens, 0);
console.log(`\nprompt tokens sent in total: context-ledger ${total(ledger)}, legacy ${total(legacy)}; resets: context-ledger ${ledger.reduce((s, r) => s + r.resets, 0)}, legacy ${legacy.reduce((s, r) => s + r.resets, 0)}`);
const report = path.join(os.tmpdir(), `context-ledger-demo-${new Date().toISOString().replace(/[:.]/g, "-")}.html`);
writeFileSync(report, renderDemoReport({ hostVersion, contextWindow, turns, outputChars, ledger, legacy, seconds: Math.round((Date.now() - started) / 1000) }));
console.log(`report: ${report}`);
