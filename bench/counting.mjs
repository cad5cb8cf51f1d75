// Token-counting micro-benchmark: throughput by content kind and size, encoder
// load time in a fresh process, and linearity (time at 1 MB / time at 100 KB;
// ~10 means linear). Needs `npm run build` first (imports dist/).
// Run alone: `node bench/counting.mjs [--json]`; or import { runCountingBench }.
import { spawnSync } from "node:child_process";
import { pathToFileURL } from "node:url";
import { countTextTokens } from "../dist/src/tokens/count-text.js";
import { loadBpeTable } from "../dist/src/tokens/encoder.js";

const ENCODER_URL = new URL("../dist/src/tokens/encoder.js", import.meta.url).href;
const SIZES = [10_000, 100_000, 1_000_000];
const TARGET_1MB_MS = 1000;
const TARGET_LOAD_MS = 1000;

/** xorshift32: deterministic content, so runs compare. */
function rng(seed = 0x2545f491) {
  let x = seed >>> 0;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 4294967296;
  };
}

const WORDS =
  "the of and to in is that it was for on are with as be at by this have from or had not but what all were when we there can an your which their said if will each about how up out them then she many some so these would other into has more her two like him see time could no make than first been its who now people my made over did down only way find use may water long little very after words called just where most know".split(
    " ",
  );

function fill(size, next) {
  const parts = [];
  let length = 0;
  while (length < size) {
    const part = next();
    parts.push(part);
    length += part.length;
  }
  return parts.join("").slice(0, size);
}

const KINDS = {
  prose(size, r) {
    return fill(size, () => {
      const n = 6 + Math.floor(r() * 14);
      const words = Array.from({ length: n }, () => WORDS[Math.floor(r() * WORDS.length)]);
      const s = words.join(" ");
      return `${s[0].toUpperCase()}${s.slice(1)}${r() < 0.2 ? ",\n" : ". "}`;
    });
  },
  code(size, r) {
    let i = 0;
    return fill(size, () => {
      i++;
      const name = `${WORDS[Math.floor(r() * WORDS.length)]}Handler${i}`;
      return `export async function ${name}(input: Record<string, unknown>, limit = ${Math.floor(r() * 1000)}): Promise<number> {\n  const items = Object.entries(input).filter(([k, v]) => k.startsWith("${WORDS[i % WORDS.length]}") && v != null);\n  if (items.length > limit) throw new Error(\`too many: \${items.length}\`);\n  return items.reduce((acc, [, v]) => acc + Number(v), 0); // ${i}\n}\n\n`;
    });
  },
  "minified-json"(size, r) {
    return fill(
      size,
      () =>
        JSON.stringify({
          id: Math.floor(r() * 1e9),
          name: WORDS[Math.floor(r() * WORDS.length)],
          ok: r() < 0.5,
          score: Math.round(r() * 1e6) / 1e3,
          tags: [WORDS[Math.floor(r() * 50)], WORDS[Math.floor(r() * 50)]],
          meta: { created: "2026-09-06T12:00:00Z", ref: Math.floor(r() * 0xffffffff).toString(16) },
        }) + ",",
    );
  },
  base64(size, r) {
    const bytes = Buffer.alloc(Math.ceil((size * 3) / 4) + 3);
    for (let i = 0; i < bytes.length; i++) bytes[i] = Math.floor(r() * 256);
    return bytes.toString("base64").slice(0, size);
  },
  html(size, r) {
    return fill(size, () => {
      const w = () => WORDS[Math.floor(r() * WORDS.length)];
      return `<div class="card ${w()}-${w()}" data-id="${Math.floor(r() * 1e6)}"><a href="https://example.com/${w()}/${w()}?q=${w()}&amp;p=${Math.floor(r() * 99)}">${w()} ${w()}</a><span style="color:#${Math.floor(
        r() * 0xffffff,
      )
        .toString(16)
        .padStart(6, "0")}">${w()} ${w()} ${w()}</span></div>\n`;
    });
  },
  log(size, r) {
    let ms = Date.UTC(2026, 8, 6);
    return fill(size, () => {
      ms += Math.floor(r() * 5000);
      const level = r() < 0.1 ? "ERROR" : r() < 0.3 ? "WARN " : "INFO ";
      return `${new Date(ms).toISOString()} ${level} [${WORDS[Math.floor(r() * 40)]}] request id=${Math.floor(r() * 0xffffffff).toString(16)} status=${r() < 0.9 ? 200 : 500} took ${Math.floor(r() * 900)}ms path=/api/v1/${WORDS[Math.floor(r() * WORDS.length)]}\n`;
    });
  },
  "one-char-run"(size) {
    return "x".repeat(size);
  },
};

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/** Encoder load in a fresh Node process (the number a cold gateway pays). */
function measureFreshLoad(encoding) {
  const script = `const t=performance.now();const m=await import(${JSON.stringify(ENCODER_URL)});m.loadBpeTable(${JSON.stringify(encoding)});console.log(JSON.stringify({ms:performance.now()-t,heapMB:process.memoryUsage().heapUsed/1048576}));`;
  const child = spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" });
  if (child.status !== 0) return { ms: null, heapMB: null, error: child.stderr.trim().slice(0, 300) };
  return JSON.parse(child.stdout.trim());
}

/**
 * Runs the counting benchmark; returns a JSON-able result.
 * @param {{ sizes?: number[], kinds?: string[], log?: (line: string) => void }} [options]
 */
export function runCountingBench(options = {}) {
  const sizes = options.sizes ?? SIZES;
  const kinds = options.kinds ?? Object.keys(KINDS);
  const log = options.log ?? (() => {});
  const encoderLoad = { o200k_base: measureFreshLoad("o200k_base"), cl100k_base: measureFreshLoad("cl100k_base") };
  log(
    `encoder load (fresh process): o200k_base ${fmt(encoderLoad.o200k_base.ms)} ms, cl100k_base ${fmt(encoderLoad.cl100k_base.ms)} ms`,
  );
  loadBpeTable("o200k_base");

  const rows = [];
  for (const kind of kinds) {
    for (const size of sizes) {
      const text = KINDS[kind](size, rng());
      const bytes = Buffer.byteLength(text, "utf8");
      const reps = size <= 100_000 ? 5 : 3;
      const times = [];
      let tokens = 0;
      for (let i = 0; i < reps; i++) {
        const started = performance.now();
        tokens = countTextTokens(text);
        times.push(performance.now() - started);
      }
      const ms = median(times);
      const row = {
        kind,
        bytes,
        tokens,
        ms: round(ms),
        mbPerSec: round(bytes / 1_048_576 / (ms / 1000)),
        bytesPerToken: round(bytes / tokens),
      };
      rows.push(row);
      log(
        `${kind.padEnd(14)} ${String(bytes).padStart(8)} B  ${String(tokens).padStart(7)} tok  ${fmt(ms).padStart(8)} ms  ${fmt(row.mbPerSec).padStart(7)} MB/s`,
      );
    }
  }

  const linearity = kinds.map((kind) => {
    const at = (size) => rows.find((r) => r.kind === kind && r.bytes === size);
    const small = at(100_000);
    const large = at(1_000_000);
    return { kind, ratio1MBto100KB: small && large ? round(large.ms / small.ms) : null };
  });
  for (const l of linearity)
    log(`linearity ${l.kind.padEnd(14)} time(1MB)/time(100KB) = ${l.ratio1MBto100KB} (10 = linear)`);

  const large = rows.filter((r) => r.bytes >= 1_000_000).map((r) => r.ms);
  const worst1MB = large.length > 0 ? Math.max(...large) : null;
  const result = {
    name: "token-counting",
    node: process.version,
    encoderLoad,
    rows,
    linearity,
    targets: {
      count1MBAnyContentMs: {
        target: TARGET_1MB_MS,
        measured: worst1MB === null ? null : round(worst1MB),
        pass: worst1MB === null ? null : worst1MB <= TARGET_1MB_MS,
      },
      encoderLoadMs: {
        target: TARGET_LOAD_MS,
        measured: encoderLoad.o200k_base.ms && round(encoderLoad.o200k_base.ms),
        pass: (encoderLoad.o200k_base.ms ?? Infinity) <= TARGET_LOAD_MS,
      },
    },
  };
  if (worst1MB !== null)
    log(
      `target: 1 MB of any content <= ${TARGET_1MB_MS} ms: worst ${fmt(worst1MB)} ms ${worst1MB <= TARGET_1MB_MS ? "PASS" : "FAIL"}`,
    );
  return result;
}

function round(n) {
  return Math.round(n * 100) / 100;
}

function fmt(n) {
  return n == null ? "n/a" : n.toFixed(1);
}

if (process.argv[1] && pathToFileURL(process.argv[1]).href === import.meta.url) {
  const json = process.argv.includes("--json");
  const result = runCountingBench({ log: json ? undefined : (line) => console.log(line) });
  if (json) console.log(JSON.stringify(result, null, 2));
}
