/**
 * Writing into the operator's export folder without ever writing elsewhere: names are single path segments, every
 * file goes to a fresh temp file (O_EXCL, O_NOFOLLOW) renamed over its name, so a symlink or hard link planted in
 * the folder is replaced, never written through; each file is read back and hashed after the rename.
 */
import { createHash, randomBytes } from "node:crypto";
import { constants, promises as fsp } from "node:fs";
import { isNotFound } from "../../errors.js";
import path from "node:path";
import { CliFailure, EXIT } from "../core/cli-failure.js";

/**
 * Makes `dir` ready for an export and returns its real path: created 0700 when absent; an existing one must be a
 * real folder (not a symlink), empty unless `force`, and is set to 0700.
 */
export async function prepareExportDir(dir: string, force: boolean, forceHint: string): Promise<string> {
  const stat = await fsp.lstat(dir).catch((err: unknown) => (isNotFound(err) ? null : Promise.reject(err)));
  if (stat?.isSymbolicLink())
    throw new CliFailure(
      "input_invalid",
      `Expected --out to be a folder, got a symlink at ${dir}; name the real folder`,
      EXIT.usage,
    );
  if (stat && !stat.isDirectory())
    throw new CliFailure("input_invalid", `Expected --out to be a folder, got a file at ${dir}`, EXIT.usage);
  if (stat && !force && (await fsp.readdir(dir)).length > 0)
    throw new CliFailure(
      "input_invalid",
      `Expected --out to be a new or empty folder, got ${dir} with files in it`,
      EXIT.usage,
      forceHint,
    );
  await fsp.mkdir(dir, { recursive: true, mode: 0o700 });
  await fsp.chmod(dir, 0o700);
  return fsp.realpath(dir);
}

/**
 * Refuses, before anything is written, a folder where one of `names` is a symlink or not a regular file: replacing
 * it would be safe, but someone put it there, and the operator should look first.
 */
export async function assertNamesWritable(dir: string, names: readonly string[]): Promise<void> {
  const bad: string[] = [];
  for (const name of names) {
    const stat = await fsp.lstat(path.join(dir, name)).catch(() => undefined);
    if (stat && !stat.isFile())
      bad.push(`${path.join(dir, name)} (${stat.isSymbolicLink() ? "symlink" : "not a file"})`);
  }
  if (bad.length > 0)
    throw new CliFailure(
      "input_invalid",
      `Refusing to write through a symlink or over a non-file in --out: ${bad.join(", ")}; remove ${bad.length === 1 ? "it" : "them"} or choose an empty folder`,
      EXIT.usage,
    );
}

/**
 * Writes `bytes` as `dir/name` (0600) and checks, through a no-follow read of the file, that it hashes to `sha256`.
 * Throws `artifact_corrupt` (exit 3) when it does not.
 */
export async function writeVerifiedFile(dir: string, name: string, bytes: Uint8Array, sha256: string): Promise<void> {
  if (name !== path.basename(name) || name === "." || name === ".." || name.startsWith(".tmp-"))
    throw new CliFailure("input_invalid", `Expected a plain file name inside --out, got ${name}`, EXIT.usage);
  const target = path.join(dir, name);
  const temp = path.join(dir, `.tmp-${randomBytes(6).toString("hex")}-${name}`);
  const out = await fsp.open(
    temp,
    constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
    0o600,
  );
  try {
    try {
      await out.chmod(0o600);
      await out.writeFile(bytes);
      await out.sync();
    } finally {
      await out.close();
    }
    await fsp.rename(temp, target);
  } catch (err) {
    await fsp.rm(temp, { force: true });
    throw err;
  }
  const back = await fsp.open(target, constants.O_RDONLY | constants.O_NOFOLLOW);
  let written: string;
  try {
    written = createHash("sha256")
      .update(await back.readFile())
      .digest("hex");
  } finally {
    await back.close();
  }
  if (written !== sha256)
    throw new CliFailure("artifact_corrupt", `Expected ${target} to hash to ${sha256}, got ${written}`, EXIT.corrupt);
}

/** {@link writeVerifiedFile} for a text the exporter made itself (index files). */
export async function writeTextFile(dir: string, name: string, text: string): Promise<void> {
  const bytes = Buffer.from(text, "utf8");
  await writeVerifiedFile(dir, name, bytes, createHash("sha256").update(bytes).digest("hex"));
}
