// Each recorded demo (docs/demo/stageN.jsonl: the task and every model reply, subagents' too, in
// order) must replay to its end on a fresh copy of the example workspace, using every reply. The
// parent's whole transcript is kept beside it (stageN.transcript.jsonl, for the docs) and must not
// drift. UPDATE_GOLDEN=1 rewrites the transcripts.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { Session } from "../shared/cli.ts";
import { prepareDemo } from "../shared/demo.ts";
import { parseMessageLines } from "../shared/messages.ts";
import { approver } from "../shared/approval.ts";
import { loadStages, normalize, prefixProblem } from "./golden.ts";

const stages = await loadStages();
const DEMO = join(import.meta.dirname, "..", "docs", "demo");

describe("recorded demos", () => {
  for (const stage of stages) {
    test(`${stage.name} replays its demo to the end`, async () => {
      const demo = prepareDemo(stage.name);
      const session = new Session(stage, { cwd: demo.cwd, model: demo.model, approve: approver("auto", false, () => {}), maxSteps: 50 });
      const outcome = await session.turn(demo.prompt);
      expect(outcome.kind).toBe("answered");
      const recording = parseMessageLines(readFileSync(join(DEMO, `${stage.name}.jsonl`), "utf8"), () => {});
      expect(demo.model.requests).toHaveLength(recording.filter((m) => m.role === "assistant").length);
      expect(prefixProblem(demo.model.requests)).toBeNull();

      const file = join(DEMO, `${stage.name}.transcript.jsonl`);
      const transcript = normalize(session.messages, demo.cwd);
      if (process.env.UPDATE_GOLDEN) writeFileSync(file, transcript.map((m) => JSON.stringify(m)).join("\n") + "\n");
      expect(existsSync(file), `${file} is missing: run UPDATE_GOLDEN=1 make test`).toBe(true);
      expect(transcript).toEqual(parseMessageLines(readFileSync(file, "utf8"), () => {}));
    });
  }
});
