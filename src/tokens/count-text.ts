/**
 * Exact BPE token counts of plain text, in O(n log n) time on any input.
 *
 * Why not `length / 4`: the planner promises the assembled prompt never
 * exceeds the budget, and chars-per-token ranges from ~1 (base64, CJK, a
 * random identifier) to 8+ (a run of one letter) — no constant ratio is safe
 * without wasting most of the budget. Why not js-tiktoken's `encode()`: it is
 * quadratic in the length of one pre-token (a 50,000-char run of one letter
 * takes minutes) and slow per byte (seconds for a megabyte of base64).
 *
 * How: the text is split into pre-tokens with the encoding's own regular
 * expression (the same split tiktoken makes), each pre-token is UTF-8
 * encoded and looked up whole, and only a miss is merged, by the O(m log m)
 * heap merge in `tokenizer-bpe.ts`. Nothing is split or estimated, so the
 * count equals `Tiktoken.encode(text, [], []).length` for every input, with
 * one deliberate choice: special-token text such as `<|endoftext|>` is counted
 * as ordinary text (how providers treat it in user content) and never throws.
 * Lone surrogates are counted as U+FFFD (3 bytes), as `TextEncoder` does.
 */
import { Buffer } from "node:buffer";
import { DEFAULT_ENCODING, loadBpeTable, type BpeTable, type EncodingName } from "./encoder.js";
import { createBpeCounter, type BpeCounter } from "./tokenizer-bpe.js";

// eslint-disable-next-line no-control-regex -- the whole ASCII range, NUL included, is the point
const NON_ASCII = /[^\x00-\x7f]/;
// Derived from a process-wide table, so it lives as long as the table does.
const prepared = new WeakMap<BpeTable, { splitter: RegExp; countBpe: BpeCounter }>();

/**
 * Exact number of tokens in `text` under `encoding` (no message framing).
 * Loads the encoding's table on first use. A non-string or empty text is 0.
 * @param encoding @default "o200k_base"
 * @throws {LedgerError} `tokenizer_unavailable` if the table cannot load.
 */
export function countTextTokens(text: string, encoding: EncodingName = DEFAULT_ENCODING): number {
  if (typeof text !== "string" || text.length === 0) return 0;
  return countTextWithTable(text, loadBpeTable(encoding));
}

/**
 * Exact number of tokens in `text` with an already loaded table.
 * @see countTextTokens
 */
export function countTextWithTable(text: string, table: BpeTable): number {
  if (typeof text !== "string" || text.length === 0) return 0;
  let tools = prepared.get(table);
  if (!tools) {
    tools = { splitter: new RegExp(table.pattern, "gu"), countBpe: createBpeCounter(table.ranks, table.maxTokenBytes) };
    prepared.set(table, tools);
  }
  const { splitter, countBpe } = tools;
  const ascii = !NON_ASCII.test(text);
  const countPiece = (piece: string): number => {
    // An ASCII string is already its own UTF-8 binary string.
    const bytes =
      ascii || Buffer.byteLength(piece, "utf8") === piece.length
        ? piece
        : Buffer.from(piece, "utf8").toString("latin1");
    return countBpe(bytes);
  };

  let count = 0;
  let covered = 0;
  splitter.lastIndex = 0;
  for (let match = splitter.exec(text); match !== null; match = splitter.exec(text)) {
    const piece = match[0];
    if (piece.length === 0) {
      splitter.lastIndex++;
      continue;
    }
    // The patterns cover every character; should one ever be skipped, count
    // it anyway (tiktoken would drop it) so the count can only err upward.
    if (match.index > covered) count += countPiece(text.slice(covered, match.index));
    count += countPiece(piece);
    covered = match.index + piece.length;
  }
  if (covered < text.length) count += countPiece(text.slice(covered));
  return count;
}
