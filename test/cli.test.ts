// The program as a user meets it: flags, configuration mistakes, and exit codes.
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { readConfig, UsageError } from "../shared/config.ts";
import { messageOrderProblem, type Message } from "../shared/messages.ts";
import { NODE, runStage, stageFile } from "./run-stage.ts";

const dir = () => mkdtempSync(join(tmpdir(), "cli-"));
const script = (...lines: object[]) => {
  const file = join(dir(), "script.jsonl");
  writeFileSync(file, lines.map((l) => JSON.stringify(l)).join("\n") + "\n");
  return file;
};
const bashCall = (id: string, command: string) => ({
  role: "assistant", content: null,
  tool_calls: [{ id, type: "function", function: { name: "bash", arguments: JSON.stringify({ command }) } }],
});

describe("configuration", () => {
  const env = { OPENAI_API_KEY: "k" };
  test.each([
    [["--bogus"], "Unknown option '--bogus'"],
    [["--approval", "maybe"], "--approval must be ask, auto or never"],
    [["--max-steps", "0"], "--max-steps must be a whole number"],
    [["--max-steps", "ten"], "--max-steps must be a whole number"],
    [["-C", "/no/such/folder"], "--cwd /no/such/folder is not a folder"],
    [["--mock", "/no/such/file.jsonl"], "--mock /no/such/file.jsonl: no such file"],
    [["--model"], "Option '-m, --model <value>' argument missing"],
  ])("%j is a usage error", (argv, message) => {
    expect(() => readConfig(argv, env)).toThrow(UsageError);
    expect(() => readConfig(argv, env)).toThrow(message);
  });

  test("no key for a remote provider says what to set", () => {
    expect(() => readConfig(["hi"], {})).toThrow(/set OPENAI_API_KEY .* or replay a recording with --mock FILE/);
  });

  test("a local server needs no key, but needs a model name", () => {
    expect(() => readConfig(["hi"], { OPENAI_BASE_URL: "http://localhost:11434/v1" })).toThrow("set AGENT_MODEL or pass --model");
    const config = readConfig(["hi"], { OPENAI_BASE_URL: "http://localhost:11434/v1/", AGENT_MODEL: "qwen3" });
    expect(config).toMatchObject({ baseURL: "http://localhost:11434/v1", model: "qwen3", prompt: "hi" });
  });

  test("flags win over the environment; -y means auto", () => {
    const config = readConfig(["-m", "m2", "--base-url", "http://x/v1", "-y", "fix", "it"], { OPENAI_API_KEY: "k", AGENT_MODEL: "m1" });
    expect(config).toMatchObject({ model: "m2", baseURL: "http://x/v1", approval: "auto", prompt: "fix it" });
  });
});

describe("exit codes", () => {
  test("0 with the answer on stdout and progress on stderr", async () => {
    const run = await runStage("stage0", ["-y", "-C", dir(), "--mock", script(bashCall("a", "echo working"), { role: "assistant", content: "All done." }), "go"], {});
    expect(run).toMatchObject({ code: 0, stdout: "All done.\n" });
    expect(run.stderr).toContain("● bash echo working");
  });

  test("1 at the step limit", async () => {
    const run = await runStage("stage0", ["-y", "--max-steps", "1", "-C", dir(), "--mock", script(bashCall("a", "true")), "go"], {});
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("stopped after 1 step without an answer (raise --max-steps)");
  });

  test("1 when a risky call was denied because there is no terminal to ask", async () => {
    const workspace = dir();
    const run = await runStage("stage1", ["-C", workspace, "--mock", script(bashCall("a", "touch made.txt"), { role: "assistant", content: "Could not." }), "go"], {});
    expect(run.code).toBe(1);
    expect(run.stdout).toBe("Could not.\n");
    expect(run.stderr).toContain("rerun with --yes");
  });

  test("2 for a usage error, with no stack trace", async () => {
    const run = await runStage("stage1", ["--max-steps", "-3", "x"], { OPENAI_API_KEY: "k" });
    expect(run.code).toBe(2);
    expect(run.stderr.trim().split("\n")).toHaveLength(1);
    expect(run.stderr).toContain("see stage1 --help");
  });

  test("2 when no model is configured", async () => {
    const run = await runStage("stage1", ["hello"], {});
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("set OPENAI_API_KEY");
  });

  test("3 when the script runs out, and the transcript stays valid", async () => {
    const transcript = join(dir(), "t.jsonl");
    const run = await runStage("stage0", ["-y", "-C", dir(), "--transcript", transcript, "--mock", script(bashCall("a", "true")), "go"], {});
    expect(run.code).toBe(3);
    expect(run.stderr).toContain("the script has no reply left for request 2");
    expect(run.stderr).not.toContain("    at ");
    const messages: Message[] = readFileSync(transcript, "utf8").trim().split("\n").map((l) => JSON.parse(l));
    expect(messages.map((m) => m.role)).toEqual(["system", "user", "assistant", "tool"]);
    expect(messageOrderProblem(messages)).toBeNull();
  });

  test("--help and --version", async () => {
    const help = await runStage("stage1", ["--help"], {});
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("Usage: stage1 [options] [prompt]");
    const version = await runStage("stage0", ["-V"], {});
    expect(version.stdout).toMatch(/^stage0 \d+\.\d+\.\d+\n$/);
  });
});

describe("message order", () => {
  const call = (id: string) => ({ id, type: "function" as const, function: { name: "bash", arguments: "{}" } });
  test("a valid list", () => {
    expect(messageOrderProblem([
      { role: "system", content: "s" }, { role: "user", content: "u" },
      { role: "assistant", content: null, tool_calls: [call("a"), call("b")] },
      { role: "tool", tool_call_id: "a", content: "" }, { role: "tool", tool_call_id: "b", content: "" },
      { role: "user", content: "reminder" },
    ])).toBeNull();
  });
  test("a message between a tool call and its answer", () => {
    expect(messageOrderProblem([
      { role: "assistant", content: null, tool_calls: [call("a")] }, { role: "user", content: "x" },
    ])).toBe("message 1 (user) comes before tool call a was answered");
  });
  test("answers out of order, or to nothing", () => {
    expect(messageOrderProblem([
      { role: "assistant", content: null, tool_calls: [call("a"), call("b")] }, { role: "tool", tool_call_id: "b", content: "" },
    ])).toBe("message 1 answers b, but the answer to a was due");
    expect(messageOrderProblem([{ role: "tool", tool_call_id: "z", content: "" }])).toBe("message 0 answers z, but no tool message was due");
  });
});

describe("Ctrl-C", () => {
  test("cancels the turn: the command's whole process group is killed, history stays valid, exit 130", async () => {
    const { spawn } = await import("node:child_process");
    const { existsSync } = await import("node:fs");
    const workspace = dir();
    const transcript = join(workspace, "..", `t-${Date.now()}.jsonl`);
    const mock = script(bashCall("a", `(sleep 3; touch ${workspace}/child-survived) & sleep 3; touch ${workspace}/survived`), { role: "assistant", content: "never" });
    const child = spawn(NODE, [
      stageFile("stage0"), "-y", "-C", workspace, "--transcript", transcript, "--mock", mock, "go",
    ], { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, NO_COLOR: "1" } });
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (d) => (stderr += d));
    await new Promise<void>((resolve) => {
      const poll = setInterval(() => {
        if (stderr.includes("● bash")) {
          clearInterval(poll);
          resolve();
        }
      }, 50);
    });
    await new Promise((r) => setTimeout(r, 300));
    child.kill("SIGINT");
    const code = await new Promise((resolve) => child.on("close", resolve));
    expect(code).toBe(130);
    expect(stderr).toContain("cancelled by the user");
    await new Promise((r) => setTimeout(r, 3500));
    expect(existsSync(join(workspace, "survived"))).toBe(false);
    expect(existsSync(join(workspace, "child-survived"))).toBe(false);
    const messages: Message[] = readFileSync(transcript, "utf8").trim().split("\n").map((l) => JSON.parse(l));
    expect(messageOrderProblem(messages)).toBeNull();
    expect(messages.at(-1)).toMatchObject({ role: "tool", tool_call_id: "a", content: expect.stringContaining("cancelled by the user") });
  }, 15_000);
});
