// Approvals: before a risky call runs, the user sees what it will do (the command, or a colored
// diff of the file change) and answers yes, yes for the rest of the conversation, or no, with a
// reason the model reads. The flags answer for them: --yes runs everything, --approval never nothing.
import { createTwoFilesPatch } from "diff";
import type { Writable } from "node:stream";
import type { ApprovalMode } from "./config.ts";
import { TurnCancelled, type Approval, type Approver } from "./loop.ts";
import type { ToolCall } from "./messages.ts";
import { cyan, dim, endLiveLine, green, keyArgument, plural, red } from "./terminal.ts";
import type { FileChange, Tool } from "./tools.ts";

/** What the user is asked about: the call, and the grant "don't ask again" would give. */
export interface Question {
  call: ToolCall;
  tool: Tool;
  args: Record<string, unknown>;
  grant?: Grant;
}

export interface Grant { key: string; label: string }

export type Answer = { choice: "yes" | "always" } | { choice: "no"; reason?: string };

export type Ask = (question: Question) => Promise<Answer>;

/**
 * Decides risky calls by the approval mode. Grants ("don't ask again") live as long as this
 * approver, which is one conversation. Without a terminal, ask mode cannot ask: the call is
 * denied and the model is told the user can rerun with --yes.
 */
export function approver(mode: ApprovalMode, canAsk: boolean, onDeniedUnasked: () => void, ask: Ask = askUser): Approver {
  const granted = new Set<string>();
  return async (call, tool, args): Promise<Approval> => {
    if (mode === "auto") return { allow: true };
    if (mode === "never") return { allow: false, reason: "The approval mode is never: risky tools do not run." };
    const grant = grantFor(tool.name, args);
    if (grant && granted.has(grant.key)) return { allow: true };
    if (!canAsk) {
      onDeniedUnasked();
      return {
        allow: false,
        reason: "There is no terminal to ask for approval. The user can rerun with --yes to allow risky tools.",
      };
    }
    const answer = await ask({ call, tool, args, grant });
    if (answer.choice === "always" && grant) granted.add(grant.key);
    if (answer.choice !== "no") return { allow: true };
    return { allow: false, reason: answer.reason ? `The user said: ${answer.reason}` : "" };
  };
}

const SHELL_OPERATORS = /[;&|<>`$(){}\n\\]/;

/**
 * What "yes, and don't ask again" covers. For bash: commands that start with the same two words
 * (`npm test`, `git diff`), and only simple ones, since `npm test && rm -rf src` is not `npm test`.
 * For the file tools: that tool, on any file of the workspace.
 */
export function grantFor(toolName: string, args: Record<string, unknown>): Grant | undefined {
  if (toolName !== "bash") return { key: toolName, label: `${toolName} on any file` };
  const command = String(args.command ?? "").trim();
  if (command === "" || SHELL_OPERATORS.test(command)) return undefined;
  const words = command.split(/\s+/).slice(0, 2).join(" ");
  return { key: `bash:${words}`, label: `commands that start with \`${words}\`` };
}

/** A unified diff of the change, colored, at most `maxLines` long. */
export function renderChange(change: FileChange, out: Writable = process.stderr, maxLines = 40): string {
  const patch = createTwoFilesPatch(change.path, change.path, change.before, change.after, undefined, undefined, { context: 3 });
  const body = patch.split("\n").filter((line) => !/^(=+|Index: .*|--- .*|\+\+\+ .*|\\ No newline at end of file)$/.test(line));
  while (body.length > 0 && body[body.length - 1] === "") body.pop();
  const shown = body.slice(0, maxLines).map((line) => {
    if (line.startsWith("@@")) return cyan(line, out);
    if (line.startsWith("+")) return green(line, out);
    if (line.startsWith("-")) return red(line, out);
    return dim(line, out);
  });
  if (body.length > maxLines) shown.push(dim(`… ${plural(body.length - maxLines, "more line")}`, out));
  if (change.before === "") shown.unshift(dim(`new file ${change.path}`, out));
  return shown.map((line) => `    ${line}`).join("\n") + "\n";
}

/** The question on the terminal, with @clack/prompts. Ctrl-C at the question cancels the turn. */
async function askUser({ call, tool, args, grant }: Question): Promise<Answer> {
  const { select, text, isCancel } = await import("@clack/prompts");
  const out = process.stderr;
  endLiveLine(out);
  const change = tool.change?.(args);
  if (change) out.write(renderChange(change, out));
  else if (typeof args.command === "string" && keyArgument(call) !== args.command) {
    out.write(args.command.split("\n").map((line) => `  ${cyan("$", out)} ${line}`).join("\n") + "\n"); // the tool line clipped it
  }
  const options: { value: string; label: string }[] = [{ value: "yes", label: "Yes" }];
  if (grant) options.push({ value: "always", label: `Yes, and don't ask again for ${grant.label} in this conversation` });
  options.push({ value: "no", label: "No" }, { value: "why", label: "No, and tell the model why" });

  const message = change ? `Apply this change to ${change.path}?` : call.function.name === "bash" ? "Run this command?" : `Run this ${call.function.name} call?`;
  const choice = await select({ message, options, output: out });
  if (isCancel(choice)) throw new TurnCancelled();
  if (choice === "yes" || choice === "always") return { choice };
  if (choice === "no") return { choice: "no" };
  const reason = await text({ message: "Why not? The model reads this.", output: out });
  return { choice: "no", reason: isCancel(reason) ? undefined : reason.trim() || undefined };
}
