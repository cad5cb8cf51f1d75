import { promises as fsp } from "node:fs";
import { tryParseJson } from "../../json.js";

/** The fields of a `package.json` the operator commands read. */
export interface PackageJson {
  name?: unknown;
  version?: unknown;
  bin?: unknown;
}

/** The `package.json` at `file`, or undefined when it cannot be read or is not a JSON object. */
export async function readPackageJson(file: string): Promise<PackageJson | undefined> {
  const text = await fsp.readFile(file, "utf8").catch(() => undefined);
  const doc = text === undefined ? undefined : tryParseJson(text);
  return doc !== null && typeof doc === "object" ? (doc as PackageJson) : undefined;
}
