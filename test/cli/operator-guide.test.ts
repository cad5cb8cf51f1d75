import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { CHECKPOINT_LIST_SCHEMA, CHECKPOINT_SHOW_SCHEMA } from "../../src/cli/inspect/checkpoint.js";
import { DOCTOR_SCHEMA } from "../../src/cli/doctor/doctor.js";
import { EXPORT_SCHEMA } from "../../src/cli/sessions/export.js";
import { SESSION_CLEAN_SCHEMA } from "../../src/cli/sessions/session.js";
import { STATUS_SCHEMA } from "../../src/cli/inspect/status.js";
import { readBlock } from "../../src/config/doc-block.js";
import { listConfigOptions, renderConfigReference } from "../../src/config/reference.js";

const guide = readFileSync(new URL("../../docs/operator-guide.md", import.meta.url), "utf8");

describe("docs/operator-guide.md", () => {
  it("carries the config reference generated from the schema", () => {
    expect(readBlock(guide)).toBe(renderConfigReference());
    expect(listConfigOptions().length).toBeGreaterThan(30);
  });

  it("documents every operator command with an example and its JSON schema", () => {
    for (const heading of [
      "### `context-ledger status",
      "### `context-ledger session clean`",
      "### `context-ledger checkpoint list | show`",
      "### `context-ledger doctor",
      "### `context-ledger artifact",
      "### `context-ledger export",
    ]) {
      expect(guide).toContain(heading);
    }
    for (const example of [
      "$ context-ledger status",
      "$ context-ledger session clean --all --dry-run",
      "$ context-ledger checkpoint list",
      "$ context-ledger checkpoint show",
      "$ context-ledger doctor --fix",
      "$ context-ledger export --session",
    ]) {
      expect(guide).toContain(example);
    }
    for (const schema of [
      STATUS_SCHEMA,
      SESSION_CLEAN_SCHEMA,
      CHECKPOINT_LIST_SCHEMA,
      CHECKPOINT_SHOW_SCHEMA,
      DOCTOR_SCHEMA,
      EXPORT_SCHEMA,
    ])
      expect(guide).toContain(schema);
  });

  it("explains install, per-agent enablement and the debt signal", () => {
    for (const text of [
      "openclaw plugins install",
      'slots: { contextEngine: "context-ledger" }',
      "scratch: { enabled: false }",
      "debt never blocks or shrinks a prompt",
      "max(0, raw - budget)",
      "maintain()",
    ]) {
      expect(guide).toContain(text);
    }
  });

  it("tells an operator how to turn the plugin off without losing outputs, and what stays behind", () => {
    const section = guide.slice(guide.indexOf("## 6. Turning context-ledger off without losing outputs"));
    expect(section.length).toBeGreaterThan(1_000);
    for (const text of [
      "context-ledger export --agent ID --session KEY --out DIR",
      "context-ledger doctor",
      "$OPENCLAW_STATE_DIR/context-ledger/",
      "artifacts/",
      "references.jsonl",
      "logs/events.jsonl",
    ])
      expect(section).toContain(text);
  });
});
