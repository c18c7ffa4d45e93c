// The REPL as a person uses it: a real pseudo-terminal (tmux), keys typed one by one, the screen
// read back. The model is scripted; the commands, the files and Ctrl-C are real.
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { NODE, stageFile } from "./run-stage.ts";
import { messageOrderProblem, parseMessageLines, type AssistantMessage } from "../shared/messages.ts";

const hasTmux = spawnSync("tmux", ["-V"]).status === 0;

/** One tmux server of our own (-L), so a user's sessions are never touched. */
class Terminal {
  private static count = 0;
  private readonly socket = `agent-stages-test-${process.pid}-${Terminal.count++}`;

  constructor(command: string) {
    this.tmux("new-session", "-d", "-s", "repl", "-x", "140", "-y", "50", command);
  }

  private tmux(...args: string[]): string {
    return execFileSync("tmux", ["-L", this.socket, ...args], { encoding: "utf8" });
  }

  screen(): string {
    return this.tmux("capture-pane", "-p", "-S", "-200", "-t", "repl");
  }

  /** Types keys: text is typed literally, names like Enter, Down and C-c are keys. */
  keys(...keys: string[]): void {
    for (const key of keys) {
      if (/^(Enter|Down|Up|C-c|C-d)$/.test(key)) this.tmux("send-keys", "-t", "repl", key);
      else this.tmux("send-keys", "-t", "repl", "-l", key);
    }
  }

  /** Waits until the screen shows `text` `times` times (prompts repeat, so count them). */
  async waitFor(text: string, times = 1, timeoutMs = 15_000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const screen = this.screen();
      if (screen.split(text).length - 1 >= times) return screen;
      if (Date.now() > deadline) throw new Error(execFileSync("sh", ["-c", `stty -a -F $(tmux -L ${this.socket} display -p -t repl '#{pane_tty}')`], { encoding: "utf8" }) + `the screen never showed ${JSON.stringify(text)} ${times}x:\n${screen}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /** Waits for an empty prompt at the bottom of the screen: the REPL is ready for the next message. */
  async waitForPrompt(timeoutMs = 15_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!/◆ {2}You\n│ {2}ask for something, or \/help\n└$/.test(this.screen().trimEnd())) {
      if (Date.now() > deadline) throw new Error(`no empty prompt:\n${this.screen()}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /** Whether the terminal shows its cursor (a prompt hides it while it draws). */
  cursorVisible(): boolean {
    return this.tmux("display", "-p", "-t", "repl", "#{cursor_flag}").trim() === "1";
  }

  close(): void {
    spawnSync("tmux", ["-L", this.socket, "kill-server"]);
  }
}

const call = (id: string, name: string, args: object) => ({ id, type: "function" as const, function: { name, arguments: JSON.stringify(args) } });

/** A sleep no other process on the machine runs, so the test can look for it. */
const SLEEP = `sleep 59.${process.pid}`;
const isRunning = (command: string) => spawnSync("pgrep", ["-f", `^${command.replace(/\./g, "\\.")}$`]).status === 0;

describe.skipIf(!hasTmux)("the REPL in a pseudo-terminal", () => {
  let terminal: Terminal | undefined;
  afterAll(() => terminal?.close());

  test("approve a command, deny an edit with a reason, cancel a command with Ctrl-C, ask again, /exit", async () => {
    const workspace = mkdtempSync(join(tmpdir(), "repl-ws-"));
    writeFileSync(join(workspace, "notes.txt"), "draft notes\n");
    const replies: AssistantMessage[] = [
      { role: "assistant", content: "Let me run it.", tool_calls: [call("c1", "bash", { command: "echo hello from bash" })] },
      { role: "assistant", content: null, tool_calls: [call("c2", "edit_file", { path: "notes.txt", old_text: "draft", new_text: "final" })] },
      { role: "assistant", content: "I ran the command and left notes.txt alone." },
      { role: "assistant", content: null, tool_calls: [call("c3", "bash", { command: SLEEP })] },
      { role: "assistant", content: "Second answer: the conversation goes on." },
    ];
    const script = join(workspace, "..", `${workspace.split("/").pop()}.script.jsonl`);
    writeFileSync(script, replies.map((reply) => JSON.stringify(reply)).join("\n") + "\n");
    const transcript = join(workspace, "..", `${workspace.split("/").pop()}.transcript.jsonl`);
    const exitFile = `${transcript}.exit`;
    terminal = new Terminal(
      `cd ${workspace} && NO_COLOR=1 ${NODE} ${stageFile("stage1")} --mock ${script} --transcript ${transcript}; echo $? > ${exitFile}; sleep 60`,
    );

    await terminal.waitForPrompt();
    terminal.keys("check the notes", "Enter");
    await terminal.waitFor("Run this command?");
    terminal.keys("Enter"); // Yes
    await terminal.waitFor("hello from bash", 2); // the tool line and its result
    let screen = await terminal.waitFor("Apply this change to notes.txt?");
    expect(screen).toContain("-draft notes");
    expect(screen).toContain("+final notes");
    terminal.keys("Down", "Down", "Down", "Enter"); // No, and tell the model why
    await terminal.waitFor("Why not?");
    terminal.keys("keep it a draft for now", "Enter");
    await terminal.waitFor("I ran the command and left notes.txt alone.");
    expect(readFileSync(join(workspace, "notes.txt"), "utf8")).toBe("draft notes\n");

    await terminal.waitForPrompt();
    terminal.keys("wait for a while", "Enter");
    await terminal.waitFor("Run this command?", 2);
    terminal.keys("Enter");
    await waitUntil(() => isRunning(SLEEP));
    terminal.keys("C-c");
    await terminal.waitFor("cancelled: the turn stopped");
    await waitUntil(() => !isRunning(SLEEP));

    await terminal.waitForPrompt();
    terminal.keys("and now?", "Enter");
    await terminal.waitFor("Second answer: the conversation goes on.");
    terminal.keys("/exit", "Enter");
    await waitUntil(() => readFileSafe(exitFile) !== "");
    expect(readFileSafe(exitFile).trim()).toBe("0");

    const messages = parseMessageLines(readFileSync(transcript, "utf8"), (line) => {
      throw new Error(`damaged transcript line ${line}`);
    });
    expect(messageOrderProblem(messages)).toBeNull();
    expect(messages.map((m) => m.role)).toEqual([
      "system", "user", "assistant", "tool", "assistant", "tool", "assistant",
      "user", "assistant", "tool",
      "user", "assistant",
    ]);
    expect(messages[3].content).toContain("hello from bash");
    expect(messages[5].content).toBe("Denied: the user did not allow this edit_file call. The user said: keep it a draft for now");
    expect(messages[9].content).toContain("cancelled by the user");
  }, 60_000);
});

describe.skipIf(!hasTmux)("leaving the REPL", () => {
  test.each([
    ["C-d", "0"],
    ["C-c", "130"],
  ])("%s at an empty prompt leaves with exit code %s and gives the cursor back", async (key, code) => {
    const workspace = mkdtempSync(join(tmpdir(), "repl-ws-"));
    const exitFile = join(workspace, "..", `${workspace.split("/").pop()}.exit`);
    const script = join(workspace, "..", `${workspace.split("/").pop()}.jsonl`);
    writeFileSync(script, JSON.stringify({ role: "assistant", content: "unused" }) + "\n");
    const terminal = new Terminal(`cd ${workspace} && ${NODE} ${stageFile("stage0")} --mock ${script}; echo $? > ${exitFile}; sleep 60`);
    try {
      await terminal.waitForPrompt();
      terminal.keys(key);
      await waitUntil(() => readFileSafe(exitFile) !== "");
      expect(readFileSafe(exitFile).trim()).toBe(code);
      expect(terminal.cursorVisible()).toBe(true);
    } finally {
      terminal.close();
    }
  }, 30_000);
});

async function waitUntil(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("timed out waiting");
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function readFileSafe(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return "";
  }
}
