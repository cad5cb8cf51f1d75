/**
 * Which host line is calling. Every line from 2026.4.24 hands plugins
 * `api.runtime.version`; when that is missing (a stripped runtime, a test host), the
 * `openclaw` package.json above the host's own entry script (`process.argv[1]`)
 * says it; the factory argument's shape is the last resort (absent on 2026.4.x).
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { hostLineOf, type HostLine } from "./host-lines.js";

/** The detected host and how it was told. */
export interface DetectedHost {
  line: HostLine;
  version: string | undefined;
  source: "runtime" | "package" | "factory-shape";
}

/** `api.runtime.version` when it is a version string. */
export function runtimeVersionOf(api: unknown): string | undefined {
  const runtime = api && typeof api === "object" ? (api as { runtime?: unknown }).runtime : undefined;
  if (!runtime || typeof runtime !== "object") return undefined;
  try {
    const v = (runtime as { version?: unknown }).version;
    return typeof v === "string" && hostLineOf(v) ? v : undefined;
  } catch {
    return undefined;
  }
}

/** The folder of the `openclaw` package that holds `entry`, and its version (walks up to 8 folders). */
function packageNear(entry: string | undefined): { root: string; version: string } | undefined {
  if (!entry) return undefined;
  let dir = path.dirname(path.resolve(entry));
  for (let i = 0; i < 8; i++) {
    try {
      const pkg = JSON.parse(readFileSync(path.join(dir, "package.json"), "utf8")) as {
        name?: unknown;
        version?: unknown;
      };
      if (pkg.name === "openclaw" && typeof pkg.version === "string") return { root: dir, version: pkg.version };
    } catch {
      // no package.json here
    }
    const up = path.dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  return undefined;
}

/** The version of the `openclaw` package that holds `entry`. */
export function packageVersionNear(entry: string | undefined): string | undefined {
  return packageNear(entry)?.version;
}

/** The folder of the `openclaw` package that holds `entry`. */
export function packageRootNear(entry: string | undefined): string | undefined {
  return packageNear(entry)?.root;
}

/**
 * Detects the line from what the plugin was handed. `runtimeVersion` is the value
 * register() read from `api.runtime.version`; `factoryContext` the factory's argument.
 */
export function detectHost(
  runtimeVersion: string | undefined,
  factoryContext: unknown,
  entry: string | undefined = process.argv[1],
): DetectedHost {
  const fromRuntime = hostLineOf(runtimeVersion);
  if (fromRuntime) return { line: fromRuntime, version: runtimeVersion, source: "runtime" };
  const pkgVersion = packageVersionNear(entry);
  const fromPackage = hostLineOf(pkgVersion);
  if (fromPackage) return { line: fromPackage, version: pkgVersion, source: "package" };
  return {
    line: factoryContext && typeof factoryContext === "object" ? "2026.9" : "2026.4",
    version: undefined,
    source: "factory-shape",
  };
}
