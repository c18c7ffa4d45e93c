// One measurement of the loop alone: `node bench/loop.ts STEPS` runs STEPS model requests, each
// asking for one call of a trivial tool, with a model that answers at once. Prints JSON.
import * as z from "zod";
import { runLoop } from "../shared/loop.ts";
import type { AssistantMessage, Message } from "../shared/messages.ts";
import type { Model } from "../shared/model.ts";
import { defineTool } from "../shared/tools.ts";

const steps = Number(process.argv[2] ?? 100);

const noop = defineTool({
  name: "noop",
  description: "Does nothing and says so.",
  schema: z.object({ n: z.number().int() }),
  risky: false,
  run: async ({ n }) => `ok ${n}`,
});

/** Answers at once: a call of noop for every step but the last, then a text answer. */
let count = 0;
const model: Model = {
  name: "instant",
  async complete() {
    count++;
    const message: AssistantMessage = count < steps
      ? { role: "assistant", content: null, tool_calls: [{ id: `c${count}`, type: "function", function: { name: "noop", arguments: `{"n":${count}}` } }] }
      : { role: "assistant", content: "done" };
    return { message };
  },
};

const messages: Message[] = [
  { role: "system", content: "You are a benchmark." },
  { role: "user", content: "Call noop until told to stop." },
];
const started = performance.now();
const outcome = await runLoop(messages, { model, tools: [noop], maxSteps: steps, approve: async () => ({ allow: true }) });
const ms = performance.now() - started;
if (outcome.kind !== "answered" || outcome.steps !== steps) throw new Error(`the loop ended early: ${JSON.stringify(outcome)}`);

console.log(JSON.stringify({
  steps,
  ms,
  msPerStep: ms / steps,
  maxRssMB: process.resourceUsage().maxRSS / 1024,
  heapUsedMB: process.memoryUsage().heapUsed / 1024 / 1024,
  transcriptKB: JSON.stringify(messages).length / 1024,
}));
