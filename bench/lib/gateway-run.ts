/**
 * What the gateway benchmarks share (long haul, sessions at once): the turn's `exec` command drawn from real programs
 * on the machine, calling a plugin tool directly or through Tool Search, and the figures read off a running gateway
 * (its process group's RSS, the plugin's state and store bytes).
 */
import { execFileSync } from "node:child_process";
import { promises as fsp } from "node:fs";
import path from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import type { MockReply, MockRequest } from "../../test/host/mock-model.js";
import { printCharsCommand } from "../../test/host/mock-scripts.js";
import { round } from "./stats.mjs";

/** This repository's root: the source of real outputs (`git log -p`, `package-lock.json`, ...). */
export const REPO = fileURLToPath(new URL("../../", import.meta.url));
const MB = 1_048_576;

/** The exec command of turn `n`: a rotation of real programs and generated logs, 200 chars to 1 MB. */
export function commandOf(n: number, html: string | undefined): string {
  const node = process.execPath;
  const git = `git -C ${REPO} log -p --no-color`;
  const kinds = [
    `${git} -n ${1 + (n % 7)} | head -c ${MB}`,
    printCharsCommand([200, 2_000, 20_000, 60_000, 150_000][n % 5] as number),
    `cat ${path.join(REPO, "openclaw.plugin.json")}`,
    `head -c ${[30_000, 120_000, 400_000][n % 3]} ${path.join(REPO, "package-lock.json")}`,
    html ? `head -c 200000 ${html}` : `cat ${path.join(REPO, "README.md")}`,
    `${node} --help`,
    `ls -laR ${path.join(REPO, "src")} | head -c 80000`,
    // Repeated verbatim: the output of seven turns ago.
    n > 7 ? commandOf(n - 7, html) : `${git} -n 1`,
    `git -C ${REPO} rev-list --count HEAD`,
    n % 20 === 9 ? printCharsCommand(MB) : printCharsCommand(50_000),
  ];
  return kinds[n % kinds.length] as string;
}

/** The tool is offered directly, or (2026.9.x Tool Search) reachable through `tool_call`. */
export const offers = (request: MockRequest, name: string): boolean =>
  request.toolNames.includes(name) || request.toolNames.includes("tool_call");
/** Calls a plugin tool directly when offered, else through Tool Search's `tool_call` envelope. */
export const callTool = (request: MockRequest, name: string, args: Record<string, unknown>): MockReply =>
  request.toolNames.includes(name)
    ? { toolCalls: [{ name, args }] }
    : { toolCalls: [{ name: "tool_call", args: { id: name, args } }] };

/** Bytes under `dir`, split into the artifact store and everything else. */
export async function pluginBytes(dir: string): Promise<{ state: number; store: number }> {
  const out = { state: 0, store: 0 };
  const walk = async (d: string, inStore: boolean): Promise<void> => {
    for (const e of await fsp.readdir(d, { withFileTypes: true }).catch(() => [])) {
      const full = path.join(d, e.name);
      if (e.isDirectory()) await walk(full, inStore || e.name === "artifacts");
      else if (e.isFile()) out[inStore ? "store" : "state"] += (await fsp.stat(full)).size;
    }
  };
  await walk(dir, false);
  return out;
}

/** Resident memory of the gateway's process group, in MB. */
export function groupRssMb(pid: number): number {
  return round(sessionProcesses(pid).reduce((sum, p) => sum + p.rssKb, 0) / 1024);
}

/** The processes of `leader`'s session (the gateway and what it spawned), with resident KB; none if `ps` fails. */
export function sessionProcesses(leader: number): { pid: number; rssKb: number }[] {
  try {
    return execFileSync("ps", ["-o", "pid=,rss=", "-g", String(leader)], { encoding: "utf8" })
      .split("\n")
      .map((line) => line.trim().split(/\s+/).map(Number))
      .filter(([pid, rss]) => Number.isInteger(pid) && Number.isFinite(rss))
      .map(([pid, rssKb]) => ({ pid: pid!, rssKb: rssKb! }));
  } catch {
    return [];
  }
}

/** An HTML page over 20 KB from the installed host package (a real page for the outputs mix). */
export async function findHtml(): Promise<string | undefined> {
  const roots = [path.join(REPO, "node_modules", "openclaw")];
  for (const root of roots) {
    const stack = [root];
    while (stack.length) {
      const d = stack.pop() as string;
      for (const e of await fsp.readdir(d, { withFileTypes: true }).catch(() => [])) {
        const full = path.join(d, e.name);
        if (e.isDirectory()) stack.push(full);
        else if (e.name.endsWith(".html") && (await fsp.stat(full)).size > 20_000) return full;
      }
    }
  }
  return undefined;
}
