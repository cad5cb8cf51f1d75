// Helpers shared by the reliability worker processes: a seeded PRNG, deterministic
// contents, synchronous journals (they survive SIGKILL), and a logger that keeps lines.
import { appendFileSync, readFileSync } from "node:fs";
import { prng } from "../../support/prng.ts";

export { prng };

/** A deterministic text of `chars` chars for a label. */
export function contentFor(label, chars) {
  const rand = prng(hashString(label));
  const parts = [`${label}\n`];
  let n = parts[0].length;
  while (n < chars) {
    const line = `${label} line ${Math.floor(rand() * 1e9)} value=${Math.floor(rand() * 1e6)} status=${rand() < 0.1 ? "FAIL" : "ok"}\n`;
    parts.push(line);
    n += line.length;
  }
  return parts.join("").slice(0, chars);
}

export function hashString(s) {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
  return h >>> 0;
}

/** Appends one line synchronously: written before the next step, so a kill cannot reorder it. */
export function journal(file, fields) {
  appendFileSync(file, `${JSON.stringify(fields)}\n`);
}

/** Reads a journal, ignoring a torn last line. */
export function readJournal(file) {
  let text;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    return [];
  }
  const out = [];
  for (const line of text.split("\n")) {
    if (!line) continue;
    try {
      out.push(JSON.parse(line));
    } catch {
      // torn write of a killed process
    }
  }
  return out;
}

/** A host-style logger keeping its lines. */
export function memoryLogger() {
  const lines = [];
  const push = (level) => (m) => void lines.push(`${level} ${m}`);
  return { lines, logger: { debug: () => undefined, info: push("info"), warn: push("warn"), error: push("error") } };
}

/** The three messages of one tool turn whose output is `output`. */
export function toolTurn(tag, output) {
  const ts = Date.now();
  return [
    { role: "user", content: `run step ${tag}`, timestamp: ts },
    {
      role: "assistant",
      content: [{ type: "toolCall", id: `call-${tag}`, name: "exec", arguments: { command: `step ${tag}` } }],
      api: "openai-completions",
      provider: "mock",
      model: "m",
      usage: {},
      stopReason: "toolUse",
      timestamp: ts,
    },
    {
      role: "toolResult",
      toolCallId: `call-${tag}`,
      toolName: "exec",
      content: [{ type: "text", text: output }],
      isError: false,
      timestamp: ts,
    },
  ];
}

/** The messages of the turn committed under `key`: the same for every retry of that key. */
export function turnFor(key) {
  return toolTurn(key, contentFor(`turn-${key}`, hashString(key) % 2 === 0 ? 12_000 : 600));
}
