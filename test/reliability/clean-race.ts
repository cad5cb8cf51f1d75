/**
 * A host writer appending to a live JSONL transcript while `session clean` rewrites it:
 * with a stale lock (the host's lock file names a dead pid) or with `--force` past a live
 * holder, the clean cannot take the host's lock, so only the clean itself can keep the
 * appended lines. Each run: a 3-turn bloated session, a writer process appending `lines`
 * JSONL lines as fast as it can (a pause every 8), the clean started once the writer is under way.
 */
import { spawn } from "node:child_process";
import { promises as fsp } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createArtifactStore } from "../../src/artifacts/index.js";
import { cleanSessionFile } from "../../src/cli/sessions/clean/clean-session-file.js";
import { parseConfig, resolveAgentSettings } from "../../src/config/parse-config.js";
import { bloatedSession } from "../cli/cli-fixtures.js";

const WRITER = `
const fs = require("node:fs");
const [file, count] = [process.argv[1], Number(process.argv[2])];
let i = 0;
const tick = () => {
  if (i >= count) return;
  fs.appendFileSync(file, JSON.stringify({ type: "custom", customType: "race", id: "w" + i, data: { n: i } }) + "\\n");
  i++;
  if (i % 8 === 0) setTimeout(tick, 1);
  else setImmediate(tick);
};
tick();
`;

/** What one raced clean left: the clean's status and how many of the writer's lines the file holds, in order. */
export interface RaceOutcome {
  status: string;
  reason: string | undefined;
  /** The clean refused because its last look found the writer holding the file open for writing. */
  heldByWriter: boolean;
  kept: number;
  inOrder: boolean;
  duplicated: boolean;
  /** Bytes the clean said it carried after lines appended later (`outOfOrder`), 0 when it said none. */
  reportedOutOfOrder: number;
}

/** Runs one clean against a writer appending `lines` lines; `lock` says how the host's lock looks meanwhile. */
export async function raceCleanAgainstWriter(lines: number, lock: "stale" | "live-forced"): Promise<RaceOutcome> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "ledger-clean-race-"));
  try {
    const session = bloatedSession({ turns: 3, outputChars: 30_000, answerChars: 2_000 });
    const file = path.join(dir, `${session.sessionId}.jsonl`);
    await fsp.writeFile(file, session.text);
    const pid = lock === "stale" ? 2 ** 22 + 12_345 : process.pid;
    await fsp.writeFile(`${file}.lock`, JSON.stringify({ pid, createdAt: new Date().toISOString() }));
    const writer = spawn(process.execPath, ["-e", WRITER, file, String(lines)], { stdio: "ignore" });
    const exited = new Promise<void>((resolve) => writer.on("exit", () => resolve()));
    // Start once the writer is appending.
    while ((await fsp.readFile(file, "utf8")).split('"customType":"race"').length < 20)
      await new Promise((r) => setTimeout(r, 2));
    const result = await cleanSessionFile({
      file,
      agentId: "main",
      store: createArtifactStore({ root: path.join(dir, "agent", "artifacts") }),
      dryRun: false,
      force: lock === "live-forced",
      settings: resolveAgentSettings(parseConfig({}), "main"),
    });
    await exited;
    const ids = (await fsp.readFile(file, "utf8"))
      .split("\n")
      .filter((l) => l.includes('"customType":"race"'))
      .map((l) => Number((JSON.parse(l) as { data: { n: number } }).data.n));
    return {
      status: result.status,
      reason: result.reason,
      heldByWriter: result.status === "refused" && (result.reason ?? "").includes("for writing"),
      kept: new Set(ids).size,
      inOrder: ids.every((n, i) => i === 0 || n > (ids[i - 1] as number)),
      duplicated: new Set(ids).size !== ids.length,
      reportedOutOfOrder: result.outOfOrder ?? 0,
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
