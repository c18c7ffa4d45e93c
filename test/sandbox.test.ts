// --sandbox: bash under bubblewrap. The kernel, not a pattern list, keeps commands to the
// workspace and off the network. Skipped (visibly) on a machine without bwrap.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { runCommand, type RunOptions } from "../shared/bash.ts";
import { sandboxProblem } from "../shared/sandbox.ts";
import { runStage } from "./run-stage.ts";

const hasBwrap = sandboxProblem() === undefined;
const signal = new AbortController().signal;
const run = (command: string, cwd: string, sandbox: RunOptions["sandbox"], timeoutMs = 10_000) =>
  runCommand(command, { cwd, signal, timeoutMs, sandbox });

/** A folder outside /tmp (which the sandbox replaces with its own), so writes to it would show. */
const outsideFolder = () => mkdtempSync(join("/var/tmp", "sandbox-outside-"));

describe("without bubblewrap", () => {
  test("--sandbox says what to install, and the program stops before doing anything", async () => {
    expect(sandboxProblem("/no/such/bwrap")).toMatch(/needs bubblewrap \(bwrap\), which is not installed: install the bubblewrap package \(apt-get install bubblewrap\)/);
    const workspace = mkdtempSync(join(tmpdir(), "sandbox-"));
    const mock = join(workspace, "..", `${workspace.split("/").pop()}.jsonl`);
    writeFileSync(mock, JSON.stringify({ role: "assistant", content: "never" }) + "\n");
    const result = await runStage("stage1", ["--sandbox", "-C", workspace, "--mock", mock, "hi"], { PATH: "/nonexistent" });
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split("\n")).toHaveLength(1);
    expect(result.stderr).toContain("--sandbox needs bubblewrap");
  });
});

describe.skipIf(!hasBwrap)("bash in the sandbox", () => {
  test("writes in the workspace, but nowhere else", async () => {
    const workspace = mkdtempSync(join(tmpdir(), "sandbox-"));
    const outside = outsideFolder();
    const result = await run(`echo kept > notes.txt && touch ${outside}/escaped; touch ~/escaped-home`, workspace, "read-write");
    expect(readFileSync(join(workspace, "notes.txt"), "utf8")).toBe("kept\n");
    expect(result).toContain("Read-only file system");
    expect(existsSync(join(outside, "escaped"))).toBe(false);
    expect(existsSync(join(process.env.HOME ?? "/root", "escaped-home"))).toBe(false);
  });

  test("read-only access (explore and plan subagents) cannot write even the workspace", async () => {
    const workspace = mkdtempSync(join(tmpdir(), "sandbox-"));
    writeFileSync(join(workspace, "a.txt"), "original\n");
    const result = await run("echo changed > a.txt; cat a.txt", workspace, "read-only");
    expect(result).toBe(`bash: line 1: a.txt: Read-only file system\noriginal\n[exit code 0]`);
    expect(readFileSync(join(workspace, "a.txt"), "utf8")).toBe("original\n");
  });

  test("has no network: a server on this machine's 127.0.0.1 is out of reach", async () => {
    let connections = 0;
    const server = createServer((socket) => {
      connections++;
      socket.end();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    const workspace = mkdtempSync(join(tmpdir(), "sandbox-"));
    const probe = `(echo hi > /dev/tcp/127.0.0.1/${port}) 2>/dev/null && echo reached || echo unreachable`;
    try {
      expect(await run(probe, workspace, undefined)).toBe("reached\n[exit code 0]"); // the control: outside it works
      expect(await run(probe, workspace, "read-write")).toBe("unreachable\n[exit code 0]");
      expect(connections).toBe(1);
    } finally {
      server.close();
    }
  });

  test("a timeout kills everything the command started inside the sandbox", async () => {
    const workspace = mkdtempSync(join(tmpdir(), "sandbox-"));
    const marker = `sleep 41.${process.pid}`;
    const result = await run(`${marker} & ${marker}`, workspace, "read-write", 500);
    expect(result).toContain("[killed after the 0.5 s timeout]");
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(spawnSync("pgrep", ["-f", marker]).status).toBe(1); // nothing left running
  });

  test("a stage run with --sandbox keeps its commands inside", async () => {
    const workspace = mkdtempSync(join(tmpdir(), "sandbox-"));
    const outside = outsideFolder();
    const call = { id: "c1", type: "function", function: { name: "bash", arguments: JSON.stringify({ command: `touch ${outside}/escaped; echo inside > made.txt` }) } };
    const mock = join(workspace, "..", `${workspace.split("/").pop()}.jsonl`);
    writeFileSync(mock, [{ role: "assistant", content: null, tool_calls: [call] }, { role: "assistant", content: "done" }].map((m) => JSON.stringify(m)).join("\n") + "\n");
    const transcript = `${mock}.transcript`;
    const result = await runStage("stage1", ["--sandbox", "-y", "-C", workspace, "--mock", mock, "--transcript", transcript, "go"], {});
    expect(result.code).toBe(0);
    expect(existsSync(join(outside, "escaped"))).toBe(false);
    expect(readFileSync(join(workspace, "made.txt"), "utf8")).toBe("inside\n");
    expect(readFileSync(transcript, "utf8")).toContain("Read-only file system");
  });
});
