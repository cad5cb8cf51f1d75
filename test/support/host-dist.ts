import { existsSync, readdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

/** Installed host packages (9.6 in node_modules, the others in `.cache`), by version. */
export function installedHostDists(): { version: string; dist: string }[] {
  const out: { version: string; dist: string }[] = [];
  const current = path.join(ROOT, "node_modules", "openclaw", "dist");
  if (existsSync(current)) out.push({ version: "2026.9.6", dist: current });
  const cache = path.join(ROOT, ".cache");
  for (const name of existsSync(cache) ? readdirSync(cache) : []) {
    const dist = path.join(cache, name, "node_modules", "openclaw", "dist");
    // An install still under way (the host project's global setup runs beside the unit tests) holds its lock
    // folder and has half its files: only finished installs count.
    const installing = existsSync(path.join(cache, `${name}.install.lock`));
    if (name.startsWith("openclaw-") && existsSync(dist) && !installing)
      out.push({ version: name.slice("openclaw-".length), dist });
  }
  return out;
}

/** A function the host's dist defines, found by its name among a chunk's exports (chunk names are hashed). */
export async function hostFunction<T extends (...args: never[]) => unknown>(
  dist: string,
  chunkPrefix: string,
  fnName: string,
): Promise<T | undefined> {
  for (const file of readdirSync(dist).filter((f) => f.startsWith(chunkPrefix) && /\.m?js$/.test(f))) {
    const mod = (await import(pathToFileURL(path.join(dist, file)).href)) as Record<string, unknown>;
    for (const value of Object.values(mod)) if (typeof value === "function" && value.name === fnName) return value as T;
  }
  return undefined;
}
