// Transcripts and --resume: a conversation written message by message can be picked up again,
// even from a file whose writer was killed mid-line or mid-tool.
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { approver } from "../shared/approval.ts";
import { Session } from "../shared/cli.ts";
import { UsageError } from "../shared/config.ts";
import { CANCELLED_RESULT } from "../shared/loop.ts";
import { messageOrderProblem, type Message } from "../shared/messages.ts";
import { ScriptedModel } from "../shared/model.ts";
import { loadTranscript, withTranscript } from "../shared/transcript.ts";
import { stage } from "../stages/stage1.ts";
import { startFakeProvider, type FakeProvider } from "./fake-provider.ts";
import { runStage } from "./run-stage.ts";

const dir = () => mkdtempSync(join(tmpdir(), "transcript-"));
const lines = (...messages: object[]) => messages.map((m) => JSON.stringify(m) + "\n").join("");
const bash = (id: string, command: string) => ({ id, type: "function" as const, function: { name: "bash", arguments: JSON.stringify({ command }) } });

const OLD: Message[] = [
  { role: "system", content: "an older system prompt" },
  { role: "user", content: "what is in notes.txt?" },
  { role: "assistant", content: null, tool_calls: [bash("c1", "cat notes.txt")] },
  { role: "tool", tool_call_id: "c1", content: "buy milk\n[exit code 0]" },
  { role: "assistant", content: "It says: buy milk." },
];

function transcriptFile(text: string): string {
  const file = join(dir(), "t.jsonl");
  writeFileSync(file, text);
  return file;
}

describe("loadTranscript", () => {
  test("a damaged last line (the writer was killed mid-line) is reported and skipped", () => {
    const file = transcriptFile(lines(...OLD) + '{"role":"user","content":"and th');
    const warnings: string[] = [];
    const messages = loadTranscript(file, (text) => warnings.push(text));
    expect(messages).toEqual(OLD.slice(1)); // the system prompt is the resuming stage's own
    expect(warnings).toEqual([`${file} line 6 is damaged and was skipped`]);
  });

  test("tool calls left without an answer (killed while a tool ran) are answered as cancelled", () => {
    const calls = { role: "assistant", content: null, tool_calls: [bash("c2", "sleep 100"), bash("c3", "ls")] };
    const file = transcriptFile(lines(...OLD.slice(0, 4), calls, { role: "tool", tool_call_id: "c2", content: "done" }));
    const messages = loadTranscript(file, () => {});
    expect(messages.at(-1)).toEqual({ role: "tool", tool_call_id: "c3", content: CANCELLED_RESULT });
    expect(messageOrderProblem(messages)).toBeNull();
  });

  test("a file with several conversations (/clear) resumes the last one", () => {
    const file = transcriptFile(lines(...OLD, { role: "system", content: "new" }, { role: "user", content: "second" }, { role: "assistant", content: "yes" }));
    expect(loadTranscript(file, () => {})).toEqual([{ role: "user", content: "second" }, { role: "assistant", content: "yes" }]);
  });

  test("an order that cannot go on, or no messages at all, is a usage error that names the file", () => {
    const broken = transcriptFile(lines(OLD[0], OLD[1], { role: "tool", tool_call_id: "zz", content: "?" }));
    expect(() => loadTranscript(broken, () => {})).toThrow(UsageError);
    expect(() => loadTranscript(broken, () => {})).toThrow(`--resume ${broken} is not a conversation that can go on: message 1 answers zz`);
    const empty = transcriptFile("\n");
    expect(() => loadTranscript(empty, () => {})).toThrow(`--resume ${empty} holds no messages`);
  });
});

describe("resuming a conversation", () => {
  test("the model's next request holds the old messages, after the current system prompt", async () => {
    const model = new ScriptedModel([{ role: "assistant", content: "Then buy bread too." }]);
    const history = loadTranscript(transcriptFile(lines(...OLD)), () => {});
    const session = new Session(stage, { cwd: dir(), model, approve: approver("auto", false, () => {}), maxSteps: 5, history });
    const outcome = await session.turn("anything else?");

    expect(outcome).toMatchObject({ kind: "answered", text: "Then buy bread too." });
    const sent = model.requests[0].messages;
    expect(sent[0].role).toBe("system");
    expect(sent[0].content).not.toBe("an older system prompt");
    expect(sent.slice(1)).toEqual([...OLD.slice(1), { role: "user", content: "anything else?" }]);
  });

  async function resumeInto(resumed: string, transcript: string): Promise<void> {
    const session = new Session(stage, {
      cwd: dir(),
      model: new ScriptedModel([{ role: "assistant", content: "Bread." }]),
      approve: approver("auto", false, () => {}),
      maxSteps: 5,
      history: loadTranscript(resumed, () => {}),
      onEvent: withTranscript(transcript, () => {}, resumed),
    });
    await session.turn("more?");
  }

  test("the same transcript file goes on where it stopped, its damaged line ended, not glued to the next", async () => {
    const file = transcriptFile(lines(...OLD) + '{"role":"tool","tool_');
    await resumeInto(file, file);
    const written = readFileSync(file, "utf8").split("\n");
    expect(written[5]).toBe('{"role":"tool","tool_');
    expect(written.slice(6)).toEqual([lines({ role: "user", content: "more?" }).trim(), lines({ role: "assistant", content: "Bread." }).trim(), ""]);
  });

  test("a new transcript file gets the whole conversation, with the current system prompt", async () => {
    const file = transcriptFile(lines(...OLD));
    const copy = join(dir(), "copy.jsonl");
    await resumeInto(file, copy);
    const messages = loadTranscript(copy, () => {});
    expect(messages).toEqual([...OLD.slice(1), { role: "user", content: "more?" }, { role: "assistant", content: "Bread." }]);
    expect(JSON.parse(readFileSync(copy, "utf8").split("\n")[0]).content).toContain("coding agent");
  });
});

describe("--resume from the command line", () => {
  let provider: FakeProvider | undefined;
  afterEach(async () => provider?.close());

  test("a task goes on from a transcript with a damaged last line; the provider receives the old messages", async () => {
    const file = transcriptFile(lines(...OLD) + '{"role":"ass');
    provider = await startFakeProvider([{ role: "assistant", content: "Milk and bread." }]);
    const run = await runStage("stage1", ["--resume", file, "-C", dir(), "--transcript", file, "and now?"], {
      OPENAI_BASE_URL: provider.url,
      AGENT_MODEL: "fake",
    });
    expect(run.stderr).toContain(`warning: ${file} line 6 is damaged and was skipped`);
    expect(run).toMatchObject({ code: 0, stdout: "Milk and bread.\n" });
    const sent = provider.requests[0].messages;
    expect(sent.slice(1, 5)).toEqual(OLD.slice(1));
    expect(sent.at(-1)).toEqual({ role: "user", content: "and now?" });

    const again = loadTranscript(file, () => {});
    expect(again.slice(-2)).toEqual([{ role: "user", content: "and now?" }, { role: "assistant", content: "Milk and bread." }]);
  });

  test("a missing file is a usage error", async () => {
    const run = await runStage("stage1", ["--resume", "/no/such/t.jsonl", "--mock", transcriptFile(lines(OLD[4])), "hi"], {});
    expect(run).toMatchObject({ code: 2 });
    expect(run.stderr).toContain("--resume /no/such/t.jsonl: no such file");
  });
});
