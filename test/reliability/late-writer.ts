/**
 * Writers that open a live JSONL transcript, pause, then write one line and close it, racing `session clean`: the
 * host's appends as a loaded machine spaces them out. One writer process serves many transcripts at once (a job per
 * transcript), so a thousand races fit in a minute. What a race checks: every line the writer wrote is in the file
 * once, in the order written, whether the clean replaced the file or refused.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { promises as fsp } from "node:fs";
import path from "node:path";
import type { ArtifactStore } from "../../src/artifacts/index.js";
import { cleanSessionFile } from "../../src/cli/sessions/clean/clean-session-file.js";
import { parseConfig, resolveAgentSettings } from "../../src/config/parse-config.js";
import { bloatedSession } from "../cli/cli-fixtures.js";

const WRITER = `
const fs = require("node:fs");
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
process.on("message", async (job) => {
  for (const [k, step] of job.steps.entries()) {
    const fd = fs.openSync(job.file, "a");
    if (k === 0) process.send({ tag: job.tag, opened: true });
    await sleep(step.pause);
    fs.writeSync(fd, JSON.stringify({ type: "custom", customType: "late", id: job.tag + "-" + k, data: { n: k } }) + "\\n");
    fs.closeSync(fd);
    await sleep(step.gap);
  }
  process.send({ tag: job.tag, done: true });
});
process.send({ ready: true });
`;

/** One step of a writer's job: open, wait `pause` ms, write a line, close, wait `gap` ms. */
export interface WriterStep {
  pause: number;
  gap: number;
}

/** A writer process running jobs on many files at once. */
export interface LateWriter {
  pid: number;
  /** Runs `steps` on `file`; `opened` resolves when the first open is done, `done` when the last line is written. */
  run(file: string, steps: WriterStep[]): { opened: Promise<void>; done: Promise<void> };
  /** Ends the process (by its pid) and waits for it. */
  stop(): Promise<void>;
}

/** Starts a writer process; resolves once it listens. */
export async function startLateWriter(): Promise<LateWriter> {
  const child: ChildProcess = spawn(process.execPath, ["-e", WRITER], {
    stdio: ["ignore", "ignore", "inherit", "ipc"],
  });
  const waiting = new Map<string, () => void>();
  child.on("message", (m: { tag?: string; opened?: boolean; done?: boolean; ready?: boolean }) => {
    const key = m.ready ? "ready" : `${m.tag}:${m.opened ? "opened" : "done"}`;
    waiting.get(key)?.();
    waiting.delete(key);
  });
  const when = (key: string) => new Promise<void>((resolve) => waiting.set(key, resolve));
  await when("ready");
  let next = 0;
  return {
    pid: child.pid as number,
    run(file, steps) {
      const tag = `job${next++}`;
      const opened = when(`${tag}:opened`);
      const done = when(`${tag}:done`);
      child.send({ tag, file, steps });
      return { opened, done };
    },
    async stop() {
      const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
      child.kill("SIGTERM");
      await exited;
    },
  };
}

/** What one race left. */
export interface LateRaceOutcome {
  status: string;
  reason: string | undefined;
  /** Writer lines missing from the file. */
  lost: number;
  /** The writer's lines are not in the order written. */
  reordered: boolean;
  duplicated: boolean;
  /** Lines of the session itself (not the writer's) that are missing. */
  sessionLinesLost: number;
}

/** Options of {@link raceLateWriter}. */
export interface LateRaceOptions {
  dir: string;
  name: string;
  writer: LateWriter;
  store: ArtifactStore;
  steps: WriterStep[];
  /** When the clean starts: ms after the writer's first open, or once that open is done (`0`). */
  cleanAfterMs: number;
}

/** Runs one clean of a fresh bloated session against a writer running `steps` on it. */
export async function raceLateWriter(options: LateRaceOptions): Promise<LateRaceOutcome> {
  const session = bloatedSession({ turns: 1, outputChars: 6_000, answerChars: 100, sessionId: options.name });
  const file = path.join(options.dir, `${options.name}.jsonl`);
  await fsp.writeFile(file, session.text, { mode: 0o600 });
  const sessionLines = session.text.split("\n").filter(Boolean).length;
  const job = options.writer.run(file, options.steps);
  await job.opened;
  if (options.cleanAfterMs > 0) await new Promise((r) => setTimeout(r, options.cleanAfterMs));
  const result = await cleanSessionFile({
    file,
    agentId: "main",
    store: options.store,
    dryRun: false,
    settings: resolveAgentSettings(parseConfig({}), "main"),
  });
  await job.done;
  const lines = (await fsp.readFile(file, "utf8")).split("\n").filter(Boolean);
  const ns = lines
    .filter((l) => l.includes('"customType":"late"'))
    .map((l) => (JSON.parse(l) as { data: { n: number } }).data.n);
  return {
    status: result.status,
    reason: result.reason,
    lost: options.steps.length - new Set(ns).size,
    reordered: !ns.every((n, i) => i === 0 || n > (ns[i - 1] as number)),
    duplicated: new Set(ns).size !== ns.length,
    sessionLinesLost: sessionLines - (lines.length - ns.length),
  };
}
