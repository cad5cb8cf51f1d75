/**
 * `npm run demo` without a host: its command line (help, unknown flags, bad values),
 * the cost accounting, and what the report shows given rows with a reset, a
 * compaction and clamped requests (annotations, round ticks, thousands separators).
 */
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import zlib from "node:zlib";
import { describe, expect, it } from "vitest";
import { DEMO_DEFAULTS, DEMO_HELP, DEMO_HOSTS, parseDemoArgs } from "../../scripts/demo-cli.js";
import { niceTicks } from "../../scripts/demo-chart.js";
import { costTotals, memoCounter, requestCost } from "../../scripts/demo-cost.js";
import {
  engineVerdicts,
  formatCost,
  formatTable,
  formatVerdictTable,
  headline,
  renderDemoReport,
  verdictSentence,
  type DemoRow,
  type EngineSummary,
} from "../../scripts/demo-report.js";
import { measureTranscript } from "../../scripts/demo-transcript.js";
import { HOST_LINES } from "../host/host-install.js";
import { createOpenAIRules } from "../host/openai-rules.js";

describe("demo command line", () => {
  it("--help and -h ask for help, whatever else is passed", () => {
    expect(parseDemoArgs(["--help"])).toEqual({ kind: "help" });
    expect(parseDemoArgs(["--turns", "3", "-h"])).toEqual({ kind: "help" });
    for (const flag of [
      "--turns",
      "--host",
      "--window",
      "--output",
      "--answer",
      "--max-tokens",
      "--out",
      "--price",
      "--serial",
      "--no-build",
      "--keep-temp",
      "--base-url",
      "--model",
      "--api-key",
    ]) {
      expect(DEMO_HELP).toContain(flag);
    }
  });

  it("defaults to the reset-loop workload on 2026.4.24", () => {
    const parsed = parseDemoArgs([]);
    expect(parsed.kind).toBe("run");
    if (parsed.kind !== "run") return;
    expect(parsed.options).toMatchObject({
      turns: 6,
      host: "2026.4.24",
      window: 32_000,
      output: 150_000,
      answer: 12_000,
      maxTokens: 4_096,
      serial: false,
      build: true,
      out: DEMO_DEFAULTS.out,
    });
  });

  it("knows every host line the harness knows", () => {
    expect([...DEMO_HOSTS]).toEqual([...HOST_LINES]);
  });

  it("parses every option", () => {
    const parsed = parseDemoArgs([
      "--turns",
      "3",
      "--host",
      "2026.9.6",
      "--window",
      "64,000",
      "--output",
      "0",
      "--out",
      "x/r.html",
      "--price",
      "3,0.3,15",
      "--serial",
      "--no-build",
      "--keep-temp",
    ]);
    expect(parsed).toMatchObject({
      kind: "run",
      options: {
        turns: 3,
        host: "2026.9.6",
        window: 64_000,
        output: 0,
        out: "x/r.html",
        prices: { input: 3, cachedInput: 0.3, output: 15 },
        serial: true,
        build: false,
        keepTemp: true,
      },
    });
  });

  it.each([
    [["--bogus"], /Unknown option '--bogus'.*--help/],
    [["extra"], /Unexpected argument 'extra'/],
    [["--turns", "0"], /--turns: expected a whole number from 1 to 100, got "0"/],
    [["--turns", "2.5"], /--turns: expected a whole number .* got "2.5"/],
    [["--window", "big"], /--window: expected a whole number .* got "big"/],
    [["--host", "2025.1.1"], /--host: expected one of 2026\.4\.24, .* got "2025\.1\.1"/],
    [["--price", "1,2"], /--price: expected three non-negative numbers IN,CACHED,OUT .* got "1,2"/],
    [["--base-url", "http://127.0.0.1:9/v1"], /--base-url: also pass --model/],
    [["--base-url", "ftp://x"], /--base-url: expected an http\(s\) URL/],
    [["--turns"], /--turns/],
  ])("rejects %j with a clear message", (argv, message) => {
    const parsed = parseDemoArgs(argv);
    expect(parsed.kind).toBe("error");
    if (parsed.kind === "error") expect(parsed.message).toMatch(message);
  });
});

describe("demo cost accounting", () => {
  const count = (m: unknown) => JSON.stringify(m).length;
  it("bills each request as a strict provider does: tool schemas counted, a shared prefix cached from 1,024 tokens", () => {
    // One token per character keeps the arithmetic visible.
    const provider = createOpenAIRules({ contextWindow: Infinity, enforce: false, counter: (t) => t.length });
    const tools = [{ type: "function", function: { name: "exec", parameters: {} } }];
    const a = [
      { role: "system", content: "s".repeat(3_000) },
      { role: "user", content: "hi" },
    ];
    const b = [...a, { role: "assistant", content: "hello" }];
    const first = requestCost(
      { body: { tools, messages: a, max_completion_tokens: 4096 }, toolNames: ["exec"] },
      provider,
      10,
    );
    const second = requestCost({ body: { tools, messages: b, max_tokens: 900 }, toolNames: [] }, provider, 20);
    const toolTokens = JSON.stringify(tools).length;
    // +4 framing tokens per message
    const aTokens = toolTokens + 3_000 + 4 + 2 + 4;
    expect(first).toEqual({
      promptTokens: aTokens,
      cachedTokens: 0,
      allowance: 4096,
      outputTokens: 10,
      noTools: false,
    });
    expect(second.promptTokens).toBe(aTokens + 5 + 4);
    // The shared prefix (tools + both messages) in 128-token steps.
    expect(second.cachedTokens).toBe(Math.floor(aTokens / 128) * 128);
    expect(second).toMatchObject({ allowance: 900, noTools: true });
    // A short shared prefix is not cached at all.
    const small = createOpenAIRules({ contextWindow: Infinity, enforce: false, counter: (t) => t.length });
    requestCost({ body: { messages: [{ role: "user", content: "x" }] }, toolNames: [] }, small, 1);
    expect(
      requestCost(
        {
          body: {
            messages: [
              { role: "user", content: "x" },
              { role: "user", content: "y" },
            ],
          },
          toolNames: [],
        },
        small,
        1,
      ).cachedTokens,
    ).toBe(0);
    const totals = costTotals([first, second], { input: 2, cachedInput: 0.5, output: 8 });
    expect(totals.uncachedTokens).toBe(totals.promptTokens - totals.cachedTokens);
    expect(totals.dollars).toBeCloseTo((totals.uncachedTokens * 2 + totals.cachedTokens * 0.5 + 30 * 8) / 1e6, 12);
  });

  it("memoCounter counts each distinct message once", () => {
    let calls = 0;
    const memo = memoCounter((m) => {
      calls++;
      return count(m);
    });
    memo({ a: 1 });
    memo({ a: 1 });
    memo({ a: 2 });
    expect(calls).toBe(2);
  });
});

describe("demo report", () => {
  const row = (engine: string, turn: number, over: Partial<DemoRow> = {}): DemoRow => ({
    engine,
    turn,
    status: "answered",
    promptTokens: 9_000 + turn * 1_000,
    requests: 2,
    clamped: 0,
    rawBytes: turn * 180_000,
    rawTokens: turn * 45_000,
    debtTokens: turn * 13_000,
    artifacts: turn,
    resets: 0,
    compactions: 0,
    notes: [],
    ms: 4_200,
    ...over,
  });
  const ledger: EngineSummary = {
    engine: "context-ledger",
    rows: [1, 2, 3].map((t) => row("context-ledger", t)),
    cost: costTotals([], { input: 2, cachedInput: 0.5, output: 8 }),
  };
  const legacy: EngineSummary = {
    engine: "legacy",
    rows: [
      row("legacy", 1, { promptTokens: 21_345 }),
      row("legacy", 2, {
        promptTokens: 38_765,
        clamped: 2,
        notes: ["2 requests clamped (min 812 of 4,096 output tokens)"],
        compactions: 1,
      }),
      row("legacy", 3, {
        status: "reset notice",
        requests: 0,
        promptTokens: 0,
        resets: 1,
        compactions: 3,
        notes: ["session reset ×1", "3 overflow retries"],
      }),
    ],
    cost: {
      requests: 6,
      promptTokens: 1_234_567,
      cachedTokens: 1_000_000,
      uncachedTokens: 234_567,
      outputTokens: 12_345,
      dollars: 1.067,
    },
  };
  const input = {
    hostVersion: "2026.4.24",
    contextWindow: 32_000,
    maxTokens: 4_096,
    turns: 3,
    outputChars: 150_000,
    answerChars: 12_000,
    promptBudget: 32_000,
    prices: { input: 2, cachedInput: 0.5, output: 8 },
    engines: [ledger, legacy],
    seconds: 95,
    schedule: "at the same time",
  };

  it("ticks are round numbers from 0 that cover the maximum", () => {
    for (const max of [1, 7, 17_485, 33_280, 40_704, 123_456, 999_999]) {
      const ticks = niceTicks(max);
      expect(ticks[0]).toBe(0);
      expect(ticks.at(-1)).toBeGreaterThanOrEqual(max);
      const step = (ticks[1] ?? 0) - (ticks[0] ?? 0);
      const mantissa = step / 10 ** Math.floor(Math.log10(step));
      expect([1, 2, 2.5, 5]).toContain(Number(mantissa.toPrecision(6)));
      expect(ticks.length).toBeLessThanOrEqual(7);
    }
    expect(niceTicks(40_704)).toEqual([0, 10_000, 20_000, 30_000, 40_000, 50_000]);
  });

  it("annotates resets, compactions and clamped output in the chart, with units and separators", () => {
    const html = renderDemoReport(input);
    expect(html).toContain("prompt tokens (o200k_base, tool schemas included)");
    expect(html).toContain("raw transcript (tokens of its messages)");
    expect(html).toContain("window 32,000 tokens");
    expect(html).toContain("over the window");
    expect(html).toMatch(
      /<title>legacy, turn 3: session reset ×1, 3 overflow retries<\/title>.*>session reset<\/text>/s,
    );
    expect(html).toMatch(/>compaction<\/text>/);
    expect(html).toMatch(
      /<title>legacy, turn 2: 2 requests clamped \(min 812 of 4,096 output tokens\)<\/title>.*>output clamped<\/text>/s,
    );
    // y ticks are round: 0, 50,000 ... 150,000 for the 135,000-token transcript both charts share
    for (const t of ["50,000", "100,000", "150,000"]) expect(html).toContain(`>${t}</text>`);
    expect(html).not.toMatch(/>\d{5,}</);
    expect(html).toContain("<td>38,765</td>");
    expect(html).toMatch(/<td>3<\/td><td class="l">legacy<\/td><td class="l">reset notice<\/td><td>0<\/td>/);
    // A row saved as answered whose requests were clamped counts as cut off.
    expect(html).toContain("legacy: 1 of 3 turns answered (turn 2: cut off, 3: reset notice)");
    expect(html).toMatch(/<td>2<\/td><td class="l">legacy<\/td><td class="l">cut off<\/td>/);
    expect(html).toContain("1,234,567 prompt tokens");
  });

  it("shows what each engine's model read: the contract's result and the summary, escaped", () => {
    const html = renderDemoReport({
      ...input,
      engines: [
        {
          ...ledger,
          prompt: {
            requests: 6,
            violations: [],
            lastSummary: '[context-ledger summary]\nTurn 1: "run <script>alert(1)</script>"\n[/context-ledger summary]',
          },
        },
        {
          ...legacy,
          prompt: {
            requests: 5,
            violations: [{ request: 4, clause: "user-messages", detail: "user message 1 is not in the prompt" }],
            lastSummary: null,
          },
        },
      ],
    });
    expect(html).toContain("context-ledger: the prompt contract held on all 6 requests");
    expect(html).toContain("legacy: 1 prompt contract violations in 5 requests (user-messages ×1)");
    expect(html).toContain("request 4: <b>user-messages</b>: user message 1 is not in the prompt");
    expect(html).toContain("run &lt;script&gt;alert(1)&lt;/script&gt;");
    expect(html).not.toContain("<script>alert(1)");
    expect(html).toContain("The last request carried no summary block.");
  });

  it("leads with a verdict: answered and failed turns, total spend and spend per answered turn, resets, cached share", () => {
    const billed: EngineSummary = {
      ...ledger,
      cost: {
        requests: 6,
        promptTokens: 400_000,
        cachedTokens: 300_000,
        uncachedTokens: 100_000,
        outputTokens: 9_000,
        dollars: 0.42,
      },
    };
    const verdicts = engineVerdicts([billed, legacy]);
    expect(verdicts.map((v) => [v.engine, v.answered, v.failed, v.resets, v.resetTurns, v.compactions])).toEqual([
      ["context-ledger", 3, [], 0, [], 0],
      [
        "legacy",
        1,
        [
          { status: "cut off", turns: [2] },
          { status: "reset notice", turns: [3] },
        ],
        1,
        [3],
        4,
      ],
    ]);
    // Per answered turn, not per request: legacy's clamped turn and its reset turn are not answered.
    expect(verdicts[0]?.total).toBe(0.42);
    expect(verdicts[0]?.perAnswered).toBeCloseTo(0.42 / 3, 12);
    expect(verdicts[1]?.perAnswered).toBeCloseTo(1.067, 12);
    expect(verdicts[0]?.cachedShare).toBeCloseTo(0.75, 12);
    const sentence = verdictSentence(verdicts);
    expect(sentence).toBe(
      "Verdict: context-ledger answered more turns: context-ledger 3 of 3, legacy 1 of 3 (turn 2: cut off (output allowance clamped); turn 3: reset notice); context-ledger spent less in all ($0.4200 against $1.07, 0.39× legacy's) and less per answered turn ($0.1400 against $1.07, 0.13× legacy's); session resets: context-ledger 0, legacy 1 (turn 3); the provider's prefix cache served 75% of context-ledger's prompt tokens and 81% of legacy's.",
    );
    const table = formatVerdictTable(verdicts).split("\n");
    expect(table[0]).toMatch(
      /^engine +answered +resets +compactions +total spend +per answered turn +cached +largest prompt$/,
    );
    expect(table[2]).toMatch(/^legacy +1 of 3 +1 +4 +\$1\.07 +\$1\.07 +81% +38,765$/);
    // Nothing billed (a real endpoint): no cost claimed.
    expect(verdictSentence(engineVerdicts([ledger, { ...legacy, cost: ledger.cost }]))).toContain("cost not measured");
    const html = renderDemoReport({ ...input, engines: [billed, legacy] });
    expect(html.indexOf(sentence)).toBeGreaterThan(0);
    expect(html.indexOf(sentence)).toBeLessThan(html.indexOf("<svg"));
    expect(html).toContain("<th>total spend</th><th>spend per answered turn</th>");
  });

  const run = (engine: string, dollars: number, rows: DemoRow[]): EngineSummary => ({
    engine,
    rows,
    cost: {
      requests: rows.length * 2,
      promptTokens: 100_000,
      cachedTokens: 50_000,
      uncachedTokens: 50_000,
      outputTokens: 6_000,
      dollars,
    },
  });
  const six = (engine: string, over: (turn: number) => Partial<DemoRow> = () => ({})) =>
    [1, 2, 3, 4, 5, 6].map((t) => row(engine, t, over(t)));

  it("states total spend and spend per answered turn both, when they point different ways", () => {
    const resetTurns = new Set([3, 6]);
    const sentence = verdictSentence(
      engineVerdicts([
        run("context-ledger", 0.2816, six("context-ledger")),
        run(
          "legacy",
          0.244,
          six("legacy", (t) => (resetTurns.has(t) ? { status: "reset notice", resets: 1, requests: 0 } : {})),
        ),
      ]),
    );
    expect(sentence).toContain(
      "context-ledger answered more turns: context-ledger 6 of 6, legacy 4 of 6 (turn 3, 6: reset notice)",
    );
    expect(sentence).toContain(
      "context-ledger spent more in all ($0.2816 against $0.2440, 1.15× legacy's) and less per answered turn ($0.0469 against $0.0610, 0.77× legacy's)",
    );
    expect(sentence).toContain("session resets: context-ledger 0, legacy 2 (turn 3, 6)");
  });

  it("counts clamped turns as failed: answers shown in full but clamped are no tie", () => {
    const clamped = (t: number): Partial<DemoRow> => ({
      status: "cut off",
      clamped: 1,
      notes: [`1 request clamped (min 1 of 4,096 output tokens) at turn ${t}`],
    });
    const verdicts = engineVerdicts([
      run("context-ledger", 0.3, six("context-ledger")),
      run("legacy", 0.2, six("legacy", clamped)),
    ]);
    expect(verdicts[1]).toMatchObject({ answered: 0, perAnswered: null, total: 0.2 });
    const sentence = verdictSentence(verdicts);
    expect(sentence).not.toContain("both engines");
    expect(sentence).toContain(
      "context-ledger answered more turns: context-ledger 6 of 6, legacy 0 of 6 (turn 1, 2, 3, 4, 5, 6: cut off (output allowance clamped))",
    );
    expect(sentence).toContain(
      "context-ledger spent more in all ($0.3000 against $0.2000, 1.50× legacy's) and per answered turn $0.0500 against – (legacy answered no turn)",
    );
    // The same figures with no clamp are a tie on answers, and the verdict says so.
    const tie = verdictSentence(
      engineVerdicts([run("context-ledger", 0.3, six("context-ledger")), run("legacy", 0.2, six("legacy"))]),
    );
    expect(tie).toContain("both engines answered 6 of 6 turns: context-ledger 6 of 6, legacy 6 of 6;");
    expect(tie).toContain(
      "context-ledger spent more in all ($0.3000 against $0.2000, 1.50× legacy's) and more per answered turn",
    );
  });

  it("draws both charts on one token scale", () => {
    const html = renderDemoReport(input);
    const svgs = html.split("<svg").slice(1);
    expect(svgs).toHaveLength(2);
    const top = (svg: string) =>
      [...svg.matchAll(/>([\d,]+)<\/text>/g)]
        .map((m) => Number(m[1]?.replace(/,/g, "")))
        .reduce((a, b) => Math.max(a, b), 0);
    // The raw transcript reaches 135,000 tokens; the prompt chart covers as much.
    expect(top(svgs[0] ?? "")).toBe(top(svgs[1] ?? ""));
    expect(top(svgs[0] ?? "")).toBeGreaterThanOrEqual(135_000);
  });

  it("prints a table with thousands separators, a headline with the reset turn, and a cost line", () => {
    const table = formatTable([...ledger.rows, ...legacy.rows]);
    expect(table.split("\n")[0]).toMatch(
      /turn \| engine +\| status +\| largest prompt \| requests \| clamped \| transcript \| raw tokens \| +debt \| artifacts/,
    );
    expect(table).toContain("38,765");
    expect(table).toContain("527 KB");
    expect(table).not.toMatch(/\d{4,}(?![\d,])/);
    const lines = headline(input);
    expect(table).toMatch(/\n +3 \| legacy +\| reset notice \| +0 \| +0 \|/);
    expect(lines[1]).toMatch(
      /^legacy: 1 of 3 turns answered \(turn 2: cut off, 3: reset notice\), 1 session reset \(turn 3\), 4 compactions, largest prompt 38,765 tokens \(121% of the 32,000-token window\)/,
    );
    expect(lines[0]).toMatch(/^context-ledger: 3 of 3 turns answered, 0 session resets, 0 compactions/);
    const cost = formatCost([legacy], input.prices);
    expect(cost[0]).toBe(
      "legacy: 1,234,567 prompt tokens in 6 requests (1,000,000 cached, 234,567 uncached) + 12,345 output = $1.07",
    );
    expect(cost[1]).toMatch(/US\$ 2 per million uncached input tokens, 0.5 cached, 8 output/);
  });
});

describe("demo transcript measurement (no host)", () => {
  const count = (text: string) => text.length;
  const event = (role: string, text: string) =>
    JSON.stringify({ type: "message", message: { role, content: [{ type: "text", text }] } });

  const entry = (id: string, parentId: string | null, role: string, text: string) =>
    JSON.stringify({ type: "message", id, parentId, message: { role, content: [{ type: "text", text }] } });

  it("reads the active branch of the active session's JSONL (2026.4.24 layout), not entries a rewrite left behind", async () => {
    const state = await mkdtemp(path.join(os.tmpdir(), "demo-transcript-"));
    try {
      const dir = path.join(state, "agents", "main", "sessions");
      await mkdir(dir, { recursive: true });
      // e2 was rewritten into e2b (the host re-appends from the rewritten entry on): e2 stays in the file, off the
      // branch.
      const branch = [entry("e1", null, "user", "hello"), entry("e2b", "e1", "toolResult", "stub")];
      const lines = [
        JSON.stringify({ type: "session", version: 3 }),
        branch[0],
        entry("e2", "e1", "toolResult", "x".repeat(100)),
        branch[1],
      ];
      await writeFile(path.join(dir, "s1.jsonl"), `${entry("o1", null, "user", "old session before the reset")}\n`);
      await writeFile(path.join(dir, "s2.jsonl"), `${lines.join("\n")}\n`);
      await writeFile(path.join(dir, "sessions.json"), JSON.stringify({ "agent:main:main": { sessionId: "s2" } }));
      const size = await measureTranscript(state, "agent:main:main", count);
      expect(size).toEqual({
        store: "jsonl",
        bytes: branch.reduce((sum, l) => sum + Buffer.byteLength(l) + 1, 0),
        messages: 2,
        tokens: 5 + 4 + 4 + 4,
      });
    } finally {
      await rm(state, { recursive: true, force: true });
    }
  });

  /**
   * The agent's SQLite database under a host state dir, with 2026.9.x's session_windows and transcript_events tables.
   */
  async function agentDatabase(state: string): Promise<DatabaseSync> {
    const dir = path.join(state, "agents", "main", "agent");
    await mkdir(dir, { recursive: true });
    const db = new DatabaseSync(path.join(dir, "openclaw-agent.sqlite"));
    db.exec(
      "CREATE TABLE session_windows (session_id TEXT PRIMARY KEY, session_key TEXT NOT NULL, created_at INTEGER NOT NULL)",
    );
    db.exec(
      "CREATE TABLE transcript_events (session_id TEXT NOT NULL, seq INTEGER NOT NULL, event_json TEXT, created_at INTEGER NOT NULL, event_zstd BLOB, event_utf8_bytes INTEGER, PRIMARY KEY (session_id, seq))",
    );
    return db;
  }

  it("reads the active session window's transcript_events, zstd rows included (2026.9.x layout)", async () => {
    const state = await mkdtemp(path.join(os.tmpdir(), "demo-transcript-"));
    try {
      const db = await agentDatabase(state);
      db.prepare("INSERT INTO session_windows VALUES (?, ?, ?)").run("old", "agent:main:main", 1);
      db.prepare("INSERT INTO session_windows VALUES (?, ?, ?)").run("new", "agent:main:main", 2);
      db.prepare("INSERT INTO session_windows VALUES (?, ?, ?)").run(
        "memo",
        "agent:main:internal-session-effects:1",
        3,
      );
      const plain = event("user", "hi");
      const big = event("tool", "y".repeat(1_000));
      const insert = db.prepare("INSERT INTO transcript_events VALUES (?, ?, ?, ?, ?, ?)");
      insert.run("old", 1, event("user", "before the reset"), 1, null, null);
      insert.run("new", 1, plain, 2, null, null);
      insert.run("new", 2, null, 2, zlib.zstdCompressSync(Buffer.from(big)), Buffer.byteLength(big));
      insert.run("memo", 1, event("user", "internal"), 3, null, null);
      db.close();
      const size = await measureTranscript(state, "agent:main:main", count);
      expect(size).toEqual({
        store: "sqlite",
        bytes: Buffer.byteLength(plain) + Buffer.byteLength(big),
        messages: 2,
        tokens: 2 + 4 + 1_000 + 4,
      });
    } finally {
      await rm(state, { recursive: true, force: true });
    }
  });

  it("reads only the active branch when the store records one (2026.9.x rewrites leave replaced rows behind)", async () => {
    const state = await mkdtemp(path.join(os.tmpdir(), "demo-transcript-"));
    try {
      const db = await agentDatabase(state);
      db.exec(
        "CREATE TABLE session_transcript_active_events (session_id TEXT NOT NULL, active_position INTEGER NOT NULL, event_seq INTEGER NOT NULL, PRIMARY KEY (session_id, active_position))",
      );
      db.prepare("INSERT INTO session_windows VALUES (?, ?, ?)").run("s", "agent:main:main", 1);
      const rows = [event("user", "hi"), event("toolResult", "z".repeat(500)), event("toolResult", "stub")];
      rows.forEach((json, seq) =>
        db.prepare("INSERT INTO transcript_events VALUES (?, ?, ?, ?, ?, ?)").run("s", seq, json, 1, null, null),
      );
      [0, 2].forEach((seq, position) =>
        db.prepare("INSERT INTO session_transcript_active_events VALUES (?, ?, ?)").run("s", position, seq),
      );
      db.close();
      const size = await measureTranscript(state, "agent:main:main", count);
      expect(size).toEqual({
        store: "sqlite",
        bytes: Buffer.byteLength(rows[0] as string) + Buffer.byteLength(rows[2] as string),
        messages: 2,
        tokens: 2 + 4 + 4 + 4,
      });
    } finally {
      await rm(state, { recursive: true, force: true });
    }
  });

  it("reads as empty, not an error, when there is no transcript yet", async () => {
    const state = await mkdtemp(path.join(os.tmpdir(), "demo-transcript-"));
    try {
      expect(await measureTranscript(state, "agent:main:main", count)).toEqual({
        bytes: 0,
        tokens: 0,
        messages: 0,
        store: "none",
      });
    } finally {
      await rm(state, { recursive: true, force: true });
    }
  });
});
