import { describe, expect, it } from "vitest";
import { matchToolGlob, toolNamesMatcher } from "./tool-names.js";

describe("tool-name globs", () => {
  it("match `*` as any run and `?` as one character, everything else literally", () => {
    expect(matchToolGlob("browser_*", "browser_navigate")).toBe(true);
    expect(matchToolGlob("browser_*", "browser_")).toBe(true);
    expect(matchToolGlob("browser_*", "web_fetch")).toBe(false);
    expect(matchToolGlob("*/create_*", "github/create_issue")).toBe(true);
    expect(matchToolGlob("exe?", "exec")).toBe(true);
    expect(matchToolGlob("exe?", "exe")).toBe(false);
    expect(matchToolGlob("a.b[1]", "a.b[1]")).toBe(true);
    expect(matchToolGlob("a.b[1]", "aXb1")).toBe(false);
    expect(toolNamesMatcher(["read", "mcp_*"])("mcp_x")).toBe(true);
    expect(toolNamesMatcher([])("anything")).toBe(false);
  });

  it("answers a hostile pattern against a long name in pattern × name steps, without backtracking", () => {
    // A regex for this glob backtracks polynomially with a high degree (a 100-char name took minutes).
    const glob = "*a*a*a*a*a*a*a*a*b";
    expect(matchToolGlob(glob, "a".repeat(20_000))).toBe(false);
    expect(matchToolGlob(glob, `${"a".repeat(20_000)}b`)).toBe(true);
  });
});
