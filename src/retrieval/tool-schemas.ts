/** JSON schema of `ledger_fetch` parameters (flat, no anyOf: every provider accepts it). */
export const FETCH_PARAMETERS: Record<string, unknown> = {
  type: "object",
  additionalProperties: false,
  properties: {
    handle: {
      type: "string",
      description:
        "The artifact handle from a `[context-ledger artifact ...]` stub: `ledger:v1:sha256:<64 hex>` (the `ledger:` prefix may be left out).",
    },
    toolCallId: {
      type: "string",
      description: "Instead of handle: the id of an earlier tool call of this session whose output the host cut.",
    },
    lines: {
      type: "string",
      description:
        'Shorthand for a line range, 1-based and inclusive: "1200-1210", or "1200" for one line. Use instead of `selector`.',
    },
    selector: {
      type: "object",
      description:
        "What to return. kind: headtail (default) | head {lines} | tail {lines} | grep {pattern, flags, context} | range {start, end} | json {path}.",
      additionalProperties: false,
      required: ["kind"],
      properties: {
        kind: { type: "string", enum: ["headtail", "head", "tail", "grep", "range", "json"] },
        lines: { type: "integer", minimum: 1, description: "head/tail: number of lines." },
        pattern: {
          type: "string",
          description: "grep: a regular expression matched line by line (no backreferences or nested repeats).",
        },
        flags: { type: "string", description: "grep: `i` to ignore case." },
        context: { type: "integer", minimum: 0, maximum: 20, description: "grep: lines of context around each match." },
        start: { type: "integer", minimum: 1, description: "range: first line (1-based)." },
        end: { type: "integer", minimum: 1, description: "range: last line (inclusive)." },
        path: { type: "string", description: "json: JSONPath subset: $, .key, ['key'], [n], [-1], [*], .*" },
      },
    },
    maxChars: {
      type: "integer",
      minimum: 1,
      maximum: 20000,
      description: "Cap of the answer (default 8000, at most 20000).",
    },
  },
};

/** JSON schema of `ledger_peek` parameters. */
export const PEEK_PARAMETERS: Record<string, unknown> = {
  type: "object",
  additionalProperties: false,
  required: ["handle"],
  properties: {
    handle: { type: "string", description: "The artifact handle, exactly `ledger:v1:sha256:<64 lowercase hex>`." },
    previewChars: { type: "integer", minimum: 300, maximum: 800, description: "Preview size (default 600)." },
  },
};

/** JSON schema of `ledger_search` parameters. */
export const SEARCH_PARAMETERS: Record<string, unknown> = {
  type: "object",
  additionalProperties: false,
  required: ["query"],
  properties: {
    query: { type: "string", description: "Text to find, matched case-insensitively line by line." },
    regex: {
      type: "boolean",
      description: "Treat `query` as a regular expression (no backreferences or nested repeats). Default false.",
    },
    maxResults: { type: "integer", minimum: 1, maximum: 100, description: "Matching lines at most (default 20)." },
  },
};
