import { promises as fsp } from "node:fs";
import { mkdtemp } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { createArtifactStore } from "../../src/artifacts/index.js";
import { cleanSessionFile } from "../../src/cli/sessions/clean/clean-session-file.js";
import { parseConfig, resolveAgentSettings } from "../../src/config/parse-config.js";
import { parseStubHandle } from "../../src/results/stub.js";

describe("session clean edits only the payload fields, byte-exact elsewhere", () => {
  it("keeps 19-digit ids, 1.10, escaped lone surrogates, key order and spacing; untouched lines with invalid UTF-8 stay identical", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), "ledger-clean-bytes-"));
    const file = path.join(dir, "s1.jsonl");
    const payload = `line of build output ${"x".repeat(60)}\n`.repeat(200);
    const header = Buffer.from(
      '{"type":"session","version":3,"id":"s1","timestamp":"2026-04-25T10:00:00.000Z","cwd":"/work"}',
    );
    // Raw bytes ED A0 80: a lone surrogate as the host's writer may leave it (not valid UTF-8).
    const oddLine = Buffer.concat([
      Buffer.from(
        '{"type":"message","id":"e1","parentId":null,"timestamp":"2026-04-25T10:00:01.000Z","message":{"role":"user","content":"odd ',
      ),
      Buffer.from([0xed, 0xa0, 0x80]),
      Buffer.from(' bytes"}}'),
    ]);
    const resultLine = Buffer.from(
      `{"type":"message", "id":"e2","parentId":"e1","timestamp":"2026-04-25T10:00:02.000Z","message":{"role":"toolResult","toolCallId":"call_aB_1-x","toolName":"exec","bigId":1234567890123456789,"ratio":1.10,"note":"\\ud800 alone","content":[{"type":"text","text":${JSON.stringify(payload)}}],"details":{"exitCode":0,"aggregated":${JSON.stringify(payload)},"ms":1.50e3}}}`,
    );
    const original = Buffer.concat([
      header,
      Buffer.from("\n"),
      oddLine,
      Buffer.from("\n"),
      resultLine,
      Buffer.from("\n"),
    ]);
    await fsp.writeFile(file, original);
    const store = createArtifactStore({ root: path.join(dir, "agent", "artifacts") });
    const r = await cleanSessionFile({
      file,
      agentId: "main",
      store,
      dryRun: false,
      settings: resolveAgentSettings(parseConfig({}), "main"),
    });
    expect(r.status).toBe("cleaned");
    const after = await fsp.readFile(file);
    const lines = after.toString("latin1").split("\n");
    expect(Buffer.from(lines[0]!, "latin1").equals(header)).toBe(true);
    expect(Buffer.from(lines[1]!, "latin1").equals(oddLine)).toBe(true);
    const edited = Buffer.from(lines[2]!, "latin1").toString("utf8");
    expect(edited).toContain('"bigId":1234567890123456789,"ratio":1.10,"note":"\\ud800 alone"');
    expect(edited).toContain('"ms":1.50e3');
    expect(edited.startsWith('{"type":"message", "id":"e2"')).toBe(true);
    // The line equals the original with exactly the two payload values swapped for their stubs.
    const parsed = JSON.parse(edited) as {
      message: { content: Array<{ text: string }>; details: { aggregated: string } };
    };
    const stub = parsed.message.content[0]!.text;
    expect(parseStubHandle(stub)).toBeDefined();
    const expected = resultLine
      .toString("utf8")
      .replace(JSON.stringify(payload), JSON.stringify(stub))
      .replace(JSON.stringify(payload), JSON.stringify(parsed.message.details.aggregated));
    expect(edited).toBe(expected);
    // The backup is the original, byte for byte.
    expect((await fsp.readFile(r.backup!)).equals(original)).toBe(true);
    await fsp.rm(dir, { recursive: true, force: true });
  });
});
