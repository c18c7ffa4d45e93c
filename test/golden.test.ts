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
