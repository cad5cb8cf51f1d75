// Deterministic tool-output bodies of a given size: JSON API responses with
// whole schemas, service logs, HTML pages, test runs and short command output.
import { int, pick } from "./rng.mjs";

const WORDS =
  "order invoice customer refund payment ledger account balance status queue worker batch shard region cache session token retry timeout webhook export import report metric latency build deploy release branch commit review schema field record index table migration".split(
    " ",
  );
const w = (rng) => pick(rng, WORDS);

function fill(size, next) {
  const parts = [];
  let n = 0;
  while (n < size) {
    const part = next();
    parts.push(part);
    n += part.length;
  }
  return parts.join("").slice(0, size);
}

function jsonSchema(rng, depth = 0) {
  const props = {};
  const n = int(rng, 4, 9);
  for (let i = 0; i < n; i++) {
    const name = `${w(rng)}${i > 0 ? `_${w(rng)}` : ""}`;
    props[name] =
      depth < 2 && rng() < 0.25
        ? {
            type: "object",
            description: `The ${w(rng)} of the ${w(rng)}.`,
            properties: jsonSchema(rng, depth + 1).properties,
            required: [],
          }
        : {
            type: pick(rng, ["string", "integer", "boolean", "number"]),
            description: `${w(rng)} ${w(rng)} of this ${w(rng)}; see the ${w(rng)} docs.`,
            ...(rng() < 0.3 ? { format: pick(rng, ["date-time", "uuid", "uri"]) } : {}),
          };
  }
  return { type: "object", properties: props, required: Object.keys(props).slice(0, 2) };
}

/** A JSON API response: `$schema`, `definitions` with schemas, and a data array, pretty or minified. */
function json(requested, rng) {
  const pretty = rng() < 0.5;
  // Pretty printing adds ~35%: generate less so the output stays near the requested size.
  const size = pretty ? Math.floor(requested / 1.35) : requested;
  const definitions = {};
  const body = {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    definitions,
    data: [],
    page: { size: 0, next: null },
  };
  const budgetSchemas = Math.floor(size * (0.2 + rng() * 0.4));
  let schemaChars = 0;
  for (let i = 0; schemaChars < budgetSchemas && i < 400; i++) {
    const s = jsonSchema(rng);
    definitions[`${w(rng)}_${i}`] = s;
    schemaChars += JSON.stringify(s).length;
  }
  let dataChars = 0;
  const dataBudget = size - schemaChars;
  while (dataChars < dataBudget) {
    const rec = {
      id: `${w(rng)}_${Math.floor(rng() * 1e9).toString(36)}`,
      status: pick(rng, ["ok", "pending", "failed"]),
      amount: Math.round(rng() * 1e6) / 100,
      [w(rng)]: w(rng),
      updated: new Date(1_780_000_000_000 + Math.floor(rng() * 1e10)).toISOString(),
      tags: [w(rng), w(rng)],
    };
    body.data.push(rec);
    dataChars += JSON.stringify(rec).length + 1;
  }
  body.page.size = body.data.length;
  return pretty ? JSON.stringify(body, null, 2) : JSON.stringify(body);
}

function log(size, rng) {
  let ms = 1_780_000_000_000 + Math.floor(rng() * 1e9);
  return fill(size, () => {
    ms += int(rng, 1, 4000);
    const level = rng() < 0.04 ? "ERROR" : rng() < 0.15 ? "WARN " : "INFO ";
    const extra = level === "ERROR" ? ` error="${w(rng)} ${w(rng)} failed: E${int(rng, 1000, 9999)}"` : "";
    return `${new Date(ms).toISOString()} ${level} [${w(rng)}-${int(rng, 1, 12)}] ${w(rng)} ${w(rng)} id=${Math.floor(rng() * 0xffffffff).toString(16)} took=${int(rng, 1, 900)}ms${extra}\n`;
  });
}

function html(size, rng) {
  const head = `<!doctype html><html><head><meta charset="utf-8"><title>${w(rng)} ${w(rng)}</title><style>.card{margin:4px;padding:8px}.${w(rng)}{color:#333}</style></head><body>\n`;
  const body = fill(
    Math.max(0, size - head.length),
    () =>
      `<div class="card ${w(rng)}" data-id="${int(rng, 1, 1e6)}"><h3>${w(rng)} ${w(rng)}</h3><p>The ${w(rng)} ${w(rng)} was ${w(rng)} by the ${w(rng)}.</p><a href="https://example.com/${w(rng)}/${int(rng, 1, 9999)}?ref=${w(rng)}">${w(rng)}</a></div>\n`,
  );
  return head + body;
}

function testRun(size, rng) {
  return fill(size, () => {
    const ok = rng() > 0.02;
    return ok
      ? `  ✓ ${w(rng)} ${w(rng)} › handles ${w(rng)} ${w(rng)} (${int(rng, 1, 120)} ms)\n`
      : `  ✗ ${w(rng)} › rejects ${w(rng)}\n    AssertionError: expected ${int(rng, 0, 99)} to equal ${int(rng, 100, 199)}\n      at test/${w(rng)}.test.ts:${int(rng, 1, 400)}:${int(rng, 1, 80)}\n`;
  });
}

/** Kinds of generated tool output and the tool that typically produces each. */
export const OUTPUT_KINDS = {
  json: {
    tool: "http_get",
    make: json,
    args: (rng) => ({ url: `https://api.example.com/v2/${w(rng)}s?limit=${int(rng, 50, 500)}` }),
  },
  log: {
    tool: "exec",
    make: log,
    args: (rng) => ({ command: `kubectl logs deploy/${w(rng)}-${w(rng)} --since=${int(rng, 1, 48)}h` }),
  },
  html: {
    tool: "web_fetch",
    make: html,
    args: (rng) => ({ url: `https://docs.example.com/${w(rng)}/${w(rng)}.html` }),
  },
  test: { tool: "exec", make: testRun, args: (rng) => ({ command: `npm test -- ${w(rng)}` }) },
};

/** A short prose sentence list of about `chars` characters. */
export function prose(rng, chars) {
  return fill(
    chars,
    () =>
      `The ${w(rng)} ${w(rng)} ${pick(rng, ["looks fine", "needs a retry", "failed twice", "is slow", "was updated"])} after the ${w(rng)} ${w(rng)}. `,
  ).trim();
}
