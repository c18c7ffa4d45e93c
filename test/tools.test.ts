import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, realpathSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { bashTool, runCommand, withoutSecrets } from "../shared/bash.ts";
import { editFileTool, readFileTool, writeFileTool } from "../shared/file-tools.ts";
import { clip, OutputClip } from "../shared/output.ts";
import { checkCall, runTool, toolSpec, type Tool } from "../shared/tools.ts";
import { createWorkspace } from "../shared/workspace.ts";

const signal = new AbortController().signal;
const temp = () => realpathSync(mkdtempSync(join(tmpdir(), "tools-")));
const run = (tool: Tool, args: object) => {
  const checked = checkCall({ id: "1", type: "function", function: { name: tool.name, arguments: JSON.stringify(args) } }, [tool]);
  if (!checked.ok) return Promise.resolve(checked.error);
  return runTool(checked.tool, checked.args, { signal });
};

describe("tool schemas", () => {
  test("argument names match the kit's contract", () => {
    const ws = createWorkspace(temp());
    const names = (tool: Tool) => Object.keys((toolSpec(tool).function.parameters as any).properties);
    expect(names(bashTool(ws))).toEqual(["command", "timeout"]);
    expect(names(readFileTool(ws))).toEqual(["path", "offset", "limit"]);
    expect(names(writeFileTool(ws))).toEqual(["path", "content"]);
    expect(names(editFileTool(ws))).toEqual(["path", "old_text", "new_text"]);
    expect((toolSpec(editFileTool(ws)).function.parameters as any).required).toEqual(["path", "old_text", "new_text"]);
    expect(toolSpec(bashTool(ws)).function.parameters).not.toHaveProperty("$schema");
  });
});

describe("bash", () => {
  test("runs in the workspace with stdin closed", async () => {
    const dir = temp();
    expect(await run(bashTool(createWorkspace(dir)), { command: "pwd; cat; echo done" })).toBe(`${dir}\ndone\n[exit code 0]`);
  });

  test("a timeout kills the whole process group, children included", async () => {
    const dir = temp();
    const started = Date.now();
    const result = await runCommand(`(sleep 30; touch ${dir}/child-survived) & sleep 30`, { cwd: dir, signal, timeoutMs: 500 });
    expect(result).toContain("killed after the 0.5 s timeout");
    expect(Date.now() - started).toBeLessThan(5000);
    await new Promise((r) => setTimeout(r, 300));
    expect(existsSync(join(dir, "child-survived"))).toBe(false);
  });

  test("cancelling stops the command", async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 200);
    const result = await runCommand("sleep 20", { cwd: temp(), signal: controller.signal, timeoutMs: 60_000 });
    expect(result).toContain("cancelled by the user");
  });

  test("secrets are removed from the environment", () => {
    const env = withoutSecrets({ OPENAI_API_KEY: "sk", GITHUB_TOKEN: "t", DB_PASSWORD: "p", AWS_SECRET: "s", my_key: "k", PATH: "/bin", KEYBOARD: "us" });
    expect(env).toEqual({ PATH: "/bin", KEYBOARD: "us" });
  });

  test("the command cannot print the API key", async () => {
    process.env.OPENAI_API_KEY = "sk-test-secret";
    try {
      const result = await runCommand("echo \"[$OPENAI_API_KEY]\"; env", { cwd: temp(), signal, timeoutMs: 5000 });
      expect(result).toContain("[]");
      expect(result).not.toContain("sk-test-secret");
    } finally {
      delete process.env.OPENAI_API_KEY;
    }
  });

  test("huge output is kept to the budget, head and tail, with a marker", async () => {
    const result = await runCommand("seq 1 200000", { cwd: temp(), signal, timeoutMs: 10_000 });
    expect(result.length).toBeLessThan(31_000);
    expect(result).toMatch(/^1\n2\n3\n/);
    expect(result).toMatch(/\n200000\n\[exit code 0\]$/);
    expect(result).toMatch(/\[\.\.\. \d+ bytes omitted \.\.\.\]/);
  });
});

describe("output clipping", () => {
  test("short output is untouched; long output keeps head and tail and counts the rest", () => {
    expect(clip("hello", 10)).toBe("hello");
    expect(clip("0123456789abcdefghij", 10)).toBe("01234\n[... 10 bytes omitted ...]\nfghij");
  });

  test("streamed chunks give the same result as one string", () => {
    const output = new OutputClip(10);
    for (const ch of "0123456789abcdefghij") output.add(ch);
    expect(output.toString()).toBe(clip("0123456789abcdefghij", 10));
  });
});

describe("file tools", () => {
  test("write_file creates folders, and overwrites atomically keeping the file mode", async () => {
    const ws = createWorkspace(temp());
    expect(await run(writeFileTool(ws), { path: "a/b/c.sh", content: "one\n" })).toBe("Created a/b/c.sh (1 line, 4 bytes).");
    chmodSync(join(ws.root, "a/b/c.sh"), 0o755);
    expect(await run(writeFileTool(ws), { path: "a/b/c.sh", content: "two\n" })).toBe("Overwrote a/b/c.sh (1 line, 4 bytes).");
    expect(readFileSync(join(ws.root, "a/b/c.sh"), "utf8")).toBe("two\n");
    expect(statSync(join(ws.root, "a/b/c.sh")).mode & 0o777).toBe(0o755);
    expect(readdirSync(join(ws.root, "a/b"))).toEqual(["c.sh"]); // no temp file left behind
  });

  test("a failed edit leaves the file byte for byte as it was", async () => {
    const ws = createWorkspace(temp());
    writeFileSync(join(ws.root, "f.txt"), "a\na\n");
    const before = statSync(join(ws.root, "f.txt")).mtimeMs;
    expect(await run(editFileTool(ws), { path: "f.txt", old_text: "a", new_text: "b" })).toContain("occurs 2 times");
    expect(await run(editFileTool(ws), { path: "f.txt", old_text: "zzz", new_text: "b" })).toContain("occurs 0 times");
    expect(readFileSync(join(ws.root, "f.txt"), "utf8")).toBe("a\na\n");
    expect(statSync(join(ws.root, "f.txt")).mtimeMs).toBe(before);
  });

  test("edit_file puts new_text in literally, even with $ patterns", async () => {
    const ws = createWorkspace(temp());
    writeFileSync(join(ws.root, "f.txt"), "price: X\n");
    await run(editFileTool(ws), { path: "f.txt", old_text: "X", new_text: "$& and $1 and $$" });
    expect(readFileSync(join(ws.root, "f.txt"), "utf8")).toBe("price: $& and $1 and $$\n");
  });

  test("read_file refuses binary files and reports missing ones", async () => {
    const ws = createWorkspace(temp());
    writeFileSync(join(ws.root, "img.bin"), Buffer.from([0x89, 0x50, 0x00, 0x01]));
    expect(await run(readFileTool(ws), { path: "img.bin" })).toBe("Error: img.bin is a binary file (4 bytes); read_file shows text files only.");
    expect(await run(readFileTool(ws), { path: "nope.txt" })).toMatch(/^Error: read_file failed: .*no such file/);
  });

  test("refused writes create nothing outside", async () => {
    const ws = createWorkspace(temp());
    const name = `escape-${process.pid}-${Date.now()}.txt`;
    expect(await run(writeFileTool(ws), { path: `../${name}`, content: "x" })).toContain("outside the workspace");
    expect(existsSync(join(ws.root, "..", name))).toBe(false);
  });
});
