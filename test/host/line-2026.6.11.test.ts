/**
 * Every real-host scenario registered for OpenClaw 2026.6.11 (test/host/scenarios/index.ts), one gateway per engine.
 */
import { defineLineSuite } from "./scenarios/line-suite.js";

defineLineSuite("2026.6.11");
