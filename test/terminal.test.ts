// What the terminal shows for a turn, and that it shows no escape codes where they do not belong.
import { PassThrough } from "node:stream";
import { afterEach, describe, expect, test, vi } from "vitest";
import type { AgentEvent } from "../shared/loop.ts";
import { terminalView, tokens } from "../shared/terminal.ts";

const call = { id: "c1", type: "function" as const, function: { name: "bash", arguments: JSON.stringify({ command: "npm test" }) } };
const TURN: AgentEvent[] = [
  { type: "request", step: 1 },
  { type: "text", delta: "Running " },
  { type: "text", delta: "the tests." },
  { type: "usage", usage: { input: 1200, output: 40, cached: 1000 } },
  { type: "tool_call", call },
  { type: "tool_result", call, result: "ok\n[exit code 0]" },
  { type: "request", step: 2 },
  { type: "usage", usage: { input: 1500, output: 260 } },
  { type: "text", delta: "All green." },
];

/** A stream that says it is a terminal, and everything written to it. */
function screen(isTTY: boolean) {
  const out = Object.assign(new PassThrough(), { isTTY });
  let written = "";
  out.on("data", (d) => (written += d));
  return { out, written: () => written };
}

function play(isTTY: boolean) {
  const { out, written } = screen(isTTY);
  const view = terminalView({ out, streamText: true });
  for (const event of TURN) view.show(event);
  const usage = view.endTurn();
  return { text: written(), usage };
}

afterEach(() => vi.unstubAllEnvs());

describe("the terminal view", () => {
  test("streams text, shows each tool call as one line with a preview, and sums the turn's usage", () => {
    const { text, usage } = play(false);
    expect(text).toBe("Running the tests.\n● bash npm test\n  ⎿ ok\n    [exit code 0]\nAll green.\n");
    expect(usage).toMatch(/^2 steps · 2\.7k tokens in \(1k cached\), 300 out · \d+\.\ds$/);
  });

  test("off a terminal, and on one with NO_COLOR, nothing but text: no colors, no spinner", () => {
    expect(play(false).text).not.toContain("\x1b");
    vi.stubEnv("NO_COLOR", "1");
    expect(play(true).text).not.toContain("\x1b");
  });

  test("on a terminal, a spinner turns until the first token and is wiped before the text", () => {
    vi.stubEnv("NO_COLOR", "");
    delete process.env.NO_COLOR;
    const { text } = play(true);
    expect(text).toContain("thinking");
    expect(text.indexOf("thinking")).toBeLessThan(text.indexOf("Running"));
    expect(text.slice(text.indexOf("thinking")).indexOf("\r\x1b[2K")).toBeGreaterThan(0);
  });

  test.each([[845, "845"], [12_345, "12.3k"], [1000, "1k"], [2_500_000, "2.5M"]])("%i tokens read as %s", (n, shown) => {
    expect(tokens(n)).toBe(shown);
  });
});
