import { describe, expect, test } from "vitest";
import { messageOrderProblem } from "../shared/messages.ts";
import { listCases, loadStages, prefixProblem, runCase } from "./golden.ts";

const stages = await loadStages();

for (const stage of stages) {
  describe(`${stage.name} golden transcripts`, () => {
    const cases = listCases(stage.name);
    test("has cases", () => expect(cases.length).toBeGreaterThan(0));

    for (const name of cases) {
      test(name, async () => {
        const run = await runCase(stage, name);
        expect(run.expected, `${name} has no expected.jsonl: run UPDATE_GOLDEN=1 and review it`).toBeDefined();
        expect(run.messages).toEqual(run.expected);
        expect(run.outcome).toBe(run.spec.outcome ?? "answered");
        for (const request of run.requests) expect(messageOrderProblem(request.messages)).toBeNull();
        expect(prefixProblem(run.requests)).toBeNull();
      });
    }
  });
}

describe("prefixProblem", () => {
  const request = (...contents: string[]) => ({ messages: contents.map((content) => ({ role: "user" as const, content })), tools: [], specs: [] });

  test("finds a request that edits what the previous one of its conversation sent", () => {
    expect(prefixProblem([request("s", "job", "a"), request("s", "job", "a", "b")])).toBeNull();
    expect(prefixProblem([request("s", "job", "a"), request("s", "job", "A", "b")])).toBe("request 2 changed message 2 of request 1");
    expect(prefixProblem([request("s", "job", "a", "b"), request("s", "job", "a")])).toBe("request 2 has fewer messages than request 1");
  });

  test("treats a subagent's requests (another system prompt and job) as a conversation of their own", () => {
    expect(prefixProblem([request("s", "job", "a"), request("sub", "task"), request("s", "job", "a", "b"), request("sub", "task", "x")])).toBeNull();
  });
});
