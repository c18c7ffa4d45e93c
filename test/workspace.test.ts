import { mkdirSync, mkdtempSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { createWorkspace, PathRefused } from "../shared/workspace.ts";

function setup() {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "ws-")));
  const outside = realpathSync(mkdtempSync(join(tmpdir(), "outside-")));
  mkdirSync(join(root, "src"));
  writeFileSync(join(root, "src", "a.ts"), "x");
  symlinkSync(outside, join(root, "out-link"));
  symlinkSync(join(root, "src"), join(root, "in-link"));
  return { root, outside, workspace: createWorkspace(root) };
}

describe("workspace paths", () => {
  test.each([
    ["src/a.ts", "src/a.ts"],
    ["./src/../src/a.ts", "src/a.ts"],
    ["new/folder/file.txt", "new/folder/file.txt"],
    ["in-link/a.ts", "in-link/a.ts"],
  ])("%s stays inside", (path, expected) => {
    const { root, workspace } = setup();
    expect(workspace.resolve(path)).toBe(join(root, expected));
  });

  test("an absolute path inside the workspace is fine", () => {
    const { root, workspace } = setup();
    expect(workspace.resolve(join(root, "src/a.ts"))).toBe(join(root, "src/a.ts"));
  });

  test.each([
    ["..", "outside the workspace"],
    ["../sibling.txt", "outside the workspace"],
    ["src/../../x", "outside the workspace"],
    ["/etc/passwd", "outside the workspace"],
    ["out-link/secret.txt", "through a symlink"],
    ["out-link/new/deeper.txt", "through a symlink"],
    ["", "empty"],
  ])("%s is refused (%s)", (path, reason) => {
    const { workspace } = setup();
    expect(() => workspace.resolve(path)).toThrow(PathRefused);
    expect(() => workspace.resolve(path)).toThrow(reason);
  });

  test("a symlink to a missing target is refused, since writing through it would create the target", () => {
    const { root, workspace } = setup();
    symlinkSync("/tmp/agent-stages-missing-target", join(root, "dangling"));
    expect(() => workspace.resolve("dangling")).toThrow("symlink to a missing target");
  });

  test("a workspace reached through a symlink still knows its real folder", () => {
    const { root } = setup();
    const link = join(realpathSync(tmpdir()), `ws-link-${process.pid}-${Date.now()}`);
    symlinkSync(root, link);
    expect(createWorkspace(link).resolve("src/a.ts")).toBe(join(root, "src/a.ts"));
  });

  test("a folder allowed for reading can be read, never written", () => {
    const { outside, workspace } = setup();
    writeFileSync(join(outside, "notes.md"), "x");
    expect(() => workspace.resolve(join(outside, "notes.md"), "read")).toThrow("outside the workspace");
    workspace.allowReading(outside);
    expect(workspace.resolve(join(outside, "notes.md"), "read")).toBe(join(outside, "notes.md"));
    expect(() => workspace.resolve(join(outside, "notes.md"), "write")).toThrow("outside the workspace");
    expect(() => workspace.resolve(join(outside, "..", "elsewhere.md"), "read")).toThrow("outside the workspace");
  });
});
