import { isNotFound } from "../errors.js";
import { promises as fsp } from "node:fs";
import path from "node:path";
import { decodeSegment } from "./paths.js";

/**
 * Agent ids that have a folder under the ledger root (`agents/<segment>`),
 * sorted; empty when there is none yet. Used to resolve `readableAgents: ["*"]`.
 */
export async function listAgentIds(root: string): Promise<string[]> {
  let names: string[];
  try {
    names = await fsp.readdir(path.join(root, "agents"));
  } catch (err) {
    if (isNotFound(err)) return [];
    throw err;
  }
  return names
    .filter((n) => !n.startsWith("."))
    .map(decodeSegment)
    .sort();
}
