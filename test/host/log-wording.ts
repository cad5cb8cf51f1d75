/**
 * Positive controls for the host log patterns (`HOST_LOG_PATTERNS`): a check that a
 * host log line occurs zero times passes vacuously if the host words the line
 * differently. For each pattern and host line this table names the literal text of the
 * line in the host's own source (its dist) and a line as the host writes it (recorded
 * from a run where we have one, e.g. fixtures/host/2026.4.24-reset-loop-host.log,
 * otherwise rendered from the dist template with a run's values). Each line file checks
 * that its host's dist still holds the literals and that the pattern matches the sample.
 */
import { promises as fsp } from "node:fs";
import path from "node:path";
import { HOST_LINES, type HostVersion, type InstalledHost } from "./host-install.js";
import { HOST_LOG_PATTERNS } from "./logs.js";

/** One host log signal the suite counts. */
export type HostLogSignal = keyof typeof HOST_LOG_PATTERNS;

/** How one signal is worded on some host lines. */
export interface Wording {
  lines: readonly HostVersion[];
  /** Text that must all occur in the host's dist (JS) on those lines. */
  literals: readonly string[];
  /** A log line as the host writes it. */
  sample: string;
}

const from = (first: HostVersion, last: HostVersion = "2026.9.6"): HostVersion[] =>
  HOST_LINES.slice(HOST_LINES.indexOf(first), HOST_LINES.indexOf(last) + 1);

/** Per signal, its wordings; a line no wording covers does not have the signal (a zero count there proves nothing). */
export const HOST_LOG_WORDING: Record<HostLogSignal, readonly Wording[]> = {
  precheck: [
    {
      lines: from("2026.4.24", "2026.7.35"),
      literals: ["[context-overflow-precheck] sessionKey="],
      sample:
        "[agent/embedded] [context-overflow-precheck] sessionKey=agent:main:main provider=mock/mock-model route=compact_then_truncate estimatedPromptTokens=17070 promptBudgetBeforeReserve=12000 overflowTokens=5070",
    },
    {
      lines: from("2026.5.28"),
      literals: ["[context-overflow-precheck] pre-prompt check sessionKey="],
      sample:
        "[agent/embedded] [context-overflow-precheck] pre-prompt check sessionKey=agent:main:reset-loop provider=mock/mock-model route=compact_only estimatedPromptTokens=17982 pressureSource=transcript promptBudgetBeforeReserve=15616",
    },
  ],
  overflowDetected: [
    {
      lines: from("2026.4.24", "2026.8.2"),
      literals: ["context overflow detected (attempt "],
      sample:
        "[agent/embedded] context overflow detected (attempt 1/3); attempting auto-compaction for mock/mock-model",
    },
    {
      lines: ["2026.9.6"],
      literals: ['"context overflow"', " detected (attempt ${"],
      sample:
        "[agent/embedded] context overflow detected (attempt 1/3); attempting auto-compaction for mock/mock-model",
    },
  ],
  compactionFailed: [
    {
      lines: ["2026.4.24"],
      literals: ["Auto-compaction failed ("],
      sample:
        "Auto-compaction failed (Context overflow: prompt too large for the model (precheck).). Restarting session agent:main:main -> 2b07f128-e4b3-429b-9209-5b5d5a4713d2 and retrying.",
    },
    {
      lines: from("2026.5.28"),
      literals: ["Auto-compaction failed (", "Preserving existing session mapping"],
      sample:
        "Auto-compaction failed (Context overflow: prompt too large for the model (precheck).). Preserving existing session mapping for agent:main:main.",
    },
  ],
  sessionRestarted: [
    {
      lines: ["2026.4.24"],
      literals: ["). Restarting session ${sessionKey} -> ${nextSessionId}"],
      sample:
        "Auto-compaction failed (Context overflow: prompt too large for the model (precheck).). Restarting session agent:main:main -> 2b07f128-e4b3-429b-9209-5b5d5a4713d2 and retrying.",
    },
    {
      // 5.28+ restart a session only on a role-ordering conflict (a failed compaction keeps the mapping).
      lines: from("2026.5.28"),
      literals: ["ordering conflict (", "Restarting session ${"],
      sample:
        "Role ordering conflict (tool result without call). Restarting session agent:main:main -> 0d6f3a52-8d36-4f0e-9b1b-2f3c8e1e8b11.",
    },
  ],
  compactionSucceeded: [
    {
      lines: from("2026.4.24"),
      literals: ["auto-compaction succeeded"],
      sample: "[agent/embedded] auto-compaction succeeded for mock/mock-model; retrying prompt",
    },
  ],
  degradedToLegacy: [
    {
      lines: from("2026.8.2"),
      literals: ['" degraded to "${', "for this logical turn"],
      sample:
        '[context-engine] Context engine "context-ledger" degraded to "legacy" for this logical turn: missing transcript semantics',
    },
  ],
  resetReply: [
    {
      lines: from("2026.4.24"),
      literals: ["Context limit exceeded. I've reset our conversation to start fresh"],
      sample: "⚠️ Context limit exceeded. I've reset our conversation to start fresh - please try again.",
    },
  ],
  quarantined: [
    {
      lines: from("2026.5.28"),
      literals: ["; quarantining it for this process and falling back to default engine"],
      sample:
        '[context-engine] Context engine "context-ledger" failed during assemble: boom; quarantining it for this process and falling back to default engine "legacy".',
    },
  ],
  engineFailed: [
    {
      lines: from("2026.4.24"),
      literals: ["context engine assemble failed, using pipeline messages: ", "context engine maintain failed ("],
      sample: "[agent/embedded] context engine assemble failed, using pipeline messages: Error: boom",
    },
  ],
};

/** The wordings of `signal` on `version` (empty when the line does not have it). */
export function wordingsOn(signal: HostLogSignal, version: HostVersion): Wording[] {
  return HOST_LOG_WORDING[signal].filter((w) => w.lines.includes(version));
}

/**
 * Throws when counting `signal` on `version` could not see it (no known wording there):
 * call before asserting a zero count, so the assertion cannot pass vacuously.
 */
export function assertWorded(signal: HostLogSignal, version: HostVersion): void {
  if (wordingsOn(signal, version).length === 0) {
    throw new Error(
      `Expected host ${version} to word "${signal}" (see HOST_LOG_WORDING), got no wording: a zero count of it proves nothing there`,
    );
  }
}

/** The JS text of a host's dist (every .js/.mjs outside the Control UI's assets), concatenated per file. */
export async function readHostDist(host: InstalledHost): Promise<string[]> {
  const root = path.join(host.packageDir, "dist");
  const out: string[] = [];
  const entries = await fsp.readdir(root, { recursive: true, withFileTypes: true });
  await Promise.all(
    entries
      .filter((e) => e.isFile() && /\.m?js$/.test(e.name) && !e.parentPath.includes(`${path.sep}control-ui`))
      .map(async (e) => out.push(await fsp.readFile(path.join(e.parentPath, e.name), "latin1"))),
  );
  return out;
}

/** Literals of `version`'s wordings that its dist does not contain (empty when every wording is current). */
export function missingLiterals(
  dist: readonly string[],
  version: HostVersion,
): { signal: HostLogSignal; literal: string }[] {
  const missing: { signal: HostLogSignal; literal: string }[] = [];
  for (const signal of Object.keys(HOST_LOG_WORDING) as HostLogSignal[]) {
    for (const w of wordingsOn(signal, version)) {
      for (const literal of w.literals)
        if (!dist.some((text) => text.includes(literal))) missing.push({ signal, literal });
    }
  }
  return missing;
}
