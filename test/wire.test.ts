// The real model client against a local OpenAI-compatible server that streams tool calls in
// pieces: first the model layer alone, then a whole stage program as a user runs it.
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import type { AssistantMessage } from "../shared/messages.ts";
import { openAIModel } from "../shared/openai-model.ts";
import { startFakeProvider, type FakeProvider } from "./fake-provider.ts";
import { runStage } from "./run-stage.ts";

const call = (id: string, name: string, args: object) => ({ id, type: "function" as const, function: { name, arguments: JSON.stringify(args) } });
const reply = (content: string | null, ...tool_calls: ReturnType<typeof call>[]): AssistantMessage =>
  tool_calls.length ? { role: "assistant", content, tool_calls } : { role: "assistant", content };

let provider: FakeProvider | undefined;
afterEach(async () => provider?.close());

describe("the OpenAI-compatible model", () => {
  test("assembles text and several tool calls streamed in pieces, and reads usage", async () => {
    const longArgs = { path: "notes/todo.txt", content: "a fairly long line of content\n".repeat(5) };
    provider = await startFakeProvider([reply("Writing two files.", call("c1", "write_file", longArgs), call("c2", "bash", { command: "ls -la" }))]);
    const model = openAIModel({ model: "fake", apiKey: "x", baseURL: provider.url });
    const streamed: string[] = [];
    const { message, usage } = await model.complete({ messages: [{ role: "user", content: "hi" }], tools: [], onText: (d) => streamed.push(d) });

    expect(message.content).toBe("Writing two files.");
    expect(streamed.length).toBeGreaterThan(1);
    expect(streamed.join("")).toBe("Writing two files.");
    expect(message.tool_calls).toEqual([call("c1", "write_file", longArgs), call("c2", "bash", { command: "ls -la" })]);
    expect(usage).toEqual({ input: 120, output: 30, cached: 100 });
  });

  test("assembles a tool call from a provider that sends no index", async () => {
    provider = await startFakeProvider([{ noIndex: true, reply: reply(null, call("c1", "read_file", { path: "src/main.ts" })) }]);
    const model = openAIModel({ model: "fake", apiKey: "x", baseURL: provider.url });
    const { message } = await model.complete({ messages: [{ role: "user", content: "hi" }], tools: [] });
    expect(message.tool_calls).toEqual([call("c1", "read_file", { path: "src/main.ts" })]);
  });

  test("ignores reasoning_content and works without usage", async () => {
    provider = await startFakeProvider([
      { reasoning: "Let me think about this carefully.", reply: reply("Answer.") },
      { noUsage: true, reply: reply("Second.") },
    ]);
    const model = openAIModel({ model: "fake", apiKey: "x", baseURL: provider.url });
    const first = await model.complete({ messages: [{ role: "user", content: "q" }], tools: [] });
    expect(first.message).toEqual({ role: "assistant", content: "Answer." });
    const second = await model.complete({ messages: [{ role: "user", content: "q" }], tools: [] });
    expect(second).toEqual({ message: { role: "assistant", content: "Second." }, usage: undefined });
  });
});

describe("a stage program against the local server", () => {
  test("stage1 completes a multi-step task: answer on stdout, exit 0", async () => {
    provider = await startFakeProvider([
      reply("I'll create the file.", call("c1", "write_file", { path: "hello.py", content: "print('hello from the kit')\n" })),
      reply(null, call("c2", "bash", { command: "python3 hello.py" })),
      reply("hello.py prints: hello from the kit"),
    ]);
    const workspace = mkdtempSync(join(tmpdir(), "wire-"));
    const run = await runStage("stage1", ["-y", "-C", workspace, "Write hello.py and run it"], {
      OPENAI_BASE_URL: provider.url,
      OPENAI_API_KEY: "x",
      AGENT_MODEL: "fake",
    });

    expect(run.stderr).not.toContain("error");
    expect(run.code).toBe(0);
    expect(run.stdout).toBe("hello.py prints: hello from the kit\n");
    expect(readFileSync(join(workspace, "hello.py"), "utf8")).toBe("print('hello from the kit')\n");

    const [first, , third] = provider.requests;
    expect(first.model).toBe("fake");
    expect(first.stream).toBe(true);
    expect(first.tools.map((t: any) => t.function.name)).toEqual(["bash", "read_file", "write_file", "edit_file"]);
    expect(Object.keys(first.tools[3].function.parameters.properties)).toEqual(["path", "old_text", "new_text"]);
    const last = third.messages.at(-1);
    expect(last).toEqual({ role: "tool", tool_call_id: "c2", content: "hello from the kit\n[exit code 0]" });
  });

  test("a task piped on stdin works the same, and --record writes a replayable script", async () => {
    provider = await startFakeProvider([reply("Forty-two.")]);
    const dir = mkdtempSync(join(tmpdir(), "wire-"));
    const recording = join(dir, "rec.jsonl");
    const run = await runStage("stage0", ["--record", recording, "-C", dir], { OPENAI_BASE_URL: provider.url, AGENT_MODEL: "fake" }, "What is the answer?");
    expect(run.code).toBe(0);
    expect(provider.requests[0].messages.at(-1)).toEqual({ role: "user", content: "What is the answer?" });
    expect(readFileSync(recording, "utf8")).toBe(JSON.stringify({ role: "assistant", content: "Forty-two." }) + "\n");

    const replay = await runStage("stage0", ["--mock", recording, "-C", dir, "again"], {});
    expect(replay).toMatchObject({ code: 0, stdout: "Forty-two.\n" });
  });
});
