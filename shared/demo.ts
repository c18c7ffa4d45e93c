// `stageN --demo`: replays the stage's recorded session (docs/demo/stageN.jsonl) on a fresh copy
// of the example workspace (docs/demo/workspace), with no model and no network.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { UsageError } from "./config.ts";
import { kitFiles, unpackKitFolder } from "./kit-files.ts";
import { parseMessageLines, type AssistantMessage } from "./messages.ts";
import { ScriptedModel } from "./model.ts";

export interface Demo { prompt: string; model: ScriptedModel; cwd: string }

export function prepareDemo(stageName: string): Demo {
  const recording = kitFiles("docs/demo").get(`${stageName}.jsonl`);
  if (recording === undefined) throw new UsageError(`there is no recorded demo for ${stageName}`);
  const messages = parseMessageLines(recording, (line) => {
    throw new Error(`docs/demo/${stageName}.jsonl:${line} is damaged`);
  });
  const prompt = messages.find((m) => m.role === "user")?.content;
  if (!prompt) throw new Error(`docs/demo/${stageName}.jsonl has no user message`);

  const cwd = mkdtempSync(join(tmpdir(), `${stageName}-demo-`));
  unpackKitFolder("docs/demo/workspace", cwd);
  const replies = messages.filter((m): m is AssistantMessage => m.role === "assistant");
  return { prompt, model: new ScriptedModel(replies, `recorded demo`), cwd };
}
