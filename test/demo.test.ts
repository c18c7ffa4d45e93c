// Each recorded demo (docs/demo/stageN.jsonl) must still replay to its end on a fresh copy of the
// example workspace and give exactly the recorded transcript. UPDATE_GOLDEN=1 re-records them.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { Session } from "../shared/cli.ts";
import { prepareDemo } from "../shared/demo.ts";
import { parseMessageLines } from "../shared/messages.ts";
import { approver } from "../shared/terminal.ts";
import { loadStages, normalize, prefixProblem } from "./golden.ts";

const stages = await loadStages();

describe("recorded demos", () => {
  for (const stage of stages) {
    test(`${stage.name} replays its demo to the end`, async () => {
      const file = join(import.meta.dirname, "..", "docs", "demo", `${stage.name}.jsonl`);
      const demo = prepareDemo(stage.name);
      const session = new Session(stage, { cwd: demo.cwd, model: demo.model, approve: approver("auto", false, () => {}), maxSteps: 50 });
      const outcome = await session.turn(demo.prompt);
      expect(outcome.kind).toBe("answered");
      expect(prefixProblem(demo.model.requests)).toBeNull();

      const transcript = normalize(session.messages, demo.cwd);
      if (process.env.UPDATE_GOLDEN) writeFileSync(file, transcript.map((m) => JSON.stringify(m)).join("\n") + "\n");
      const recorded = parseMessageLines(readFileSync(file, "utf8"), () => {});
      expect(transcript).toEqual(recorded);
    });
  }
});
