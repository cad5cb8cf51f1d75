import { describe, expect, it } from "vitest";
import { sharedGcVerdict, type GatewayView } from "./shared-gc-decision.js";

const HOUR = 3_600_000;
const now = 100 * HOUR;
const gw = (id: string, publishedMs: number | undefined, handles: string[] = []): GatewayView => ({
  id,
  publishedMs,
  handles: new Set(handles),
});
const verdict = (gateways: GatewayView[]) =>
  sharedGcVerdict({ now, graceMs: 24 * HOUR, staleMs: 72 * HOUR, citeLagMs: 0, gateways });

describe("sharedGcVerdict", () => {
  it("allows removing an old blob that no gateway cites once every gateway published after its write", () => {
    const v = verdict([gw("a", now - HOUR), gw("b", now - 2 * HOUR)]);
    expect(v.blockedBy).toEqual([]);
    expect(v.mayRemove("x", now - 48 * HOUR)).toBe(true);
  });

  it("keeps a blob that any one gateway's published set names", () => {
    const v = verdict([gw("a", now - HOUR), gw("b", now - HOUR, ["x"])]);
    expect(v.mayRemove("x", now - 48 * HOUR)).toBe(false);
    expect(v.mayRemove("y", now - 48 * HOUR)).toBe(true);
  });

  it("keeps a blob written within the grace period even when nobody cites it", () => {
    const v = verdict([gw("a", now - 1)]);
    expect(v.mayRemove("x", now - 24 * HOUR + 1)).toBe(false);
    expect(v.mayRemove("x", now - 24 * HOUR)).toBe(true);
  });

  it("keeps a blob written after some gateway's latest publication: that gateway has not spoken about it", () => {
    const v = sharedGcVerdict({
      now,
      graceMs: HOUR,
      staleMs: 72 * HOUR,
      citeLagMs: 0,
      gateways: [gw("a", now), gw("b", now - 30 * HOUR)],
    });
    expect(v.mayRemove("x", now - 20 * HOUR)).toBe(false);
    expect(v.mayRemove("x", now - 30 * HOUR)).toBe(false);
    expect(v.mayRemove("x", now - 31 * HOUR)).toBe(true);
  });

  it("takes a gateway's word only for blobs written a cite lag before its publication", () => {
    const v = sharedGcVerdict({
      now,
      graceMs: HOUR,
      staleMs: 72 * HOUR,
      citeLagMs: HOUR,
      gateways: [gw("a", now - 10 * HOUR)],
    });
    expect(v.mayRemove("x", now - 11 * HOUR + 1)).toBe(false);
    expect(v.mayRemove("x", now - 11 * HOUR - 1)).toBe(true);
  });

  it("blocks every removal while a known gateway never published, naming it", () => {
    const v = verdict([gw("a", now - HOUR), gw("b", undefined)]);
    expect(v.blockedBy).toEqual([{ id: "b", reason: "never-published" }]);
    expect(v.mayRemove("x", 0)).toBe(false);
  });

  it("blocks every removal while a gateway's latest publication is older than the staleness window", () => {
    const v = verdict([gw("a", now - HOUR), gw("b", now - 73 * HOUR)]);
    expect(v.blockedBy).toEqual([{ id: "b", reason: "stale", publishedMs: now - 73 * HOUR }]);
    expect(v.mayRemove("x", 0)).toBe(false);
  });

  it("removes nothing when no gateway has published at all", () => {
    expect(verdict([]).mayRemove("x", 0)).toBe(false);
  });
});
