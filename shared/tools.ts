// A tool is a table row: name, description, a zod schema for its arguments, whether it is
// risky (needs the user's approval), and the function that runs it. The zod schema is the one
// definition of the arguments: the JSON schema the model sees and the validation both come from it.
import * as z from "zod";
import type { ToolCall } from "./messages.ts";
import type { ToolSpec } from "./model.ts";

export interface ToolContext {
  /** Aborted when the user cancels the turn; long-running tools stop on it. */
  signal: AbortSignal;
}

/** A file as it is and as a call would leave it ("" before for a new file). */
export interface FileChange { path: string; before: string; after: string }

export interface Tool<Schema extends z.ZodType = z.ZodType> {
  name: string;
  description: string;
  schema: Schema;
  risky: boolean;
  /** A reason to refuse these arguments outright, checked before any approval is asked. */
  refuse?(args: z.infer<Schema>): string | undefined;
  /** The file change these arguments would make, shown to the user before they approve it. */
  change?(args: z.infer<Schema>): FileChange | undefined;
  run(args: z.infer<Schema>, context: ToolContext): Promise<string>;
}

/** Keeps the argument type of `run` tied to the schema. */
export function defineTool<Schema extends z.ZodType>(tool: Tool<Schema>): Tool {
  return tool as unknown as Tool;
}

export function toolSpec(tool: Tool): ToolSpec {
  const { $schema: _, ...parameters } = z.toJSONSchema(tool.schema, { io: "input" }) as Record<string, unknown>;
  return { type: "function", function: { name: tool.name, description: tool.description, parameters } };
}

/** What the model asked for, checked: either a tool with valid arguments, or the reason it cannot run. */
export type CheckedCall =
  | { ok: true; tool: Tool; args: Record<string, unknown> }
  | { ok: false; error: string };

export function checkCall(call: ToolCall, tools: readonly Tool[]): CheckedCall {
  const name = call.function.name;
  const tool = tools.find((t) => t.name === name);
  if (!tool) {
    return { ok: false, error: `Error: there is no tool named "${name}". Available tools: ${tools.map((t) => t.name).join(", ")}.` };
  }
  let raw: unknown;
  try {
    raw = call.function.arguments.trim() === "" ? {} : JSON.parse(call.function.arguments);
  } catch {
    const start = call.function.arguments.slice(0, 120);
    return { ok: false, error: `Error: the arguments for ${name} are not valid JSON: ${start}. The call did nothing; send one JSON object.` };
  }
  const parsed = tool.schema.safeParse(raw);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${pathText(issue.path) || "arguments"}: ${issueText(issue.message)}`);
    return { ok: false, error: `Error: invalid arguments for ${name}: ${problems.join("; ")}. The call did nothing.` };
  }
  const refused = tool.refuse?.(parsed.data);
  if (refused) return { ok: false, error: `Error: refused: ${refused}. It is never run, whatever the approval mode.` };
  return { ok: true, tool, args: parsed.data as Record<string, unknown> };
}

/** ["items", 2, "activeForm"] -> "items[2].activeForm" */
function pathText(path: readonly PropertyKey[]): string {
  return path.map((key, i) => (typeof key === "number" ? `[${key}]` : `${i > 0 ? "." : ""}${String(key)}`)).join("");
}

function issueText(message: string): string {
  return message.replace(/^Invalid input: expected (\w+), received undefined$/, "missing (expected $1)");
}

/** Runs a checked tool; a tool that throws becomes an error result, never a crash of the loop. */
export async function runTool(tool: Tool, args: Record<string, unknown>, context: ToolContext): Promise<string> {
  try {
    return await tool.run(args, context);
  } catch (error) {
    return `Error: ${tool.name} failed: ${(error as Error).message ?? String(error)}`;
  }
}
