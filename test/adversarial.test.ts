// Faults and bad input, end to end: a provider that fails in every way a network can, a model
// that sends nonsense, a process killed mid-write. Each ends in one clear line, a valid history,
// and a workspace that holds only what was meant to be there.
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { afterEach, describe, expect, test } from "vitest";
import { approver } from "../shared/approval.ts";
import { Session } from "../shared/cli.ts";
import { messageOrderProblem, parseMessageLines, type AssistantMessage, type Message } from "../shared/messages.ts";
import { ModelError, ScriptedModel } from "../shared/model.ts";
import { openAIModel } from "../shared/openai-model.ts";
import { terminalView } from "../shared/terminal.ts";
import { loadTranscript } from "../shared/transcript.ts";
import { stage as stage1 } from "../stages/stage1.ts";
import { startFakeProvider, type FakeProvider, type Turn } from "./fake-provider.ts";
import { NODE, runStage, stageFile } from "./run-stage.ts";

const KEY = "sk-test-DO-NOT-LEAK-4f9a";
const dir = (prefix = "adversarial-") => mkdtempSync(join(tmpdir(), prefix));
const call = (id: string, name: string, args: object | string) =>
  ({ id, type: "function" as const, function: { name, arguments: typeof args === "string" ? args : JSON.stringify(args) } });
const reply = (content: string | null, ...tool_calls: ReturnType<typeof call>[]): AssistantMessage =>
  tool_calls.length ? { role: "assistant", content, tool_calls } : { role: "assistant", content };

let provider: FakeProvider | undefined;
afterEach(async () => {
  await provider?.close();
  provider = undefined;
});

/** Runs stage1 against the fake provider with a transcript; returns the run and the transcript's messages. */
async function runAgainst(turns: Turn[], options: { repeatLast?: boolean; baseURL?: string; args?: string[] } = {}) {
  provider = await startFakeProvider(turns, { repeatLast: options.repeatLast });
  const workspace = dir();
  writeFileSync(join(workspace, "keep.txt"), "untouched\n");
  const transcript = join(dir(), "t.jsonl");
  const run = await runStage("stage1", ["-y", "-C", workspace, "--transcript", transcript, ...(options.args ?? []), "fix it"], {
    OPENAI_BASE_URL: options.baseURL ?? provider.url,
    OPENAI_API_KEY: KEY,
    AGENT_MODEL: "fake",
  });
  const messages = parseMessageLines(readFileSync(transcript, "utf8"), (line) => {
    throw new Error(`transcript line ${line} is damaged`);
  });
  return { run, messages, workspace };
}

/** One line on stderr (besides the usage line), no stack trace, and the key nowhere. */
function expectOneClearLine(stderr: string, pattern: RegExp) {
  const lines = stderr.trim().split("\n").filter((line) => !/^\d+ steps? · /.test(line));
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(pattern);
  expect(stderr).not.toMatch(/^\s+at /m);
  expect(stderr).not.toContain(KEY);
}

describe("provider faults", () => {
  test("429 with retry-after, then 200: the request is retried after the wait, and the task completes", async () => {
    const { run } = await runAgainst([{ status: 429, retryAfter: 1 }, reply("All good.")]);
    expect(run).toMatchObject({ code: 0, stdout: "All good.\n" });
    expect(provider!.requests).toHaveLength(2);
    expect(provider!.times[1] - provider!.times[0]).toBeGreaterThanOrEqual(950);
  });

  test("500 forever: retried, then exit 3 with one line; no half message in history", async () => {
    const { run, messages, workspace } = await runAgainst([{ status: 500 }], { repeatLast: true });
    expect(run.code).toBe(3);
    expectOneClearLine(run.stderr, /^stage1: the provider at http:\/\/127\.0\.0\.1:\d+\/v1 answered HTTP 500: /);
    expect(provider!.requests).toHaveLength(4); // the first try and 3 retries
    expect(messages.map((m) => m.role)).toEqual(["system", "user"]);
    expect(readdirSync(workspace)).toEqual(["keep.txt"]);
  }, 30_000);

  test("the connection closes mid-answer: exit 3, and the half answer is not in history", async () => {
    const { run, messages } = await runAgainst([{ breakAfterChunks: 4, reply: reply("This answer will be cut off halfway through.") }]);
    expect(run.code).toBe(3);
    expectOneClearLine(run.stderr, /^stage1: the model stream from http:\/\/127\.0\.0\.1:\d+\/v1 broke off: /);
    expect(messages.map((m) => m.role)).toEqual(["system", "user"]);
  });

  test("nothing listening: the message names the base URL", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const { run } = await runAgainst([], { baseURL: `http://127.0.0.1:${port}/v1` });
    expect(run.code).toBe(3);
    expectOneClearLine(run.stderr, new RegExp(`could not connect to the model provider at http://127\\.0\\.0\\.1:${port}/v1 \\(is it running`));
  }, 30_000);

  test("401 says the key was refused, and never repeats the key, even when the provider does", async () => {
    const body = JSON.stringify({ error: { message: `Incorrect API key provided: ${KEY}.` } });
    for (const args of [[], ["--debug"]]) {
      const { run } = await runAgainst([{ status: 401, body }], { args });
      expect(run.code).toBe(3);
      expect(run.stderr).toContain("refused the API key (HTTP 401); check OPENAI_API_KEY");
      expect(run.stderr).not.toContain(KEY);
      await provider?.close();
      provider = undefined;
    }
  });

  test("a provider that never answers is stopped by the request timeout", async () => {
    provider = await startFakeProvider([{ hang: true }], { repeatLast: true });
    const model = openAIModel({ model: "fake", apiKey: KEY, baseURL: provider.url, timeoutMs: 300, maxRetries: 0 });
    const failure = model.complete({ messages: [{ role: "user", content: "hi" }], tools: [] });
    await expect(failure).rejects.toThrow(ModelError);
    await expect(failure).rejects.toThrow(`the model provider at ${provider.url} did not answer in time`);
  });
});

describe("what the model sends", () => {
  /** Runs stage1 in-process on a fresh workspace with these replies; returns what was shown and sent. */
  async function session(replies: AssistantMessage[]) {
    const workspace = dir();
    writeFileSync(join(workspace, "keep.txt"), "untouched\n");
    const model = new ScriptedModel(replies);
    const out = new PassThrough();
    let shown = "";
    out.on("data", (d) => (shown += d));
    const view = terminalView({ out, streamText: false });
    const s = new Session(stage1, { cwd: workspace, model, approve: approver("auto", false, () => {}), maxSteps: 10, onEvent: view.show });
    const outcome = await s.turn("go");
    for (const request of model.requests) expect(messageOrderProblem(request.messages)).toBeNull();
    return { outcome, shown, messages: s.messages, workspace };
  }
  const toolResults = (messages: Message[]) => messages.filter((m) => m.role === "tool").map((m) => m.content);

  test("bad JSON, wrong types and an unknown tool each come back to the model as an error, and nothing is written", async () => {
    const { messages, workspace, outcome } = await session([
      reply(null,
        call("a", "write_file", '{"path": "x.txt", "content": '),
        call("b", "write_file", { path: 42, content: ["not", "text"] }),
        call("c", "delete_everything", { really: true })),
      reply("I could not do it."),
    ]);
    const [bad, wrong, unknown] = toolResults(messages);
    expect(bad).toMatch(/^Error: the arguments for write_file are not valid JSON/);
    expect(wrong).toContain("path: ");
    expect(wrong).toContain("content: ");
    expect(unknown).toMatch(/^Error: there is no tool named "delete_everything"/);
    expect(readdirSync(workspace)).toEqual(["keep.txt"]);
    expect(outcome).toMatchObject({ kind: "answered" });
  });

  test("50 tool calls in one reply are all answered, in order", async () => {
    const calls = Array.from({ length: 50 }, (_, i) => call(`c${i}`, "bash", { command: `echo call ${i}` }));
    const { messages, shown } = await session([reply("Many at once.", ...calls), reply("Done.")]);
    const answers = messages.filter((m) => m.role === "tool");
    expect(answers.map((m) => m.tool_call_id)).toEqual(calls.map((c) => c.id));
    expect(answers.map((m) => m.content)).toEqual(calls.map((_, i) => `call ${i}\n[exit code 0]`));
    expect(shown.match(/^● bash /gm)).toHaveLength(50);
  });

  test("a 5 MB argument: a command that size is refused, a 5 MB file is written whole, an edit that size that does not match writes nothing", async () => {
    const big = "x".repeat(5 * 1024 * 1024);
    const { messages, workspace } = await session([
      reply(null,
        call("a", "bash", { command: `echo ${big}` }),
        call("b", "write_file", { path: "big.txt", content: big }),
        call("c", "edit_file", { path: "keep.txt", old_text: big, new_text: "y" })),
      reply("Done."),
    ]);
    const [command, write, edit] = toolResults(messages);
    expect(command).toMatch(/^Error: the command is 5242\d{3} bytes, more than the 100000 a command may have\. Write a script with write_file/);
    expect(write).toBe("Created big.txt (1 line, 5242880 bytes).");
    expect(readFileSync(join(workspace, "big.txt"), "utf8")).toBe(big);
    expect(edit).toMatch(/^Error: old_text occurs 0 times in keep\.txt/);
    expect(readFileSync(join(workspace, "keep.txt"), "utf8")).toBe("untouched\n");
  });

  test("an empty reply is reported as an empty answer, exit 1", async () => {
    const workspace = dir();
    const mock = join(workspace, "..", `${workspace.split("/").pop()}.jsonl`);
    writeFileSync(mock, JSON.stringify(reply(null)) + "\n");
    const run = await runStage("stage1", ["-C", workspace, "--mock", mock, "hi"], {});
    expect(run.code).toBe(1);
    expect(run.stdout).toBe("");
    expect(run.stderr).toContain("stage1: the model's answer was empty");
  });
});

describe("secrets", () => {
  test("the key never reaches a command, the transcript or the recording", async () => {
    const { run, messages } = await runAgainst(
      [reply(null, call("a", "bash", { command: 'echo "key=[$OPENAI_API_KEY]"; env' })), reply("Checked.")],
      { args: ["--record", join(dir(), "rec.jsonl")] },
    );
    expect(run.code).toBe(0);
    const result = messages.find((m) => m.role === "tool")!.content;
    expect(result).toContain("key=[]");
    expect(JSON.stringify(messages)).not.toContain(KEY);
    expect(run.stdout + run.stderr).not.toContain(KEY);
  });
});

describe("kill -9", () => {
  test("at any moment, the transcript holds whole lines, and it resumes", async () => {
    const calls = Array.from({ length: 400 }, (_, i) => reply(null, call(`c${i}`, "bash", { command: `echo step ${i}; sleep 0.01` })));
    const mock = join(dir(), "many.jsonl");
    writeFileSync(mock, calls.map((c) => JSON.stringify(c)).join("\n") + "\n");
    for (const delayMs of [250, 400, 600, 900]) {
      const transcript = join(dir(), "t.jsonl");
      const child = spawn(NODE, [stageFile("stage1"), "-y", "--max-steps", "1000", "-C", dir(), "--mock", mock, "--transcript", transcript, "go"], {
        stdio: "ignore",
        env: { ...process.env, NO_COLOR: "1" },
      });
      const closed = new Promise<number | null>((resolve) => child.on("close", (_code, signal) => resolve(signal === "SIGKILL" ? 9 : null)));
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      child.kill("SIGKILL");
      expect(await closed).toBe(9); // killed while it was still working

      const text = readFileSync(transcript, "utf8");
      expect(text.endsWith("\n")).toBe(true);
      const lines = text.trimEnd().split("\n");
      expect(lines.length).toBeGreaterThan(2); // it was killed mid-run, not before it began
      for (const line of lines) expect(() => JSON.parse(line)).not.toThrow();
      const resumed = loadTranscript(transcript, () => {});
      expect(messageOrderProblem(resumed)).toBeNull();
    }
  }, 30_000);
});
