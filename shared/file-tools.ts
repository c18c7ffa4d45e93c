// The file tools: read_file, write_file and edit_file, made over one workspace. Every path goes
// through the workspace's rules first; writes are atomic, so a crash never leaves half a file.
import { chmodSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import * as z from "zod";
import { defineTool, type Tool } from "./tools.ts";
import type { Workspace } from "./workspace.ts";

export const READ_LIMIT = 2000;
const MAX_LINE = 2000;

export function readFileTool(workspace: Workspace): Tool {
  return defineTool({
    name: "read_file",
    description:
      "Read a text file in the workspace. Lines come numbered. For a long file, read a range: " +
      "offset is the first line to read (1-based) and limit the number of lines.",
    schema: z.object({
      path: z.string().describe("File path, relative to the workspace."),
      offset: z.number().int().min(1).optional().describe("First line to read, 1-based (default 1)."),
      limit: z.number().int().min(1).optional().describe(`Number of lines to read (default ${READ_LIMIT}).`),
    }),
    risky: false,
    async run({ path, offset = 1, limit = READ_LIMIT }) {
      const bytes = readFileSync(workspace.resolve(path, "read"));
      if (bytes.subarray(0, 8000).includes(0)) {
        return `Error: ${path} is a binary file (${bytes.length} bytes); read_file shows text files only.`;
      }
      if (bytes.length === 0) return `(${path} is empty)`;
      const lines = bytes.toString("utf8").replace(/\n$/, "").split("\n");
      if (offset > lines.length) return `Error: offset ${offset} is past the end of ${path} (${lines.length} lines).`;
      const last = Math.min(lines.length, offset + limit - 1);
      const numbered = lines
        .slice(offset - 1, last)
        .map((line, i) => `${String(offset + i).padStart(6)}\t${line.length > MAX_LINE ? line.slice(0, MAX_LINE) + " [line clipped]" : line}`);
      const remaining = lines.length - last;
      if (remaining > 0 || offset > 1) {
        numbered.push(`[lines ${offset}-${last} of ${lines.length}` + (remaining > 0 ? `; ${remaining} more: read_file with offset=${last + 1}]` : "]"));
      }
      return numbered.join("\n");
    },
  });
}

export function writeFileTool(workspace: Workspace): Tool {
  return defineTool({
    name: "write_file",
    description: "Create or overwrite a file in the workspace with the given content. Missing folders are created.",
    schema: z.object({
      path: z.string().describe("File path, relative to the workspace."),
      content: z.string().describe("The whole new content of the file."),
    }),
    risky: true,
    change({ path, content }) {
      const before = currentText(workspace, path);
      return before === undefined ? undefined : { path, before, after: content };
    },
    async run({ path, content }) {
      const target = workspace.resolve(path);
      mkdirSync(dirname(target), { recursive: true });
      const existed = fileMode(target) !== undefined;
      writeAtomically(target, content);
      return `${existed ? "Overwrote" : "Created"} ${path} (${lines(countLines(content))}, ${Buffer.byteLength(content)} bytes).`;
    },
  });
}

export function editFileTool(workspace: Workspace): Tool {
  return defineTool({
    name: "edit_file",
    description:
      "Replace one exact piece of text in a file. old_text must occur exactly once in the file; " +
      "include enough surrounding lines to make it unique. Read the file first to copy the text exactly.",
    schema: z.object({
      path: z.string().describe("File path, relative to the workspace."),
      old_text: z.string().min(1).describe("The exact text to replace, whitespace included."),
      new_text: z.string().describe("The text to put in its place."),
    }),
    risky: true,
    change({ path, old_text, new_text }) {
      const before = currentText(workspace, path);
      if (before === undefined) return undefined;
      const after = replaceOnce(before, old_text, new_text);
      return typeof after === "string" ? { path, before, after } : undefined;
    },
    async run({ path, old_text, new_text }) {
      const target = workspace.resolve(path);
      const after = replaceOnce(readFileSync(target, "utf8"), old_text, new_text);
      if (typeof after !== "string") {
        const advice = after.matches === 0
          ? "Read the file and copy the text exactly, whitespace included."
          : "Include more surrounding lines so that it matches once.";
        return `Error: old_text occurs ${after.matches} times in ${path}; it must occur exactly once. ${advice} The file is unchanged.`;
      }
      writeAtomically(target, after);
      return `Edited ${path}: replaced ${lines(countLines(old_text))} with ${lines(countLines(new_text))}.`;
    },
  });
}

/** The text with `oldText` replaced, or how often it occurs when that is not exactly once. */
function replaceOnce(text: string, oldText: string, newText: string): string | { matches: number } {
  const matches = text.split(oldText).length - 1;
  if (matches !== 1) return { matches };
  const at = text.indexOf(oldText);
  return text.slice(0, at) + newText + text.slice(at + oldText.length);
}

/** The file's text for a preview: "" for a new file, undefined when the path may not be written. */
function currentText(workspace: Workspace, path: string): string | undefined {
  let target;
  try {
    target = workspace.resolve(path, "write");
  } catch {
    return undefined;
  }
  try {
    return readFileSync(target, "utf8");
  } catch {
    return "";
  }
}

/** Writes a temp file beside the target, then renames it over: readers see the old or the new file, never half. */
export function writeAtomically(target: string, content: string): void {
  const mode = fileMode(target);
  const temp = join(dirname(target), `.${basename(target)}.${process.pid}.${Date.now()}.tmp`);
  try {
    writeFileSync(temp, content, { flag: "wx" });
    if (mode !== undefined) chmodSync(temp, mode);
    renameSync(temp, target);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
}

function fileMode(path: string): number | undefined {
  try {
    return statSync(path).mode & 0o7777;
  } catch {
    return undefined;
  }
}

const lines = (n: number) => (n === 1 ? "1 line" : `${n} lines`);

function countLines(text: string): number {
  return text === "" ? 0 : text.replace(/\n$/, "").split("\n").length;
}
