// The single executables as a user gets them: copied to a folder far from this repository and
// its node_modules, run with a PATH that has no node. Run with `make build smoke`.
import { spawn } from "node:child_process";
import { copyFileSync, existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { stageNames } from "../../scripts/regions.ts";
import { startFakeProvider, type FakeProvider } from "../fake-provider.ts";

const DIST = join(import.meta.dirname, "..", "..", "dist");
const STAGES = stageNames();
const away = mkdtempSync(join(tmpdir(), "binaries-"));

beforeAll(() => {
  for (const stage of STAGES) {
    if (!existsSync(join(DIST, stage))) throw new Error(`dist/${stage} is missing: run make build first`);
    copyFileSync(join(DIST, stage), join(away, stage));
  }
});

function run(stage: string, args: string[], env: Record<string, string> = {}) {
  const child = spawn(join(away, stage), args, {
    cwd: away,
    env: { PATH: "/usr/bin:/bin", HOME: away, NO_COLOR: "1", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (d) => (stdout += d));
  child.stderr.setEncoding("utf8").on("data", (d) => (stderr += d));
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.on("close", (code) => resolve({ code, stdout, stderr })));
}

describe.each(STAGES)("%s executable", (stage) => {
  test("--version and --help, with no experimental warning", async () => {
    const version = await run(stage, ["--version"]);
    expect(version).toEqual({ code: 0, stdout: `${stage} 0.1.0\n`, stderr: "" });
    const help = await run(stage, ["--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain(`Usage: ${stage} [options] [prompt]`);
    expect(help.stderr).toBe("");
  });

  test("--demo replays the embedded recording on the embedded workspace", async () => {
    const recording = readFileSync(join(import.meta.dirname, "..", "..", "docs", "demo", `${stage}.jsonl`), "utf8");
    const answer = JSON.parse(recording.trim().split("\n").at(-1)!).content;
    const demo = await run(stage, ["--demo"]);
    expect(demo.code).toBe(0);
    expect(demo.stdout).toBe(answer + "\n");
    expect(demo.stderr).toContain(`${stage} demo: replaying a recorded session`);
  });

  test("a usage error is one line and exit 2", async () => {
    const bad = await run(stage, ["--nope"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim().split("\n")).toHaveLength(1);
  });
});

describe("dist/stage1 against a local OpenAI-compatible server", () => {
  let provider: FakeProvider;
  afterAll(() => provider?.close());

  test("completes a multi-step task, answer on stdout, exit 0", async () => {
    const args = (o: object) => JSON.stringify(o);
    provider = await startFakeProvider([
      { role: "assistant", content: null, tool_calls: [{ id: "a", type: "function", function: { name: "write_file", arguments: args({ path: "notes.md", content: "# Notes\n- one\n" }) } }] },
      { role: "assistant", content: null, tool_calls: [{ id: "b", type: "function", function: { name: "edit_file", arguments: args({ path: "notes.md", old_text: "- one", new_text: "- one\n- two" }) } }] },
      { role: "assistant", content: null, tool_calls: [{ id: "c", type: "function", function: { name: "bash", arguments: args({ command: "wc -l notes.md" }) } }] },
      { role: "assistant", content: "notes.md has 3 lines." },
    ]);
    const workspace = mkdtempSync(join(tmpdir(), "binary-ws-"));
    const result = await run("stage1", ["-y", "-C", workspace, "Make notes with two items"], {
      OPENAI_BASE_URL: provider.url,
      OPENAI_API_KEY: "x",
      AGENT_MODEL: "fake",
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("notes.md has 3 lines.\n");
    expect(readFileSync(join(workspace, "notes.md"), "utf8")).toBe("# Notes\n- one\n- two\n");
    expect(provider.requests).toHaveLength(4);
  });
});
