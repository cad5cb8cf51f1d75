import { promises as fsp, readFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildPreview } from "../../src/results/preview.js";
import { redactSecrets } from "../../src/results/redact.js";
import { buildStub, parseStubHandle } from "../../src/results/stub.js";
import { createLedgerTools } from "../../src/retrieval/tools.js";
import { buildCheckpointPack } from "../../src/summary/checkpoint.js";
import { renderSummary } from "../../src/summary/render-summary.js";
import { createSummaryState } from "../../src/summary/summary-state.js";
import { extendSummary } from "../../src/summary/extend-summary.js";
import { INHERITED_SUMMARY_FILE } from "../../src/subagents/subagent-context.js";
import { assistant, call, createTestEngine, result, user } from "../support/engine-harness.js";
import { summaryOf } from "../support/view-summary.js";
import { useTempDir } from "../support/temp-dir.js";

interface Corpus {
  entries: Array<{ name: string; text: string; secrets: string[] }>;
  privateKey: { begin: string; body: string[]; end: string };
}
const corpus = JSON.parse(readFileSync(new URL("./secrets-corpus.json", import.meta.url), "utf8")) as Corpus;
const KEY = corpus.privateKey;
const ALL_SECRETS = [...corpus.entries.flatMap((e) => e.secrets), ...KEY.body];
const filler = (n: number) =>
  Array.from({ length: n }, (_, i) => `build step ${i} finished in ${(i * 37) % 1000} ms`).join("\n");

/** Secrets of the corpus that appear in `shown`, named. */
function leaks(shown: string): string[] {
  return ALL_SECRETS.filter((s) => shown.includes(s));
}

// One output per corpus entry with the secret at the head and at the tail (both ends are previewed),
// and one whose private key BEGIN falls in the omitted middle while its last lines and END are in the tail.
const outputs = [
  ...corpus.entries.map((e) => `${e.text}\n${filler(400)}\n${e.text}`),
  `${filler(400)}\n${KEY.begin}\n${KEY.body.join("\n")}\n${KEY.end}\n`,
];

describe("redaction corpus: 0 leaks on every path that shows text outside ledger_fetch", () => {
  let t: Awaited<ReturnType<typeof createTestEngine>>;
  const s = { sessionId: "s-red", sessionKey: "agent:main:red" };
  const messages: unknown[] = [];
  const tmp = useTempDir("ledger-red-");
  beforeAll(async () => {
    t = await createTestEngine({ offload: { maxChars: 2_000, structuredMaxChars: 1_000 } });
    for (const [i, out] of outputs.entries()) {
      const e = corpus.entries[i];
      const keyBlock = `${KEY.begin}\n${KEY.body.join("\n")}\n${KEY.end}`;
      messages.push(user(`Turn ${i}: check the config, my login is ${e?.text ?? keyBlock}`));
      messages.push(call(`call_aB_${i}-x`, "exec", { command: `cat config-${i} # ${e?.text ?? ""}` }));
      messages.push(result(`call_aB_${i}-x`, "exec", out));
      messages.push(assistant(`Turn ${i}: the config says ${e?.text ?? keyBlock}. We decided to rotate it.`));
    }
    messages.push(user("what failed?"));
  });
  afterAll(async () => t.cleanup());

  it("the corpus itself: every entry is found by the rules (redactSecrets)", () => {
    const missed = corpus.entries
      .filter((e) => leaks(redactSecrets(e.text)).length > 0)
      .map((e) => `${e.name}: ${redactSecrets(e.text)}`);
    expect(missed).toEqual([]);
    expect(leaks(redactSecrets(`${KEY.begin}\n${KEY.body.join("\n")}\n${KEY.end}`))).toEqual([]);
  });

  it("previews: redacted before the cut (a key whose BEGIN is in the omitted middle)", () => {
    const found = outputs.flatMap((o) => leaks(buildPreview(o, 600)));
    expect(found).toEqual([]);
    const big = `${filler(20_000)}\n${KEY.begin}\n${KEY.body.join("\n")}\n${KEY.end}\n`;
    expect(leaks(buildPreview(big, 600))).toEqual([]);
  });

  it("stubs of offloaded tool outputs (assemble) and direct buildStub calls", async () => {
    const view = (await t.engine.assemble({ ...s, messages, tokenBudget: 200_000 })) as { messages: unknown[] };
    const stubs = JSON.stringify(view.messages.filter((m) => (m as { role?: string }).role === "toolResult"));
    expect(stubs).toContain("[context-ledger artifact");
    expect(leaks(stubs)).toEqual([]);
    expect(outputs.flatMap((o) => leaks(buildStub({ handle: "ledger:v1:sha256:" + "0".repeat(64), text: o })))).toEqual(
      [],
    );
  });

  it("ledger_peek (tools built without a redact dependency still redact)", async () => {
    const store = t.services.store("main");
    const [, peek] = createLedgerTools(
      { openStore: (id) => t.services.store(id), readableAgents: () => [] },
      { agentId: "main" },
    );
    const shown: string[] = [];
    for (const out of outputs) {
      const { handle } = await store.stash(out, { kind: "tool-output" });
      const r = await peek!.execute("call_pk_1-x", { handle });
      shown.push(r.content[0]!.text);
    }
    expect(shown.join("\n")).toContain("[context-ledger peek");
    expect(leaks(shown.join("\n"))).toEqual([]);
  });

  it("summaries (rendered, injected) and checkpoint packs (as stored, as `checkpoint show` prints them)", async () => {
    const state = extendSummary(createSummaryState("e1"), messages, messages.length - 1);
    expect(leaks(renderSummary(state, { maxChars: 4_000 }))).toEqual([]);
    const pack = buildCheckpointPack(state, { frontierIndex: 4, frontierFingerprint: null });
    expect(leaks(pack)).toEqual([]);

    const small = { ...s, sessionKey: "agent:main:red-sum" };
    const view = (await t.engine.assemble({ ...small, messages, tokenBudget: 6_000 })) as { messages: unknown[] };
    await t.engine.compact({ ...small, force: true, tokenBudget: 6_000 });
    const after = (await t.engine.assemble({ ...small, messages, tokenBudget: 6_000 })) as { messages: unknown[] };
    expect(`${summaryOf(view)}${summaryOf(after)}`).toContain("[context-ledger summary]");
    expect(leaks(`${summaryOf(view)}\n${summaryOf(after)}`)).toEqual([]);
    const packs: string[] = [];
    for await (const meta of t.services.store("main").list())
      if (meta.kind === "checkpoint") packs.push(await t.services.store("main").readText(meta.handle));
    expect(packs.length).toBeGreaterThan(0);
    expect(leaks(packs.join("\n"))).toEqual([]);
  });

  it("the summary a forked subagent inherits", async () => {
    const parent = { ...s, sessionKey: "agent:main:red-parent" };
    await t.engine.assemble({ ...parent, messages, tokenBudget: 6_000 });
    await t.engine.compact({ ...parent, force: true, tokenBudget: 6_000 });
    await t.engine.prepareSubagentSpawn({
      parentSessionKey: parent.sessionKey,
      childSessionKey: "agent:main:subagent:red-child",
      contextMode: "fork",
    });
    const text = await fsp.readFile(
      path.join(t.services.sessions.dir("main", "agent:main:subagent:red-child"), INHERITED_SUMMARY_FILE),
      "utf8",
    );
    expect(text).toContain("[context-ledger summary]");
    expect(leaks(text)).toEqual([]);
  });

  it("paydown stubs written into the host transcript", async () => {
    const t4 = await createTestEngine({}, "2026.4");
    const file = path.join(tmp(), "s-red.jsonl");
    const lines: unknown[] = [
      { type: "session", version: 3, id: "s-red", timestamp: "2026-04-25T10:00:00.000Z", cwd: "/work" },
    ];
    let parentId: string | null = null;
    for (const [i, out] of outputs.entries()) {
      const big = `${out}\n${filler(3_000)}\n${out}`;
      for (const message of [
        user(`turn ${i}`),
        call(`call_aB_${i}-x`, "exec"),
        result(`call_aB_${i}-x`, "exec", big, { aggregated: big }),
        assistant(`${corpus.entries[i]?.text ?? ""} ${"answer ".repeat(2_000)}`),
      ]) {
        const id = `e${lines.length}`;
        lines.push({ type: "message", id, parentId, timestamp: "2026-04-25T10:00:01.000Z", message });
        parentId = id;
      }
    }
    await writeFile(file, lines.map((l) => JSON.stringify(l)).join("\n") + "\n");
    const written: unknown[] = [];
    const rewriteTranscriptEntries = async (req: {
      replacements: { entryId: string; message: Record<string, unknown> }[];
    }) => {
      written.push(...req.replacements);
      return { changed: true, bytesFreed: 1, rewrittenEntries: req.replacements.length };
    };
    const r = await t4.engine.maintain({
      sessionId: "s-red",
      sessionKey: "agent:main:red-pay",
      sessionFile: file,
      runtimeContext: { rewriteTranscriptEntries },
    });
    expect(r.changed).toBe(true);
    const text = JSON.stringify(written);
    expect(
      written.some((w) =>
        parseStubHandle(
          ((w as { message: { content: Array<{ text: string }> } }).message.content[0] ?? { text: "" }).text,
        ),
      ),
    ).toBe(true);
    expect(leaks(text)).toEqual([]);
    await t4.cleanup();
  });

  it("stubs of an oversized user message", async () => {
    const huge = `${outputs.join("\n")}\n${filler(20_000)}\n${outputs.join("\n")}`;
    const view = (await t.engine.assemble({
      ...s,
      sessionKey: "agent:main:red-user",
      messages: [user(huge)],
      tokenBudget: 8_000,
    })) as { messages: unknown[] };
    const text = JSON.stringify(view.messages);
    expect(text).toContain("[context-ledger artifact");
    expect(leaks(text)).toEqual([]);
  });
});
