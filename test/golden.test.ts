import { describe, expect, test } from "vitest";
import { messageOrderProblem } from "../shared/messages.ts";
import { listCases, prefixProblem, runCase } from "./golden.ts";
import { stage as stage0 } from "../stages/stage0.ts";
import { stage as stage1 } from "../stages/stage1.ts";

const stages = [stage0, stage1];

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
