// Approvals: what each mode decides, what "don't ask again" covers, what the model is told,
// and the diff the user sees before a file changes.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { describe, expect, test } from "vitest";
import { approver, grantFor, renderChange, type Answer, type Question } from "../shared/approval.ts";
import { bashTool } from "../shared/bash.ts";
import { editFileTool, writeFileTool } from "../shared/file-tools.ts";
import type { Tool } from "../shared/tools.ts";
import { createWorkspace } from "../shared/workspace.ts";

const root = mkdtempSync(join(tmpdir(), "approval-"));
writeFileSync(join(root, "notes.txt"), "one\ntwo\nthree\n");
const workspace = createWorkspace(root);
const bash = bashTool(workspace);
const edit = editFileTool(workspace);
const write = writeFileTool(workspace);

const callOf = (tool: Tool, args: Record<string, unknown>) =>
  [{ id: "c", type: "function" as const, function: { name: tool.name, arguments: JSON.stringify(args) } }, tool, args] as const;

/** An approver whose user gives these answers in turn, and a record of what they were asked. */
function scriptedUser(...answers: Answer[]) {
  const asked: Question[] = [];
  const approve = approver("ask", true, () => {}, async (question) => {
    asked.push(question);
    const answer = answers.shift();
    if (!answer) throw new Error("asked more often than expected");
    return answer;
  });
  return { approve, asked };
}

describe("approval modes", () => {
  test("auto allows, never denies, and ask without a terminal denies and says how to allow", async () => {
    const call = callOf(bash, { command: "npm test" });
    expect(await approver("auto", false, () => {})(...call)).toEqual({ allow: true });
    expect(await approver("never", true, () => {})(...call)).toEqual({ allow: false, reason: "The approval mode is never: risky tools do not run." });
    let noted = false;
    const denied = await approver("ask", false, () => (noted = true))(...call);
    expect(denied).toMatchObject({ allow: false, reason: expect.stringContaining("rerun with --yes") });
    expect(noted).toBe(true);
  });

  test("no with a reason passes the reason on to the model; a plain no adds nothing", async () => {
    const { approve } = scriptedUser({ choice: "no", reason: "use pytest instead" }, { choice: "no" });
    expect(await approve(...callOf(bash, { command: "npm test" }))).toEqual({ allow: false, reason: "The user said: use pytest instead" });
    expect(await approve(...callOf(bash, { command: "npm test" }))).toEqual({ allow: false, reason: "" });
  });
});

describe("yes, and don't ask again", () => {
  test("covers bash commands with the same two leading words, for this approver only", async () => {
    const { approve, asked } = scriptedUser({ choice: "always" }, { choice: "yes" }, { choice: "yes" });
    await approve(...callOf(bash, { command: "npm test" }));
    expect(await approve(...callOf(bash, { command: "npm test -- --watch=false" }))).toEqual({ allow: true });
    await approve(...callOf(bash, { command: "npm install left-pad" }));
    expect(asked.map((q) => JSON.parse(q.call.function.arguments).command)).toEqual(["npm test", "npm install left-pad"]);

    const fresh = scriptedUser({ choice: "yes" }); // a new conversation (/clear) asks again
    await fresh.approve(...callOf(bash, { command: "npm test" }));
    expect(fresh.asked).toHaveLength(1);
  });

  test("never covers a command joined to another one", async () => {
    const { approve, asked } = scriptedUser({ choice: "always" }, { choice: "no" });
    await approve(...callOf(bash, { command: "npm test" }));
    await approve(...callOf(bash, { command: "npm test && rm -rf src" }));
    expect(asked).toHaveLength(2);
    expect(asked[1].grant).toBeUndefined();
  });

  test.each([
    ["npm test", "bash:npm test"],
    ["git   diff --stat", "bash:git diff"],
    ["ls", "bash:ls"],
    ["npm test; rm -rf src", undefined],
    ["cat $(which node)", undefined],
    ["echo hi > out.txt", undefined],
    ["python3 -c 'print(1)' | sh", undefined],
    ["make \\\n  test", undefined],
  ])("bash %j is granted as %j", (command, key) => {
    expect(grantFor("bash", { command })?.key).toBe(key);
  });

  test("covers a file tool on any file, and not the other file tool", async () => {
    const { approve, asked } = scriptedUser({ choice: "always" }, { choice: "yes" });
    await approve(...callOf(edit, { path: "notes.txt", old_text: "one", new_text: "1" }));
    await approve(...callOf(edit, { path: "other.txt", old_text: "a", new_text: "b" }));
    await approve(...callOf(write, { path: "new.txt", content: "x" }));
    expect(asked.map((q) => q.tool.name)).toEqual(["edit_file", "write_file"]);
  });
});

describe("the change the user sees", () => {
  const plain = new PassThrough(); // not a terminal: no colors

  test("an edit shows as a unified diff of the file", () => {
    const change = edit.change!({ path: "notes.txt", old_text: "two\n", new_text: "2\n" });
    expect(renderChange(change!, plain)).toBe(["    @@ -1,3 +1,3 @@", "     one", "    -two", "    +2", "     three", ""].join("\n"));
  });

  test("a new file is marked as new; a long change is clipped with a count", () => {
    const content = Array.from({ length: 50 }, (_, i) => `line ${i + 1}`).join("\n") + "\n";
    const shown = renderChange(write.change!({ path: "big.txt", content })!, plain, 10).split("\n");
    expect(shown[0]).toBe("    new file big.txt");
    expect(shown[1]).toBe("    @@ -0,0 +1,50 @@");
    expect(shown.at(-2)).toBe("    … 41 more lines");
  });

  test("there is no preview for an edit that would fail or a path outside the workspace", () => {
    expect(edit.change!({ path: "notes.txt", old_text: "four", new_text: "4" })).toBeUndefined();
    expect(write.change!({ path: "../outside.txt", content: "x" })).toBeUndefined();
  });
});
