// What the golden transcripts of stage3 cannot show: what each subagent itself was sent.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import type { Message } from "../shared/messages.ts";
import { stage } from "../stages/stage3.ts";
import { runCase, type CaseRun } from "./golden.ts";

const startsWith = (prefix: string) => (request: CaseRun["requests"][number]) => request.messages[0].content?.startsWith(prefix);
const toolResults = (messages: Message[]) => messages.filter((m) => m.role === "tool").map((m) => m.content);

describe("stage3 subagents", () => {
  test("explore starts from its own system prompt and the job only, with no write tool and no Task", async () => {
    const run = await runCase(stage, "explore-subagent-works-in-a-clean-context");
    const parentFirst = run.requests[0];
    const [first, ...rest] = run.requests.filter(startsWith("You are an explore subagent"));
    expect(first.messages).toHaveLength(2);
    expect(first.messages[1]).toEqual({ role: "user", content: "Find where user login is handled in this repository. Report file and line." });
    expect(first.tools).toEqual(["bash", "read_file"]);
    expect(rest).toHaveLength(2);
    expect(parentFirst.tools).toEqual(["bash", "read_file", "write_file", "edit_file", "TodoWrite", "Task"]);
    expect(JSON.stringify(first.messages)).not.toContain("Where is login handled?"); // nothing of the parent's conversation
  });

  test("plan is read-only too", async () => {
    const run = await runCase(stage, "plan-subagent-returns-a-numbered-plan");
    const requests = run.requests.filter(startsWith("You are a planning subagent"));
    expect(requests.map((r) => r.tools)).toEqual([["bash", "read_file"], ["bash", "read_file"], ["bash", "read_file"]]);
  });

  test("code may write, and its edit lands in the workspace", async () => {
    const run = await runCase(stage, "code-subagent-edits-a-file");
    const requests = run.requests.filter(startsWith("You are a coding subagent"));
    expect(requests[0].tools).toEqual(["bash", "read_file", "write_file", "edit_file"]);
    expect(readFileSync(join(run.workspace, "src/cart.py"), "utf8")).toContain("if items is None:\n        return 0");
    expect(toolResults(requests.at(-1)!.messages).at(-1)).toBe("0\n[exit code 0]");
  });

  test("a read-only subagent's writes are all refused before they run", async () => {
    const run = await runCase(stage, "read-only-subagent-cannot-change-the-workspace"); // the case also checks the files
    const last = run.requests.filter(startsWith("You are an explore subagent")).at(-1)!;
    const results = toolResults(last.messages);
    expect(results).toHaveLength(6);
    for (const result of results.slice(0, 5)) expect(result).toMatch(/^Error: refused, this bash is read-only: /);
    expect(results[5]).toContain('there is no tool named "write_file"');
  });

  test("the subagent's step limit and model errors come back to the parent, which goes on", async () => {
    const limit = await runCase(stage, "subagent-step-limit-comes-back-as-an-error");
    expect(limit.requests.filter(startsWith("You are an explore subagent"))).toHaveLength(20);
    expect(limit.outcome).toBe("answered");
    const failed = await runCase(stage, "subagent-model-error-comes-back-as-an-error");
    expect(failed.outcome).toBe("answered");
    expect(toolResults(failed.messages)[0]).toMatch(/^Error: the explore subagent failed: .*HTTP 500/);
  });
});
