// stage2's todo list belongs to one conversation: a new conversation (REPL /clear) starts empty.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "vitest";
import { ScriptedModel } from "../shared/model.ts";
import { checkCall, runTool } from "../shared/tools.ts";
import { createWorkspace } from "../shared/workspace.ts";
import { stage } from "../stages/stage2.ts";

test("each conversation has its own todo list", async () => {
  const setup = { workspace: createWorkspace(mkdtempSync(join(tmpdir(), "plan-"))), skillFolders: [], model: new ScriptedModel([]), approve: async () => ({ allow: true as const }), onEvent: () => {} };
  const write = async (conversation: ReturnType<typeof stage.start>, items: object[]) => {
    const call = { id: "1", type: "function" as const, function: { name: "TodoWrite", arguments: JSON.stringify({ items }) } };
    const checked = checkCall(call, conversation.tools);
    if (!checked.ok) throw new Error(checked.error);
    return runTool(checked.tool, checked.args, { signal: new AbortController().signal });
  };
  const first = stage.start(setup);
  expect(await write(first, [{ content: "Old step", status: "in_progress", activeForm: "Doing the old step" }])).toContain("(0/1 completed)");

  const second = stage.start(setup);
  const twoActive = [1, 2].map((n) => ({ content: `Step ${n}`, status: "in_progress", activeForm: `Doing step ${n}` }));
  const rejected = await write(second, twoActive);
  expect(rejected).toContain("are both in_progress");
  expect(rejected).toMatch(/The previous list stays:\n\(0\/0 completed\)$/);
});
