/**
 * Handles a person can type: a handle's first hex digits stand for it where they
 * start exactly one handle among those the caller may read. Every front end (the
 * chat command, the CLI, `ledger_fetch`) resolves through {@link resolveHandleRef}
 * with its own candidates, so scope stays the caller's business.
 */
import { describeValue, LedgerError } from "../../errors.js";
import { formatHandle, HANDLE_PREFIX, isHandle } from "../format/handle.js";

export { SHORT_HANDLE_DIGITS, shortHandleOf } from "../format/handle.js";
import type { ArtifactMeta } from "../format/meta.js";

/** Fewest hex digits a handle prefix may have. */
export const MIN_HANDLE_PREFIX_DIGITS = 8;
/** Candidates listed in an ambiguity error at most. */
const MAX_LISTED = 10;

/** A handle as typed: a whole handle, or the first hex digits of one. */
export type HandleRef = { handle: string } | { prefix: string };

/**
 * Reads what a person typed for a handle: the whole `ledger:v1:sha256:<64 hex>` (any
 * leading part of that prefix may be left out), or at least
 * {@link MIN_HANDLE_PREFIX_DIGITS} of its hex digits, either case; backticks and spaces
 * around it ignored. Throws `handle_invalid` for anything else, saying what was wrong.
 */
export function parseHandleRef(text: unknown): HandleRef {
  if (typeof text !== "string")
    throw invalid(
      `Expected a handle or at least ${MIN_HANDLE_PREFIX_DIGITS} of its hex digits, got ${describeValue(text)}`,
    );
  const typed = text.trim().replace(/^`+|`+$/g, "");
  const digits = typed.replace(/^(?:ledger:)?(?:v1:)?(?:sha256:)?/, "");
  const bad = /[^0-9a-f]/i.exec(digits);
  if (bad)
    throw invalid(
      `Expected a handle (${HANDLE_PREFIX}<64 hex>) or at least ${MIN_HANDLE_PREFIX_DIGITS} of its hex digits, got non-hex \`${bad[0]}\` in ${describeValue(typed)}`,
    );
  if (digits.length < MIN_HANDLE_PREFIX_DIGITS)
    throw invalid(
      `Expected at least ${MIN_HANDLE_PREFIX_DIGITS} hex digits of a handle (e.g. \`3f2a9c0d\`), got ${digits.length} in ${describeValue(typed)}`,
    );
  if (digits.length > 64)
    throw invalid(`Expected at most 64 hex digits, got ${digits.length} in ${describeValue(typed)}`);
  // A short form is bare hex digits; text that spells the scheme claims to be a whole handle.
  if (digits !== typed && (text !== typed || digits.length !== 64 || digits !== digits.toLowerCase()))
    throw invalid(`Expected ${HANDLE_PREFIX}<64 lowercase hex>, got ${describeValue(typed)}`);
  const hex = digits.toLowerCase();
  return hex.length === 64 ? { handle: formatHandle(hex) } : { prefix: hex };
}

/** Options of {@link resolveHandleRef}. */
export interface ResolveHandleOptions {
  /** Says where the candidates come from in errors, e.g. "in this chat's session". @default "in the store" */
  where?: string;
}

/**
 * The handle `text` stands for among `candidates` (handles the caller may read, duplicates
 * allowed): a whole handle is returned as typed (the caller checks it as before); a prefix must
 * start exactly one candidate. Throws `handle_invalid` when the text is no handle or prefix
 * ({@link parseHandleRef}) or the prefix is ambiguous (the candidates listed),
 * `artifact_not_found` when it starts none.
 */
export async function resolveHandleRef(
  text: unknown,
  candidates: () => Iterable<string> | AsyncIterable<string>,
  options: ResolveHandleOptions = {},
): Promise<string> {
  const ref = parseHandleRef(text);
  if ("handle" in ref) return ref.handle;
  const where = options.where ?? "in the store";
  const found = new Set<string>();
  for await (const handle of candidates())
    if (isHandle(handle) && handle.startsWith(ref.prefix, HANDLE_PREFIX.length)) found.add(handle);
  const [only] = found;
  if (found.size === 1 && only) return only;
  if (found.size === 0)
    throw new LedgerError(
      "artifact_not_found",
      `Expected an output ${where} whose handle starts with \`${ref.prefix}\`, got none`,
    );
  const listed = [...found].sort().slice(0, MAX_LISTED);
  throw invalid(
    `Expected \`${ref.prefix}\` to start one handle ${where}, got ${found.size}: ${listed.join(", ")}${found.size > MAX_LISTED ? ", …" : ""}; type more of its digits`,
  );
}

/** The handles of a store's artifacts (its listing), those `keep` accepts when given. */
export async function* listedHandles(
  store: { list(): AsyncIterable<ArtifactMeta> },
  keep: (meta: ArtifactMeta) => boolean = () => true,
): AsyncIterable<string> {
  for await (const meta of store.list()) if (keep(meta)) yield meta.handle;
}

function invalid(message: string): LedgerError {
  return new LedgerError("handle_invalid", message);
}
